import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { contrast } from '../../src/web/brand';
import { startService, type TestService } from '../support/service';
import { campaign, link, partner } from './helpers';

let svc: TestService;
let ptn: string;
let other: string;
let own: Awaited<ReturnType<typeof link>>;
let theirs: Awaited<ReturnType<typeof link>>;
beforeAll(async () => {
  svc = await startService();
  const cmp = await campaign(svc);
  ptn = await partner(svc, [cmp]);
  other = await partner(svc, [cmp]);
  own = await link(svc, ptn, cmp, 'qr-own');
  theirs = await link(svc, other, cmp, 'qr-theirs');
}, 60_000);
afterAll(() => svc.stop());

async function get(path: string, key: string | null = svc.adminKey) {
  const res = await fetch(`${svc.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** What a phone's camera would read from the PNG, and its width. */
function scan(bytes: Uint8Array): { text: string | undefined; width: number; pixel: [number, number, number] } {
  const png = PNG.sync.read(Buffer.from(bytes));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  // the first dark module's colour: the finder pattern's top-left corner, inside the quiet zone
  const dark = png.data.findIndex((v, i) => i % 4 === 0 && v < 200);
  return { text: code?.data, width: png.width, pixel: [png.data[dark]!, png.data[dark + 1]!, png.data[dark + 2]!] };
}

describe('QR codes of links', () => {
  test('PNG: the share URL, scannable, 256 px by default, any size from 128 to 1024', async () => {
    const res = await get(`/v1/links/${own.id}/qr.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="qr-own-qr.png"');
    expect(scan(res.bytes)).toMatchObject({ text: own.url, width: 256, pixel: [0, 0, 0] });
    for (const size of [128, 1024]) expect(scan((await get(`/links/${own.id}/qr.png?size=${size}`)).bytes)).toMatchObject({ text: own.url, width: size });
    const saved = await get(`/v1/links/${own.id}/qr.png?download=1`);
    expect(saved.headers.get('content-disposition')).toStartWith('attachment;');
  });

  test('SVG: sized, black by default', async () => {
    const res = await get(`/v1/links/${own.id}/qr.svg?size=512`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = new TextDecoder().decode(res.bytes);
    expect(svg).toStartWith('<svg');
    expect(svg).toContain('width="512" height="512"');
    expect(svg).toContain('stroke="#000000"');
    expect(svg).not.toContain('<script');
  });

  test.each(['127', '1025', '0', 'abc', '256.5', '-200'])('size=%s is a 400 naming size', async (size) => {
    const res = await svc.api('GET', `/v1/links/${own.id}/qr.svg?size=${encodeURIComponent(size)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_query', details: [{ field: 'size' }] });
  });

  test("color=brand: the program's colour, darkened until it still scans", async () => {
    await svc.api('PATCH', '/v1/settings', { body: { brandColor: '#0f766e' } });
    const svg = new TextDecoder().decode((await get(`/v1/links/${own.id}/qr.svg?color=brand`)).bytes);
    expect(svg).toContain('stroke="#0f766e"');
    await svc.api('PATCH', '/v1/settings', { body: { brandColor: '#ffd60a' } });
    const light = scan((await get(`/v1/links/${own.id}/qr.png?color=brand`)).bytes);
    expect(light.text).toBe(own.url);
    expect(light.pixel).not.toEqual([0, 0, 0]);
    expect(contrast(light.pixel, [255, 255, 255])).toBeGreaterThanOrEqual(4.5);
    const bad = await svc.api('GET', `/v1/links/${own.id}/qr.png?color=red`);
    expect(bad.status).toBe(400);
  });

  test("a partner gets their own links' codes only; unknown links are a 404", async () => {
    const key = await svc.partnerKey(ptn);
    expect((await get(`/v1/links/${own.id}/qr.png`, key)).status).toBe(200);
    const refused = await svc.api('GET', `/v1/links/${theirs.id}/qr.svg`, { key });
    expect(refused.status).toBe(403);
    expect((await svc.api('GET', '/v1/links/lnk_00000000000000000000000000/qr.png')).status).toBe(404);
    expect((await svc.api('GET', `/v1/links/${own.id}/qr.png`, { key: null })).status).toBe(401);
    expect((await svc.api('GET', `/v1/links/${own.id}/qr.png`, { key: await svc.scopedKey(['campaigns:read']) })).status).toBe(403);
  });
});
