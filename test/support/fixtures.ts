// Rows the event pipeline reads, written straight into a test service's database: partners,
// campaigns, links, clicks, identities, settings and commission snapshots.
import type { Sql } from '../../src/db';
import { newId } from '../../src/lib/ids';
import type { CommissionSnapshot, Rule } from '../../src/modules/campaigns/rules';

let counter = 0;
const DAY = 86_400_000;

export const daysAgo = (days: number, from = Date.now()) => new Date(from - days * DAY);

export async function partner(sql: Sql, options: { revoked?: boolean; name?: string } = {}): Promise<string> {
  const id = newId('partner');
  counter++;
  await sql`
    insert into partners (id, email, name, activated_at, revoked_at)
    values (${id}, ${`p${counter}-${id.slice(-6)}@example.com`}, ${options.name ?? `Partner ${counter}`}, now(),
            ${options.revoked ? new Date() : null})`;
  return id;
}

export async function revoke(sql: Sql, partnerId: string): Promise<void> {
  await sql`update partners set revoked_at = now() where id = ${partnerId}`;
}

export async function campaign(
  sql: Sql,
  options: { rules?: Rule[]; currency?: string; holdbackDays?: number | null } = {},
): Promise<string> {
  const id = newId('campaign');
  await sql`
    insert into campaigns (id, name, destination_url, currency, holdback_days, rules)
    values (${id}, 'Campaign', 'https://shop.example.com/', ${options.currency ?? 'USD'}, ${options.holdbackDays ?? null},
            ${sql.json((options.rules ?? []) as never)})`;
  return id;
}

export async function link(sql: Sql, partnerId: string, campaignId: string): Promise<string> {
  const id = newId('link');
  await sql`insert into links (id, slug, partner_id, campaign_id) values (${id}, ${id.slice(4)}, ${partnerId}, ${campaignId})`;
  return id;
}

/** A click through a partner's link (one link per partner and campaign, made on first use). */
export async function click(sql: Sql, options: { partnerId: string; campaignId: string; at?: Date }): Promise<string> {
  const [existing] = await sql`select id from links where partner_id = ${options.partnerId} and campaign_id = ${options.campaignId} limit 1`;
  const linkId = existing?.id ?? (await link(sql, options.partnerId, options.campaignId));
  // a click's created_at is the time in its id
  const id = newId('click', options.at);
  await sql`
    insert into clicks (id, link_id, partner_id, campaign_id, ip_hash, user_agent, referrer)
    values (${id}, ${linkId}, ${options.partnerId}, ${options.campaignId}, 'iphash', 'test-agent', null)`;
  return id;
}

/** What the identify call records: the user id, and the clicks it arrived through (maybe none). */
export async function identify(sql: Sql, userId: string, clickIds: string[] = []): Promise<void> {
  await sql`insert into identities (user_id) values (${userId}) on conflict (user_id) do nothing`;
  for (const clickId of clickIds) {
    await sql`insert into identity_clicks (user_id, click_id) values (${userId}, ${clickId}) on conflict do nothing`;
  }
}

export async function settings(sql: Sql, options: { model?: 'last_click' | 'linear' | 'position'; windowDays?: number }): Promise<void> {
  await sql`
    update settings set
      attribution_model = coalesce(${options.model ?? null}, attribution_model),
      attribution_window_days = coalesce(${options.windowDays ?? null}::int, attribution_window_days)`;
}

export async function commissionSnapshot(sql: Sql, partnerId: string, snapshot: CommissionSnapshot): Promise<void> {
  await sql`
    insert into partner_commission_snapshots (partner_id, snapshot) values (${partnerId}, ${sql.json(snapshot as never)})
    on conflict (partner_id) do update set snapshot = excluded.snapshot`;
}

export function userId(label = 'user'): string {
  counter++;
  return `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A user who clicked the given partners' links (in that order, a minute apart, the last one a minute ago) and was identified. */
export async function referredUser(
  sql: Sql,
  touches: { partnerId: string; campaignId: string; at?: Date }[],
): Promise<{ userId: string; clickIds: string[] }> {
  const user = userId();
  const clickIds: string[] = [];
  const base = Date.now() - touches.length * 60_000;
  for (const [i, t] of touches.entries()) {
    clickIds.push(await click(sql, { ...t, at: t.at ?? new Date(base + i * 60_000) }));
  }
  await identify(sql, user, clickIds);
  return { userId: user, clickIds };
}
