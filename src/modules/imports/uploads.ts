// The admin import page's checked export (migration 0059): after a dry run the uploaded files wait
// under a random token bound to the admin's session, so the confirm form posts only the token (it
// works without JavaScript; nothing is chosen again). One waiting upload per session, at most the
// upload limit in size (it came in one request), an hour to live, removed once imported; expired
// uploads are swept whenever one is stored or taken.
import type { Tx } from '../../db';
import { randomToken, sha256 } from '../../lib/crypto';
import type { ImportSource } from './rows';

/** How long a checked upload waits for its confirm. */
export const UPLOAD_TTL_MS = 60 * 60 * 1000;

export type WaitingUpload = { source: ImportSource; files: Map<string, Uint8Array> };

const sweep = (sql: Tx) => sql`delete from import_uploads where expires_at < now()`;

/** Keeps `files` for the session (replacing its earlier waiting upload) and answers the token the confirm posts. */
export async function keepUpload(sql: Tx, sessionToken: string, source: ImportSource, files: Map<string, Uint8Array>): Promise<string> {
  const token = randomToken();
  const session = sha256(sessionToken);
  const expires = new Date(Date.now() + UPLOAD_TTL_MS);
  await sweep(sql);
  await sql`delete from import_uploads where session_hash = ${session}`;
  for (const [name, body] of files) {
    await sql`
      insert into import_uploads (token_hash, session_hash, source, name, body, expires_at)
      values (${sha256(token)}, ${session}, ${source}, ${name}, ${body}, ${expires})`;
  }
  return token;
}

/** The session's waiting upload under `token`, or null (unknown, another session's, or expired). */
export async function waitingUpload(sql: Tx, sessionToken: string, token: string): Promise<WaitingUpload | null> {
  const rows = await sql<{ source: ImportSource; name: string; body: Uint8Array }[]>`
    select source, name, body from import_uploads
    where token_hash = ${sha256(token)} and session_hash = ${sha256(sessionToken)} and expires_at >= now()`;
  if (rows.length === 0) return null;
  return { source: rows[0]!.source, files: new Map(rows.map((r) => [r.name, r.body])) };
}

/** Removes the upload under `token` (it was imported) and every expired one. */
export async function dropUpload(sql: Tx, token: string): Promise<void> {
  await sql`delete from import_uploads where token_hash = ${sha256(token)}`;
  await sweep(sql);
}
