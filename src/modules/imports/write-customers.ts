// Imported referrals -> customers already attributed to their partner: a sticky referral (the one
// every later event of the user reuses, attribution step 1), and the Stripe customer id remembered
// (billing_customers), so the provider's next invoice for that customer credits the partner.
import type { Tx } from '../../db';
import { newId } from '../../lib/ids';
import { fraction } from '../../lib/money';
import { recordReferrals } from '../attribution/service';
import { saveRefs } from './refs';
import { timed } from './timing';
import type { ImportedCustomer } from './rows';
import type { ImportTarget, Lined } from './write-partners';

/**
 * Writes one batch of customers; `customers` (source id -> user id) gains every row it placed. An
 * imported customer's touch names its partner's imported share link (`links`: partner id -> link id,
 * importedLinks), the link its old token became, so its sales count on that link as a click on it
 * would have made them.
 */
export async function writeCustomers(
  sql: Tx,
  target: ImportTarget & { partnersFile: string },
  batch: Lined<ImportedCustomer>[],
  maps: { partners: Map<string, string>; customers: Map<string, string>; links: Map<string, string>; firstSales: Map<string, number> },
): Promise<void> {
  const { partners, customers, links } = maps;
  const { source, report, file } = target;
  const fresh: (Lined<ImportedCustomer> & { partnerId: string })[] = [];
  for (const item of batch) {
    const partnerId = partners.get(item.row.partnerSourceId);
    if (customers.has(item.row.sourceId)) report.skipped++;
    else if (partnerId === undefined) report.problem(file, item.line, `partner ${item.row.partnerSourceId} is not in ${target.partnersFile}`);
    else fresh.push({ ...item, partnerId });
  }
  if (fresh.length === 0) return;
  const users = [...new Set(fresh.map((f) => f.row.userId))];
  const held = await timed(target.times, 'sql: referrals of batch users', sql<{ user_id: string; partner_id: string }[]>`
    select r.user_id, t.partner_id from referrals r join referral_touches t on t.user_id = r.user_id and t.position = 0
    where r.user_id = any(${users}::text[])`);
  const referredBy = new Map(held.map((h) => [h.user_id, h.partner_id]));
  const referrals: Parameters<typeof recordReferrals>[1] = [];
  const billing: { customer_id: string; user_id: string }[] = [];
  const placed: [string, string][] = [];
  for (const { row, line, partnerId } of fresh) {
    const holder = referredBy.get(row.userId);
    if (holder !== undefined && holder !== partnerId) {
      report.problem(file, line, `customer ${row.userId} is already credited to another partner; that attribution is kept`);
    } else if (holder === undefined) {
      // the referral starts at the customer's first imported sale, which is so its conversion (as a
      // referral started by a sale here); a customer without one starts when it was created there
      const firstSale = maps.firstSales.get(row.sourceId);
      const startedAt = firstSale !== undefined ? new Date(firstSale) : (row.createdAt ?? new Date());
      referredBy.set(row.userId, partnerId);
      // no click moved with the customer: the touch names a click id minted at the referral's time
      const touch = {
        position: 0, clickId: newId('click', startedAt), codeId: null, couponCode: null, partnerId, campaignId: target.campaignId, weight: fraction(1, 1),
        linkId: links.get(partnerId) ?? null,
      };
      referrals.push({ userId: row.userId, model: 'last_click', startedAt, touches: [touch] });
      if (row.stripeCustomerId !== null) billing.push({ customer_id: row.stripeCustomerId, user_id: row.userId });
    }
    placed.push([row.sourceId, row.userId]);
  }
  await timed(target.times, 'sql: recordReferrals (referrals + touches)', recordReferrals(sql, referrals));
  if (billing.length > 0) {
    await timed(target.times, 'sql: insert billing_customers', sql`
      insert into billing_customers (provider, customer_id, user_id)
      select 'stripe', customer_id, user_id from jsonb_to_recordset(${sql.json(billing)}) as r(customer_id text, user_id text)
      on conflict (provider, customer_id) do nothing`);
  }
  await saveRefs(sql, target, 'customer', placed);
  for (const [sourceId, userId] of placed) customers.set(sourceId, userId);
  report.counts.customers += referrals.length;
}
