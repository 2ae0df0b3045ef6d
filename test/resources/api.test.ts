import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from '../links/helpers';
import { download, samples, upload } from './fixtures';

let svc: TestService;
let files: Awaited<ReturnType<typeof samples>>;
let cmp: string;
let otherCmp: string;
let ptn: string;
beforeAll(async () => {
  svc = await startService();
  files = await samples();
  cmp = await campaign(svc);
  otherCmp = await campaign(svc);
  ptn = await partner(svc, [cmp]);
}, 60_000);
afterAll(() => svc.stop());

const count = async () => Number((await svc.sql`select count(*)::int as n from resources`)[0]!.n);

describe('uploading files', () => {
  test.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
    ['pdf', 'application/pdf'],
    ['zip', 'application/zip'],
  ] as const)('a %s is stored with the type its content has, whatever its name says', async (kind, type) => {
    const res = await upload(svc, { file: { bytes: files[kind], name: `upload-${kind}.bin`, type: 'text/plain' }, title: `A ${kind}` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'file', title: `A ${kind}`, campaignId: null, body: null, url: null });
    expect(res.body.file).toEqual({ name: `upload-${kind}.bin`, contentType: type, size: files[kind].byteLength, url: `/v1/resources/${res.body.id}/file` });
    const [row] = await svc.sql`select r.storage, r.content_type, octet_length(b.data) as size from resources r join resource_blobs b on b.resource_id = r.id where r.id = ${res.body.id}`;
    expect(row).toEqual({ storage: 'postgres', content_type: type, size: files[kind].byteLength });
  });

  test('the title defaults to the file name; a campaign limits who sees it', async () => {
    const res = await upload(svc, { file: { bytes: files.png, name: 'banner 728x90.png' }, campaignId: cmp });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'banner 728x90.png', campaignId: cmp });
  });

  test('SVG (script inside), unknown content and a lying name are a 415; nothing is stored', async () => {
    const before = await count();
    const svg = await upload(svc, { file: { bytes: files.svg, name: 'logo.svg', type: 'image/svg+xml' } });
    expect(svg.status).toBe(415);
    expect(svg.body.code).toBe('unsupported_media_type');
    expect(svg.body.message).toContain('SVG');
    const text = await upload(svc, { file: { bytes: files.text, name: 'banner.png', type: 'image/png' } });
    expect(text.status).toBe(415);
    expect(text.body.message).toContain('png, jpeg, gif, webp, pdf or zip');
    expect(await count()).toBe(before);
  });

  test('a file over 10 MiB is a 413; exactly 10 MiB is taken', async () => {
    const before = await count();
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(files.pdf);
    const refused = await upload(svc, { file: { bytes: big, name: 'big.pdf' } });
    expect(refused.status).toBe(413);
    expect(refused.body.code).toBe('payload_too_large');
    const huge = await upload(svc, { file: { bytes: new Uint8Array(12 * 1024 * 1024).fill(1), name: 'huge.pdf' } });
    expect(huge.status).toBe(413);
    expect(await count()).toBe(before);
    const exact = await upload(svc, { file: { bytes: big.subarray(0, 10 * 1024 * 1024), name: 'exact.pdf' } });
    expect(exact.status).toBe(201);
    expect(exact.body.file.size).toBe(10 * 1024 * 1024);
  }, 60_000);

  test('bad forms: no file, an empty file or title, an unknown campaign; nothing stored', async () => {
    const before = await count();
    const none = await upload(svc, { title: 'nothing' });
    expect(none.status).toBe(400);
    expect(none.body.details[0].field).toBe('file');
    const empty = await upload(svc, { file: { bytes: new Uint8Array(0), name: 'empty.png' } });
    expect(empty.status).toBe(400);
    const blank = await upload(svc, { file: { bytes: files.png, name: 'a.png' }, title: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.details[0]).toEqual({ field: 'title', message: 'must not be empty' });
    const unknown = await upload(svc, { file: { bytes: files.png, name: 'a.png' }, campaignId: 'cmp_00000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(await count()).toBe(before);
  });
});

describe('texts and links', () => {
  test('a text and a link; empty titles, missing bodies, bad urls and other types are refused', async () => {
    const text = await svc.api('POST', '/v1/resources', { body: { kind: 'text', title: 'Tweet', body: 'I use it daily: {{link}}', campaignId: cmp } });
    expect(text.status).toBe(201);
    expect(text.body).toMatchObject({ kind: 'text', title: 'Tweet', body: 'I use it daily: {{link}}', file: null, campaignId: cmp });
    const linkRes = await svc.api('POST', '/resources', { body: { kind: 'link', title: 'Press kit', url: 'https://shop.example/press' } });
    expect(linkRes.status).toBe(201);
    expect(linkRes.body).toMatchObject({ kind: 'link', url: 'https://shop.example/press', campaignId: null });

    const before = await count();
    const cases: [unknown, string][] = [
      [{ kind: 'text', title: '', body: 'x' }, 'title'],
      [{ kind: 'text', title: '  ', body: 'x' }, 'title'],
      [{ kind: 'text', title: 'No body' }, 'body'],
      [{ kind: 'link', title: 'Bad', url: 'javascript:alert(1)' }, 'url'],
      [{ kind: 'file', title: 'x' }, 'kind'],
      [{ title: 'x', body: 'y' }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.api('POST', '/v1/resources', { body });
      expect({ status: res.status, field: res.body.details?.[0]?.field }).toEqual({ status: 400, field });
    }
    const plain = await svc.api('POST', '/v1/resources', { raw: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    expect(await count()).toBe(before);
  });
});

describe('what partners see', () => {
  test('everyone\'s and their campaigns\' resources only, {{link}} filled with their own link', async () => {
    const own = await link(svc, ptn, cmp, 'ptn-own-link');
    const other = await partner(svc, [otherCmp]);
    const hidden = await svc.api('POST', '/v1/resources', { body: { kind: 'text', title: 'Other campaign', body: 'secret {{link}}', campaignId: otherCmp } });
    const mine = await svc.api('POST', '/v1/resources', { body: { kind: 'text', title: 'Mine', body: 'Try it: {{ link }} !', campaignId: cmp } });
    const key = await svc.partnerKey(ptn);
    const res = await svc.api('GET', '/v1/resources?limit=200', { key });
    expect(res.status).toBe(200);
    const ids = res.body.resources.map((r: { id: string }) => r.id);
    expect(ids).toContain(mine.body.id);
    expect(ids).not.toContain(hidden.body.id);
    expect(res.body.resources.every((r: { campaignId: string | null }) => r.campaignId === null || r.campaignId === cmp)).toBe(true);
    expect(res.body.resources.find((r: { id: string }) => r.id === mine.body.id).body).toBe(`Try it: ${own.url} !`);
    // the admin reads the template
    const admin = await svc.api('GET', `/v1/resources?campaignId=${cmp}&kind=text`);
    expect(admin.body.resources.find((r: { id: string }) => r.id === mine.body.id).body).toBe('Try it: {{ link }} !');
    // another partner's view: their campaign's text, without a link of their own yet
    const otherView = await svc.api('GET', '/v1/resources?kind=text', { key: await svc.partnerKey(other) });
    expect(otherView.body.resources.map((r: { id: string }) => r.id)).toContain(hidden.body.id);
    expect(otherView.body.resources.map((r: { id: string }) => r.id)).not.toContain(mine.body.id);
  });

  test('partner keys may not add or delete; scoped keys need campaigns:write', async () => {
    const key = await svc.partnerKey(ptn);
    const text = await svc.api('POST', '/v1/resources', { key, body: { kind: 'text', title: 'x', body: 'y' } });
    expect(text.status).toBe(403);
    expect((await upload(svc, { file: { bytes: files.png, name: 'a.png' } }, key)).status).toBe(403);
    const reader = await svc.scopedKey(['campaigns:read']);
    expect((await svc.api('POST', '/v1/resources', { key: reader, body: { kind: 'text', title: 'x', body: 'y' } })).status).toBe(403);
    expect((await svc.api('GET', '/v1/resources', { key: reader })).status).toBe(200);
    const writer = await svc.scopedKey(['campaigns:write']);
    expect((await svc.api('POST', '/v1/resources', { key: writer, body: { kind: 'text', title: 'x', body: 'y' } })).status).toBe(201);
    expect((await svc.api('GET', '/v1/resources', { key: null })).status).toBe(401);
  });
});

describe('downloads', () => {
  test('streamed with type, length, ETag and caching; If-None-Match is a 304', async () => {
    const created = await upload(svc, { file: { bytes: files.png, name: 'qr banner.png' }, campaignId: cmp });
    const res = await download(svc, created.body.file.url);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(files.png);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toStartWith('inline; filename="qr banner.png"');
    const etag = res.headers.get('etag')!;
    expect(etag).toBe(`"${new Bun.CryptoHasher('sha256').update(files.png).digest('hex')}"`);
    const again = await download(svc, created.body.file.url, svc.adminKey, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.byteLength).toBe(0);
    const pdf = await upload(svc, { file: { bytes: files.pdf, name: 'guide.pdf' } });
    expect((await download(svc, pdf.body.file.url)).headers.get('content-disposition')).toStartWith('attachment;');
  });

  test('a large file arrives whole, in order', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    big.set(files.pdf);
    const created = await upload(svc, { file: { bytes: big, name: 'big.pdf' } });
    const res = await download(svc, created.body.file.url);
    expect(res.bytes.byteLength).toBe(big.byteLength);
    expect(Bun.hash(res.bytes)).toBe(Bun.hash(big));
  });

  test('a partner downloads only files they may see; unknown is a 404', async () => {
    const hidden = await upload(svc, { file: { bytes: files.png, name: 'other.png' }, campaignId: otherCmp });
    const open = await upload(svc, { file: { bytes: files.png, name: 'all.png' } });
    const key = await svc.partnerKey(ptn);
    expect((await download(svc, hidden.body.file.url, key)).status).toBe(404);
    expect((await download(svc, open.body.file.url, key)).status).toBe(200);
    expect((await download(svc, '/v1/resources/rsc_00000000000000000000000000/file')).status).toBe(404);
  });
});

describe('deleting', () => {
  test('the row and its bytes go; a second delete is a 404', async () => {
    const created = await upload(svc, { file: { bytes: files.gif, name: 'a.gif' } });
    const res = await svc.api('DELETE', `/v1/resources/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(created.body.id);
    expect(await svc.sql`select 1 from resource_blobs where resource_id = ${created.body.id}`).toHaveLength(0);
    expect((await svc.api('DELETE', `/v1/resources/${created.body.id}`)).status).toBe(404);
    expect((await download(svc, created.body.file.url)).status).toBe(404);
    expect((await svc.api('DELETE', `/v1/resources/${created.body.id}`, { key: await svc.partnerKey(ptn) })).status).toBe(403);
  });
});
