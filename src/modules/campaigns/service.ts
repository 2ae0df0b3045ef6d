// Campaign rules and SQL: create, read, list, update, archive.
import type { JSONValue } from 'postgres';
import type { Sql, Tx } from '../../db';
import { EXPONENTS, isKnownCurrency, numberText, PERCENT_SCALE, scaleDecimal } from '../../lib/money';
import { AppError, invalidFields, notFound, type FieldProblem } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import type { CampaignRecord } from './model';
import { ruleProblems, type Rule } from './rules';
import { changesOf, record } from '../audit/service';

export type Campaign = typeof CampaignRecord.static;

type CampaignRow = {
  id: string;
  name: string;
  destination_url: string;
  currency: string;
  holdback_days: number | null;
  rules: Rule[] | null;
  stripe_coupon_id: string | null;
  recruiter_percent: string | null; // numeric
  created_at: Date;
  archived_at: Date | null;
};

function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    name: row.name,
    destinationUrl: row.destination_url,
    currency: row.currency,
    holdbackDays: row.holdback_days,
    rules: row.rules ?? [],
    stripeCouponId: row.stripe_coupon_id,
    recruiterPercent: row.recruiter_percent === null ? null : Number(row.recruiter_percent),
    createdAt: iso(row.created_at)!,
    archivedAt: iso(row.archived_at),
  };
}

const COLUMNS = (sql: Tx) => sql`id, name, destination_url, currency, holdback_days, rules, stripe_coupon_id, recruiter_percent, created_at, archived_at`;

/** A share-link destination: an absolute http(s) URL without spaces. */
export function destinationProblem(value: string): string | null {
  if (/\s/.test(value)) return 'must not contain spaces';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (!url.hostname) return 'must name a host';
  return null;
}

/** Flat amounts and tier thresholds may not carry more decimals than the campaign currency has. */
export function amountProblems(rules: Rule[], currency: string, field = 'rules', at?: (i: number) => boolean): FieldProblem[] {
  const exponent = EXPONENTS[currency] ?? 2;
  const problems: FieldProblem[] = [];
  const check = (value: string | undefined, path: string) => {
    if (value === undefined) return;
    const decimals = value.split('.')[1]?.length ?? 0;
    if (decimals > exponent) problems.push({ field: path, message: `${currency} has ${exponent} decimal${exponent === 1 ? '' : 's'}` });
  };
  rules.forEach((rule, i) => {
    if (at && !at(i)) return;
    check(rule.amount, `${field}.${i}.amount`);
    (rule.tiers ?? []).forEach((tier, k) => {
      check(tier.amount, `${field}.${i}.tiers.${k}.amount`);
      check(tier.minRevenue, `${field}.${i}.tiers.${k}.minRevenue`);
    });
  });
  return problems;
}

/** What an unknown currency code is told (a field error, to the API and the forms alike). */
export const UNKNOWN_CURRENCY = 'unknown currency: give an ISO 4217 code in upper case, such as USD or EUR';

export function throwProblems(problems: FieldProblem[]): void {
  if (problems.length > 0) throw invalidFields(problems);
}

function check(input: { destinationUrl?: string; currency?: string; rules?: Rule[]; recruiterPercent?: number | null }, currentCurrency?: string) {
  const problems: FieldProblem[] = [];
  if (typeof input.recruiterPercent === 'number') {
    const text = numberText(input.recruiterPercent);
    if (text === null || scaleDecimal(text, PERCENT_SCALE, 'strict') === null) problems.push({ field: 'recruiterPercent', message: 'at most 4 decimals' });
  }
  if (input.destinationUrl !== undefined) {
    const problem = destinationProblem(input.destinationUrl);
    if (problem) problems.push({ field: 'destinationUrl', message: problem });
  }
  if (input.currency !== undefined && !isKnownCurrency(input.currency)) {
    problems.push({ field: 'currency', message: UNKNOWN_CURRENCY });
  }
  if (input.rules !== undefined) {
    problems.push(...ruleProblems(input.rules, 'rules'));
    const currency = input.currency ?? currentCurrency;
    if (currency && isKnownCurrency(currency)) problems.push(...amountProblems(input.rules, currency));
  }
  throwProblems(problems);
}

export type CreateCampaignInput = {
  name: string;
  destinationUrl: string;
  currency: string;
  holdbackDays?: number | null;
  rules?: Rule[];
  stripeCouponId?: string | null;
  /** Percent of each recruit commission its recruiter earns; null: off. */
  recruiterPercent?: number | null;
};

/** A percent as exact decimal text for a numeric column (the schema allows at most 4 decimals). */
function percentText(percent: number | null | undefined): string | null {
  return percent === undefined || percent === null ? null : numberText(percent);
}

export async function createCampaign(db: Sql, input: CreateCampaignInput): Promise<Campaign> {
  check(input);
  return db.begin(async (sql) => {
    const [row] = await sql<CampaignRow[]>`
      insert into campaigns (id, name, destination_url, currency, holdback_days, rules, stripe_coupon_id, recruiter_percent)
      values (${newId('campaign')}, ${input.name.trim()}, ${input.destinationUrl}, ${input.currency},
              ${input.holdbackDays ?? null}, ${sql.json((input.rules ?? []) as JSONValue)}, ${input.stripeCouponId ?? null},
              ${percentText(input.recruiterPercent)})
      returning ${COLUMNS(sql)}`;
    const campaign = toCampaign(row!);
    await record(sql, { action: 'campaign.created', target: { type: 'campaign', id: campaign.id }, changes: changesOf(null, campaign, CAMPAIGN_AUDITED) });
    return campaign;
  });
}

