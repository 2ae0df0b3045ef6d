// Resource files in S3-compatible storage (S3_URL), against a real S3 server: s3rver, the npm
// package (an S3 API implementation on the local file system), started here on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from 'bun';
import S3rver from 's3rver';
import { startService, type TestService } from '../support/service';
import { newId } from '../../src/lib/ids';
import { download, samples, upload } from './fixtures';

let s3: S3rver;
let dir: string;
let bucket: S3Client;
let svc: TestService;
let broken: TestService;
let files: Awaited<ReturnType<typeof samples>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'partnerd-s3-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'partner-files', configs: [] }] });
  const { port } = await s3.run();
  const endpoint = `http://127.0.0.1:${port}`;
  bucket = new S3Client({ endpoint, bucket: 'partner-files', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1' });
  svc = await startService({ S3_URL: `http://S3RVER:S3RVER@127.0.0.1:${port}/partner-files/assets` });
  broken = await startService({ S3_URL: `http://S3RVER:S3RVER@127.0.0.1:${port}/no-such-bucket` });
  files = await samples();
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await broken?.stop();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('S3_URL set', () => {
  test('an upload goes to the bucket under the prefix, not to PostgreSQL; downloads stream it back with its ETag', async () => {
    const created = await upload(svc, { file: { bytes: files.webp, name: 'hero.webp' } });
    expect(created.status).toBe(201);
    const [row] = await svc.sql`select storage, storage_key from resources where id = ${created.body.id}`;
    expect(row).toEqual({ storage: 's3', storage_key: `resources/${created.body.id}` });
    expect(await svc.sql`select 1 from resource_blobs where resource_id = ${created.body.id}`).toHaveLength(0);
    const object = bucket.file(`assets/resources/${created.body.id}`);
    expect(new Uint8Array(await object.arrayBuffer())).toEqual(files.webp);
    expect((await object.stat()).type).toBe('image/webp');

    const res = await download(svc, created.body.file.url);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(files.webp);
    expect(res.headers.get('content-type')).toBe('image/webp');
    const etag = res.headers.get('etag')!;
    expect((await download(svc, created.body.file.url, svc.adminKey, { 'if-none-match': etag })).status).toBe(304);
  });

  test('deleting removes the object from the bucket', async () => {
    const created = await upload(svc, { file: { bytes: files.zip, name: 'kit.zip' } });
    const object = bucket.file(`assets/resources/${created.body.id}`);
    expect(await object.exists()).toBe(true);
    expect((await svc.api('DELETE', `/v1/resources/${created.body.id}`)).status).toBe(200);
    expect(await object.exists()).toBe(false);
  });

  test('files kept in PostgreSQL before S3_URL was set stay readable', async () => {
    const id = newId('resource');
    const sha = new Bun.CryptoHasher('sha256').update(files.png).digest('hex');
    await svc.sql`
      insert into resources (id, kind, title, file_name, content_type, size_bytes, sha256, storage, storage_key)
      values (${id}, 'file', 'Old', 'old.png', 'image/png', ${files.png.byteLength}, ${sha}, 'postgres', ${id})`;
    await svc.sql`insert into resource_blobs (resource_id, data) values (${id}, ${Buffer.from(files.png)})`;
    const res = await download(svc, `/v1/resources/${id}/file`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(files.png);
  });

  test('a bucket that refuses the file is a 502 and stores no row', async () => {
    const res = await upload(broken, { file: { bytes: files.png, name: 'a.png' } });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('bad_gateway');
    expect(res.body.message).toContain('S3 storage could not store the file');
    expect(await broken.sql`select id from resources`).toHaveLength(0);
  });
});
