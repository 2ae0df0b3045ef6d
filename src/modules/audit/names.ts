// Readable names for the audit log's actors and objects: a partner's name, a key's name, a campaign's
// name, "Commission of Ann Archer", for the admin page, the object pages' history and the CSV. One
// query per kind of object on the page, never one per entry.
import type { Sql } from '../../db';
import type { AuditEntry } from './list';

/** `type:id` -> a readable name; an object that no longer exists (or has no name) is absent. */
export type AuditNames = Map<string, string>;

export const nameKey = (type: string, id: string) => `${type}:${id}`;

/** The kinds of object whose name is looked up, and where (the SQL answers `id, name`). */
const LOOKUPS: Record<string, (sql: Sql, ids: string[]) => Promise<{ id: string; name: string }[]>> = {
  partner: (sql, ids) => sql`select id, name from partners where id = any(${ids})`,
  api_key: (sql, ids) => sql`select id, name from api_keys where id = any(${ids})`,
  campaign: (sql, ids) => sql`select id, name from campaigns where id = any(${ids})`,
  group: (sql, ids) => sql`select id, name from partner_groups where id = any(${ids})`,
  webhook_endpoint: (sql, ids) => sql`select id, coalesce(nullif(label, ''), url) as name from webhook_endpoints where id = any(${ids})`,
  code: (sql, ids) => sql`select id, code as name from promotion_codes where id = any(${ids})`,
  resource: (sql, ids) => sql`select id, title as name from resources where id = any(${ids})`,
  link: (sql, ids) => sql`select id, slug as name from links where id = any(${ids})`,
  payout: (sql, ids) => sql`select o.id, 'Payout to ' || p.name as name from payouts o join partners p on p.id = o.partner_id where o.id = any(${ids})`,
  commission: (sql, ids) =>
    sql`select c.id, 'Commission of ' || p.name as name from commissions c join partners p on p.id = c.partner_id where c.id = any(${ids})`,
};

/** The names of the entries' actors (partners, keys) and objects. */
export async function auditNames(sql: Sql, entries: readonly AuditEntry[]): Promise<AuditNames> {
  const wanted = new Map<string, Set<string>>();
  const want = (type: string, id: string) => {
    if (!LOOKUPS[type]) return;
    if (!wanted.has(type)) wanted.set(type, new Set());
    wanted.get(type)!.add(id);
  };
  for (const e of entries) {
    if (e.actor.type === 'partner') want('partner', e.actor.id);
    if (e.actor.type === 'key') want('api_key', e.actor.id);
    want(e.target.type, e.target.id);
  }
  const names: AuditNames = new Map();
  await Promise.all(
    [...wanted].map(async ([type, ids]) => {
      for (const row of await LOOKUPS[type]!(sql, [...ids])) names.set(nameKey(type, row.id), row.name);
    }),
  );
  return names;
}

/** Who made a change, in words: an admin's email, a key's or partner's name (its id when gone), a job's or provider's name. */
export function actorName(actor: AuditEntry['actor'], names: AuditNames): string {
  if (actor.type === 'admin') return actor.email ?? actor.id;
  if (actor.type === 'partner') return names.get(nameKey('partner', actor.id)) ?? actor.id;
  if (actor.type === 'key') return names.get(nameKey('api_key', actor.id)) ?? actor.id;
  return actor.id;
}
