// Rows for lifecycle and payout tests, written straight into the database: partners, campaigns, and
// commissions with the event and attribution they hang off, in any status and of any age.
import type { Sql } from '../../src/db';
import { newId } from '../../src/lib/ids';

export async function insertPartner(sql: Sql, input: { name?: string; email?: string; revoked?: boolean } = {}): Promise<string> {
  const id = newId('partner');
  const email = input.email ?? `${id}@example.com`;
  await sql`
    insert into partners (id, email, name, activated_at, revoked_at, revoke_reason)
    values (${id}, ${email}, ${input.name ?? `Partner ${id.slice(-6)}`}, now(),
            ${input.revoked ? new Date() : null}, ${input.revoked ? 'fraud' : null})`;
  return id;
}

export async function insertCampaign(sql: Sql, input: { currency?: string; holdbackDays?: number | null } = {}): Promise<string> {
  const id = newId('campaign');
  await sql`
    insert into campaigns (id, name, destination_url, currency, holdback_days)
    values (${id}, ${`Campaign ${id.slice(-6)}`}, 'https://example.com/', ${input.currency ?? 'USD'}, ${input.holdbackDays ?? null})`;
  return id;
}

export type CommissionInput = {
  partnerId: string;
  campaignId: string;
  /** Minor units. */
  amount: number | bigint;
  currency?: string;
  status?: 'accrued' | 'approved' | 'paid' | 'reversed';
  holdbackDays?: number;
  /** How long ago it accrued. */
  ageDays?: number;
  payoutId?: string | null;
};

/** One commission with its event and attribution; answers its id. */
export async function insertCommission(sql: Sql, input: CommissionInput): Promise<string> {
  // created_at is the time in the id: an older commission is one with an id minted back then
  const at = input.ageDays ? Date.now() - input.ageDays * 86_400_000 : undefined;
  const eventId = newId('event', at);
  const attributionId = newId('attribution', at);
  const id = newId('commission', at);
  const currency = input.currency ?? 'USD';
  const status = input.status ?? 'accrued';
  const age = `${input.ageDays ?? 0} days`;
  const userId = `user_${id.slice(-8)}`;
  await sql.begin(async (tx) => {
    await tx`
      insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
      values (${eventId}, ${userId}, 'invoice_paid', ${BigInt(input.amount) * 10n}, ${currency}, now() - ${age}::interval, 'attributed', 'last_click')`;
    await tx`
      insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
      values (${attributionId}, ${eventId}, ${userId}, ${newId('click')}, ${input.partnerId}, ${input.campaignId}, 'last_click', 1)`;
    await tx`
      insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency,
                               event_type, event_value, status, holdback_days, approved_at, paid_at, payout_id)
      values (${id}, ${attributionId}, ${eventId}, ${input.partnerId}, ${input.campaignId}, ${userId}, ${BigInt(input.amount)},
              ${currency}, 'invoice_paid', ${BigInt(input.amount) * 10n}, ${status}, ${input.holdbackDays ?? 30},
              ${status === 'approved' || status === 'paid' ? new Date() : null}, ${status === 'paid' ? new Date() : null},
              ${input.payoutId ?? null})`;
  });
  return id;
}

export async function commissionRow(sql: Sql, id: string) {
  const [row] = await sql`select * from commissions where id = ${id}`;
  return row!;
}

export async function transitionsOf(sql: Sql, id: string): Promise<Record<string, unknown>[]> {
  const rows = await sql`select from_status, to_status, actor, reason from commission_transitions where commission_id = ${id} order by id`;
  return rows.map((r) => ({ ...r }));
}

export async function clawbacksOf(sql: Sql, commissionId: string): Promise<Record<string, unknown>[]> {
  const rows = await sql`select partner_id, currency, amount, reason, status, payout_id from clawbacks where commission_id = ${commissionId}`;
  return rows.map((r) => ({ ...r }));
}

/** Envelopes of a type about one commission (data.commissionId), oldest first. */
export async function eventsFor(sql: Sql, type: string, commissionId: string) {
  const rows = await sql`
    select id, type, data from webhook_events where type = ${type} and data->>'commissionId' = ${commissionId} order by id`;
  return rows.map((r) => ({ id: r.id as string, type: r.type as string, data: r.data as Record<string, unknown> }));
}

/**
 * Many approved commissions at once, set-based (for the replica test and bench/payouts): `partners`
 * partners, `perPartner` commissions each, in `currency`, amounts 1.00-9.99, accrued 40 days ago.
 * Answers the tag in the ids and emails of this batch.
 */
export async function seedApprovedCommissions(
  sql: Sql,
  input: { partners: number; perPartner: number; currency?: string },
): Promise<{ tag: string; commissions: number }> {
  const tag = newId('partner').slice(-6);
  const currency = input.currency ?? 'USD';
  const total = input.partners * input.perPartner;
  // `<prefix>_<10 time chars><tag><10 hex digits of n>`: the time chars date the row (its created_at)
  const now = newId('partner').slice(4, 14);
  const accrued = newId('commission', Date.now() - 40 * 86_400_000).slice(4, 14);
  const id = (prefix: string, n: string, time = now) => sql`${`${prefix}_${time}${tag}`} || lpad(to_hex(${sql.unsafe(n)}), 10, '0')`;
  const campaignId = newId('campaign');
  await sql`insert into campaigns (id, name, destination_url, currency) values (${campaignId}, 'Bulk', 'https://example.com/', ${currency})`;
  await sql`
    insert into partners (id, email, name, activated_at)
    select ${id('ptn', 'i')}, ${tag} || '-' || i || '@example.com', 'Partner ' || i, now()
    from generate_series(1, ${input.partners}) i`;
  await sql`
    insert into events (id, user_id, type, amount, currency, occurred_at, attribution_status, attribution_model)
    select ${id('evt', 'n')}, 'u' || n, 'invoice_paid', 10000, ${currency}, now(), 'attributed', 'last_click'
    from generate_series(1, ${total}) n`;
  await sql`
    insert into attributions (id, event_id, user_id, click_id, partner_id, campaign_id, model, weight)
    select ${id('att', 'n')}, ${id('evt', 'n')}, 'u' || n, ${id('clk', 'n')},
           ${id('ptn', `((n - 1) % ${input.partners}) + 1`)}, ${campaignId}, 'last_click', 1
    from generate_series(1, ${total}) n`;
  await sql`
    insert into commissions (id, attribution_id, event_id, partner_id, campaign_id, user_id, amount, currency,
                             event_type, event_value, status, holdback_days, approved_at)
    select ${id('com', 'n', accrued)}, ${id('att', 'n')}, ${id('evt', 'n')}, ${id('ptn', `((n - 1) % ${input.partners}) + 1`)},
           ${campaignId}, 'u' || n, 100 + n % 900, ${currency}, 'invoice_paid', 10000, 'approved', 30, now()
    from generate_series(1, ${total}) n`;
  return { tag, commissions: total };
}