/** A campaign's fields the audit log compares (its rules are its rates). */
const CAMPAIGN_AUDITED = ['name', 'destinationUrl', 'currency', 'holdbackDays', 'rules', 'stripeCouponId', 'recruiterPercent', 'archivedAt'];

export async function findCampaign(sql: Tx, id: string): Promise<Campaign | null> {
  if (!isId('campaign', id)) return null;
  const [row] = await sql<CampaignRow[]>`select ${COLUMNS(sql)} from campaigns where id = ${id}`;
  return row ? toCampaign(row) : null;
}

export async function getCampaign(sql: Tx, id: string): Promise<Campaign> {
  const campaign = await findCampaign(sql, id);
  if (!campaign) throw notFound('campaign');
  return campaign;
}

/** Newest first; `partnerId` limits the list to the campaigns that partner holds. */
export async function listCampaigns(
  sql: Sql,
  filter: { limit: number; cursor?: string; archived?: boolean; partnerId?: string },
): Promise<Campaign[]> {
  const rows = await sql<CampaignRow[]>`
    select ${COLUMNS(sql)} from campaigns c
    where true
      ${filter.archived === undefined ? sql`` : filter.archived ? sql`and c.archived_at is not null` : sql`and c.archived_at is null`}
      ${filter.partnerId ? sql`and exists (select 1 from partner_campaigns pc where pc.campaign_id = c.id and pc.partner_id = ${filter.partnerId})` : sql``}
      ${filter.cursor ? sql`and c.id < ${filter.cursor}` : sql``}
    order by c.id desc
    limit ${filter.limit + 1}`;
  return rows.map(toCampaign);
}

/** Whether the partner holds the campaign (may create share links for it). */
export async function partnerHoldsCampaign(sql: Tx, partnerId: string, campaignId: string): Promise<boolean> {
  const [row] = await sql<{ held: number }[]>`select 1 as held from partner_campaigns where partner_id = ${partnerId} and campaign_id = ${campaignId}`;
  return Boolean(row);
}

export type UpdateCampaignInput = Partial<CreateCampaignInput> & { archived?: boolean };

/**
 * A campaign's currency is fixed once it has commissions: they, its reports and its pages are in
 * that currency, and a change would hide them. 409, with the field named.
 */
async function throwIfEarned(sql: Tx, campaign: Campaign): Promise<void> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from commissions where campaign_id = ${campaign.id}`;
  if (row!.n === 0) return;
  const message = `the campaign has ${row!.n === 1 ? '1 commission' : `${row!.n} commissions`} in ${campaign.currency}; its currency cannot change once it has commissions (create a new campaign for another currency)`;
  throw new AppError('conflict', `currency: ${message}`, [{ field: 'currency', message }]);
}

export async function updateCampaign(sql: Sql, id: string, input: UpdateCampaignInput): Promise<Campaign> {
  return sql.begin(async (tx) => {
    const current = await findCampaign(tx, id);
    if (!current) throw notFound('campaign');
    check(input, current.currency);
    if (input.currency !== undefined && input.currency !== current.currency) await throwIfEarned(tx, current);
    if (input.currency !== undefined && input.rules === undefined) {
      const problems = amountProblems(current.rules, input.currency);
      if (problems.length > 0) {
        throw new AppError('invalid_body', `currency: the current rules' flat amounts have more decimals than ${input.currency}`, problems);
      }
    }
    const archivedAt =
      input.archived === undefined ? tx`archived_at` : input.archived ? tx`coalesce(archived_at, now())` : null;
    const [row] = await tx<CampaignRow[]>`
      update campaigns set
        name = ${input.name?.trim() ?? current.name},
        destination_url = ${input.destinationUrl ?? current.destinationUrl},
        currency = ${input.currency ?? current.currency},
        holdback_days = ${input.holdbackDays === undefined ? current.holdbackDays : input.holdbackDays},
        rules = ${tx.json((input.rules ?? current.rules) as JSONValue)},
        stripe_coupon_id = ${input.stripeCouponId === undefined ? current.stripeCouponId : input.stripeCouponId},
        recruiter_percent = ${input.recruiterPercent === undefined ? tx`recruiter_percent` : percentText(input.recruiterPercent)},
        archived_at = ${archivedAt},
        updated_at = now()
      where id = ${id}
      returning ${COLUMNS(tx)}`;
    const campaign = toCampaign(row!);
    const verb = !current.archivedAt && campaign.archivedAt ? 'archived' : current.archivedAt && !campaign.archivedAt ? 'unarchived' : 'updated';
    await record(tx, { action: `campaign.${verb}`, target: { type: 'campaign', id }, changes: changesOf(current, campaign, CAMPAIGN_AUDITED), skipIfUnchanged: true });
    return campaign;
  });
}
