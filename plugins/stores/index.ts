// The resource stores this installation uses: new files go to S3-compatible storage when S3_URL is
// set, else to PostgreSQL; files already in PostgreSQL stay readable either way.
import type { Sql } from '../../src/db';
import type { ResourceStores } from '../storage';
import { postgresStore } from './postgres';
import { parseS3Url, s3Store } from './s3';

export { parseS3Url };

export function createResourceStores(input: { s3Url: string | undefined; sql: Sql }): ResourceStores {
  const postgres = postgresStore(input.sql);
  const s3 = input.s3Url ? s3Store(parseS3Url(input.s3Url)) : null;
  return { write: s3 ?? postgres, of: (kind) => (kind === 's3' ? s3 : postgres) };
}
