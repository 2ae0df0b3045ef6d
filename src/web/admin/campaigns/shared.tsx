// What the campaign pages share: addresses, the form's values as typed, the numbers' formats, the 404.
import { t } from 'elysia';
import type { AppContext } from '../../../context';
import { findCampaign, type Campaign } from '../../../modules/campaigns/service';
import { seenEventTypes, type Numbers } from '../../../modules/reports/campaigns';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { STANDARD_EVENT_TYPES } from '../../terms';
import { readRows, ruleToRow, type RuleRow } from '../rule-editor';
import { NotFoundPage } from '../kit';
import { formatMoney, type Tone } from '../../ui';

export const LIST = '/admin/campaigns';
/** The campaign form's own fields (a service problem on one of them is shown beside it). */
export const FORM_FIELDS = ['name', 'destinationUrl', 'currency', 'holdbackDays', 'recruiterPercent'];
export const DONE = {
  created: 'Campaign created.',
  saved: 'Campaign saved.',
  archived: 'Campaign archived: partners can no longer create links for it.',
  unarchived: 'Campaign is live again.',
};
/** Rows of the partners and links tables on a campaign's page. */
export const TABLE_ROWS = 50;
export const Params = t.Object({ id: t.String({ maxLength: 64 }) });
export const RangeQuery = {
  range: t.Optional(t.String({ maxLength: 10 })),
  from: t.Optional(t.String({ maxLength: 10 })),
  to: t.Optional(t.String({ maxLength: 10 })),
};
export const campaignPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
export const editPath = (id: string) => `${campaignPath(id)}/edit`;
export const archivePath = (id: string) => `${campaignPath(id)}/archive`;

/** The campaign form as typed. */
export type CampaignValues = { name: string; destinationUrl: string; currency: string; holdbackDays: string; recruiterPercent: string; previewDays: string; rows: RuleRow[] };

const percentText = (p: number | null) => (p === null ? '' : String(p));

export function campaignToValues(c: Campaign): CampaignValues {
  return {
    name: c.name,
    destinationUrl: c.destinationUrl,
    currency: c.currency,
    holdbackDays: c.holdbackDays === null ? '' : String(c.holdbackDays),
    recruiterPercent: percentText(c.recruiterPercent ?? null),
    previewDays: '',
    rows: c.rules.map(ruleToRow),
  };
}

/** The campaign form's fields and its rule rows (see readRows). */
export function readValues(form: Record<string, string>): CampaignValues & { removed: Set<number> } {
  const { rows, removed } = readRows(form);
  return {
    name: (form.name ?? '').trim(),
    destinationUrl: (form.destinationUrl ?? '').trim(),
    currency: (form.currency ?? '').trim().toUpperCase(),
    holdbackDays: (form.holdbackDays ?? '').trim(),
    recruiterPercent: (form.recruiterPercent ?? '').trim(),
    previewDays: (form.previewDays ?? '').trim(),
    rows,
    removed,
  };
}

/** The recruiter percent as typed: empty is off (null); else a number the API's schema takes. */
export function readRecruiterPercent(text: string): { value: number | null; error?: string } {
  if (text === '') return { value: null };
  const n = Number(text.replace(/%$/, '').trim());
  if (!/^[0-9]+(\.[0-9]+)?%?$/.test(text) || !Number.isFinite(n) || n <= 0 || n > 100) return { value: null, error: 'a percent more than 0 and at most 100 (empty: off)' };
  return { value: n };
}

/** Days the preview replays: 1-365, 30 when empty. */
export function readPreviewDays(text: string): { value: number; error?: string } {
  if (text === '') return { value: 30 };
  if (/^[0-9]{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= 365) return { value: Number(text) };
  return { value: 30, error: 'a whole number of days, 1 to 365' };
}

/** The event types the picker offers: the standard ones, then custom types seen in events or rules. */
export async function eventTypes(ctx: AppContext): Promise<string[]> {
  return [...STANDARD_EVENT_TYPES, ...(await seenEventTypes(ctx.sql, { exclude: STANDARD_EVENT_TYPES }))];
}

/** The campaign of the URL, or the 404 page. */
export async function withCampaign(ctx: AppContext, page: AdminPage, id: string, act: (campaign: Campaign) => Promise<Response>): Promise<Response> {
  const campaign = await findCampaign(ctx.sql, id);
  if (!campaign) return render(<NotFoundPage page={page} what="campaign" back={LIST} />, { status: 404 });
  return act(campaign);
}

/** Live campaigns take new links; archived ones keep theirs. */
export function campaignBadge(c: Campaign): { tone: Tone; label: string; title: string } {
  return c.archivedAt
    ? { tone: 'grey', label: 'Archived', title: 'Archived: existing links keep working; partners cannot create new ones until unarchived' }
    : { tone: 'green', label: 'Live', title: 'Live: partners holding it can create links and earn commissions' };
}

export const count = (n: number) => n.toLocaleString('en-US');

/** Earnings per click: commissions over clicks, in minor units (rounded down); "–" without clicks. */
export function epc(n: Numbers, currency: string): string {
  return n.clicks > 0 ? formatMoney(n.commissions / BigInt(n.clicks), currency) : '–';
}

/** Basis points of a rate, for comparing rates in points. */
export const basisPoints = (num: number, den: number) => (den > 0 ? Math.round((num * 10000) / den) : 0);
