// Resource files in S3-compatible storage (AWS S3, Cloudflare R2, MinIO, Backblaze B2…) through
// Bun's built-in S3 client, when S3_URL is set: `https://KEY:SECRET@host[:port]/bucket[/prefix]`,
// with `?region=` when the service needs one (default us-east-1). Without KEY:SECRET in the URL,
// Bun reads S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY (or the AWS_ names) from the environment.
import { S3Client } from 'bun';
import { AppError } from '../../src/lib/errors';
import type { ResourceStore } from '../storage';

/** A failure of the storage service is the upstream's, not ours: a 502 saying what it answered. */
async function upstream<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const reason = error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error);
    throw new AppError('bad_gateway', `S3 storage could not ${what} (${reason.slice(0, 200)})`);
  }
}

export type S3Location = { endpoint: string; bucket: string; prefix: string; region: string; accessKeyId?: string; secretAccessKey?: string; virtualHostedStyle: boolean };

/** Reads S3_URL; throws a message naming what is wrong (config.ts reports it as S3_URL's problem). */
export function parseS3Url(value: string): S3Location {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must start with http:// or https://');
  const [bucket, ...rest] = url.pathname.split('/').filter(Boolean);
  if (!bucket) throw new Error('names no bucket (https://KEY:SECRET@host/bucket)');
  return {
    endpoint: `${url.protocol}//${url.host}`,
    bucket: decodeURIComponent(bucket),
    prefix: rest.map(decodeURIComponent).join('/'),
    region: url.searchParams.get('region') ?? 'us-east-1',
    accessKeyId: url.username ? decodeURIComponent(url.username) : undefined,
    secretAccessKey: url.password ? decodeURIComponent(url.password) : undefined,
    virtualHostedStyle: url.searchParams.get('style') === 'virtual',
  };
}

export function s3Store(location: S3Location): ResourceStore {
  const client = new S3Client({
    endpoint: location.endpoint,
    bucket: location.bucket,
    region: location.region,
    virtualHostedStyle: location.virtualHostedStyle,
    ...(location.accessKeyId ? { accessKeyId: location.accessKeyId, secretAccessKey: location.secretAccessKey ?? '' } : {}),
  });
  const path = (key: string) => (location.prefix ? `${location.prefix}/${key}` : key);
  return {
    kind: 's3',
    async put(_tx, key, bytes, contentType) {
      await upstream('store the file', () => client.write(path(key), bytes, { type: contentType }));
    },
    async open(key) {
      const file = client.file(path(key));
      if (!(await upstream('read the file', () => file.exists()))) return null;
      return file.stream();
    },
    async remove(key) {
      await upstream('delete the file', () => client.delete(path(key)));
    },
  };
}
