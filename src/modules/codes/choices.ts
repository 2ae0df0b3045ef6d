// What the admin codes sections read besides the codes: the names of the codes' partners, and the
// choices of a create form (a partner's live campaigns, or a campaign's partners not revoked).
import type { Sql } from '../../db';

export type Choice = { value: string; label: string };

/** Each partner's name by id. */
export async function partnerNames(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; name: string }[]>`select id, name from partners where id = any(${[...new Set(ids)]})`;
  return new Map(rows.map((p) => [p.id, p.name]));
}

/** The live campaigns a partner holds, or the partners (not revoked) holding a campaign; at most 500. */
export async function codeChoices(sql: Sql, filter: { partnerId: string } | { campaignId: string }): Promise<Choice[]> {
  const rows =
    'partnerId' in filter
      ? await sql<Choice[]>`
          select c.id as value, c.name as label from campaigns c join partner_campaigns pc on pc.campaign_id = c.id
          where pc.partner_id = ${filter.partnerId} and c.archived_at is null order by c.name, c.id limit 500`
      : await sql<Choice[]>`
          select p.id as value, p.name || ' (' || p.email || ')' as label from partners p join partner_campaigns pc on pc.partner_id = p.id
          where pc.campaign_id = ${filter.campaignId} and partner_status(p) <> 'revoked' order by p.name, p.id limit 500`;
  return [...rows];
}
