// API keys: random, shown once, stored as SHA-256 hashes.
import { inTransaction, type Sql, type Transaction, type Tx } from '../../db';
import { changesOf, record as audit } from '../audit/service';
import { randomToken, safeEqual, sha256 } from '../../lib/crypto';
import { AppError, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import { ApiKeyRecord as ApiKeyRecordSchema } from './model';
import { KEY_PREFIX, type KeyKind, type Principal, type Scope } from './scopes';

export type ApiKeyRecord = typeof ApiKeyRecordSchema.static;

/** The columns a key record is read from (never the hash). */
type KeyRow = {
  id: string;
  name: string;
  kind: KeyKind;
  scopes: Scope[];
  partner_id: string | null;
  key_hint: string;
  created_at: Date;
  revoked_at: Date | null;
};

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    scopes: row.scopes,
    partnerId: row.partner_id,
    hint: row.key_hint,
    createdAt: iso(row.created_at)!,
    revokedAt: iso(row.revoked_at),
  };
}

export function generateKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomToken(32);
}

/** A scoped key needs at least one scope; a publishable key carries none. */
export function throwIfBadScopes(kind: 'scoped' | 'publishable', scopes: Scope[] | undefined): void {
  if (kind === 'scoped' && (!scopes || scopes.length === 0)) {
    throw new AppError('invalid_body', 'scopes: a scoped key needs at least one scope', [
      { field: 'scopes', message: 'a scoped key needs at least one scope' },
    ]);
  }
  if (kind === 'publishable' && scopes && scopes.length > 0) {
    throw new AppError('invalid_body', 'scopes: publishable keys carry no scopes', [{ field: 'scopes', message: 'publishable keys carry no scopes' }]);
  }
}

/** Creates a key; answers the record and the plaintext key, which is never available again. */
export async function createApiKey(
  sql: Tx,
  input: { name: string; kind: KeyKind; scopes?: Scope[]; partnerId?: string; source?: 'api' | 'env' | 'bootstrap'; key?: string },
): Promise<ApiKeyRecord & { key: string }> {
  const key = input.key ?? generateKey(input.kind);
  const scopes = input.kind === 'scoped' ? [...new Set(input.scopes ?? [])].sort() : [];
  return inTransaction(sql, async (tx) => {
    const [row] = await tx<KeyRow[]>`
      insert into api_keys (id, name, kind, scopes, partner_id, key_hash, key_hint, source)
      values (${newId('apiKey')}, ${input.name}, ${input.kind}, ${scopes}, ${input.partnerId ?? null},
              ${sha256(key)}, ${key.slice(0, KEY_PREFIX[input.kind].length + 4) + '…' + key.slice(-4)}, ${input.source ?? 'api'})
      returning id, name, kind, scopes, partner_id, key_hint, created_at, revoked_at`;
    const record = toRecord(row!);
    // the key itself and its hash never enter the log
    await audit(tx, { action: 'api_key.created', target: { type: 'api_key', id: record.id }, changes: changesOf(null, record, ['name', 'kind', 'scopes', 'partnerId']) });
    return { ...record, key };
  });
}

export async function listApiKeys(
  sql: Sql,
  page: { limit: number; cursor?: string; partnerId?: string },
): Promise<ApiKeyRecord[]> {
  const rows = await sql<KeyRow[]>`
    select id, name, kind, scopes, partner_id, key_hint, created_at, revoked_at from api_keys
    where revoked_at is null and kind <> 'admin'
      ${page.partnerId ? sql`and partner_id = ${page.partnerId}` : sql``}
      ${page.cursor ? sql`and id < ${page.cursor}` : sql``}
    order by id desc
    limit ${page.limit + 1}`;
  return rows.map(toRecord);
}

export async function revokeApiKey(sql: Sql, id: string): Promise<ApiKeyRecord> {
  return sql.begin(async (tx) => {
    const [was] = await tx<{ revoked_at: Date | null }[]>`select revoked_at from api_keys where id = ${id} and kind <> 'admin' for update`;
    const [row] = await tx<KeyRow[]>`
      update api_keys set revoked_at = coalesce(revoked_at, now())
      where id = ${id} and kind <> 'admin'
      returning id, name, kind, scopes, partner_id, key_hint, created_at, revoked_at`;
    if (!row) throw notFound('api key');
    if (was && !was.revoked_at) await audit(tx, { action: 'api_key.revoked', target: { type: 'api_key', id }, changes: { revokedAt: [null, row.revoked_at] } });
    return toRecord(row);
  });
}

export async function revokePartnerKeys(tx: Transaction, partnerId: string): Promise<number> {
  const rows = await tx<{ id: string; revoked_at: Date }[]>`
    update api_keys set revoked_at = now()
    where partner_id = ${partnerId} and revoked_at is null
    returning id, revoked_at`;
  for (const row of rows) await audit(tx, { action: 'api_key.revoked', target: { type: 'api_key', id: row.id }, changes: { revokedAt: [null, row.revoked_at] } });
  return rows.length;
}

/** Resolves a presented key to its principal; null when unknown or revoked. */
export async function principalForKey(sql: Sql, key: string): Promise<Principal | null> {
  // Looked up by digest, so the index never compares the secret itself; the final check is
  // constant-time as well.
  const hash = sha256(key);
  const [row] = await sql<{ id: string; kind: KeyKind; scopes: Scope[]; partner_id: string | null; key_hash: string }[]>`
    select id, kind, scopes, partner_id, key_hash from api_keys
    where key_hash = ${hash} and revoked_at is null`;
  if (!row || !safeEqual(row.key_hash, hash)) return null;
  switch (row.kind) {
    case 'admin':
      return { kind: 'admin', keyId: row.id, email: null };
    case 'scoped':
      return { kind: 'scoped', keyId: row.id, scopes: row.scopes };
    case 'partner': // the table's check: a partner key always names its partner
      return { kind: 'partner', partnerId: row.partner_id!, keyId: row.id };
    case 'publishable':
      return { kind: 'publishable', keyId: row.id };
  }
}

/**
 * Makes sure an admin key exists. ADMIN_API_KEY set: that key is the (only) environment admin key.
 * Unset and no admin key yet: one is generated and answered, so the caller prints it once.
 */
export async function bootstrapAdminKey(sql: Sql, envKey: string | undefined): Promise<string | null> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${0x6b657973})`;
    if (envKey) {
      const hash = sha256(envKey);
      // the environment key replaces every other key the service made for itself (rotation path)
      await tx`
        update api_keys set revoked_at = now()
        where kind = 'admin' and source in ('env', 'bootstrap') and key_hash <> ${hash} and revoked_at is null`;
      const [existing] = await tx<{ id: string }[]>`select id from api_keys where key_hash = ${hash}`;
      if (existing) await tx`update api_keys set revoked_at = null where id = ${existing.id}`;
      else await createApiKey(tx, { name: 'ADMIN_API_KEY', kind: 'admin', source: 'env', key: envKey });
      return null;
    }
    const [any] = await tx<{ id: string }[]>`select id from api_keys where kind = 'admin' and revoked_at is null limit 1`;
    if (any) return null;
    const created = await createApiKey(tx, { name: 'generated at first boot', kind: 'admin', source: 'bootstrap' });
    return created.key;
  });
}
