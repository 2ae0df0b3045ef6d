// Campaign rows for tests that only need campaigns to exist.
import type { Sql } from '../../src/db';
import { newId } from '../../src/lib/ids';

export async function insertCampaign(sql: Sql, fields: { name?: string; archived?: boolean } = {}): Promise<string> {
  const id = newId('campaign');
  await sql`
    insert into campaigns (id, name, destination_url, currency, archived_at)
    values (${id}, ${fields.name ?? 'Campaign'}, 'https://example.com/', 'USD', ${fields.archived ? new Date() : null})`;
  return id;
}
