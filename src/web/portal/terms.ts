// What a partner earns and when it is paid, in words: each held campaign's terms (the partner's
// commission snapshot replaces the campaign's rules and holdback, as at accrual), the payout schedule
// read from PAYOUT_CRON, the minimum, and the next run. Shared by the portal home and the signup page.
import { Cron } from 'croner';
import type { GroupRule, Rule } from '../../modules/campaigns/rules';
import { describeTerms } from '../terms';
import { formatMoney } from '../ui';

export type CampaignTerms = {
  campaignId: string;
  name: string;
  currency: string;
  /** one sentence per rule; empty when nothing pays yet */
  rules: string[];
  holdback: string;
  holdbackDays: number;
  /** 'snapshot': the partner's own frozen terms replace the campaign's rules; 'group': its group's rules come first */
  source: 'snapshot' | 'group' | 'campaign';
};

/**
 * The terms a partner earns under in one campaign, in the order accrual tries them (the first rule
 * that matches an event pays, level by level): its commission snapshot when it has one (rules and,
 * when set, holdback); else its group's rules for this campaign, then its group's rules for every
 * campaign, then the campaign's; the holdback falls back to the group's, the campaign's, HOLDBACK_DAYS.
 */
export function campaignTerms(
  campaign: { id: string; name: string; currency: string; holdbackDays: number | null; rules: Rule[] },
  snapshot: { rules: Rule[]; holdbackDays?: number } | null,
  defaultHoldbackDays: number,
  group: { rules: GroupRule[]; holdbackDays: number | null } | null = null,
): CampaignTerms {
  const strip = ({ campaignId: _c, ...rule }: GroupRule): Rule => rule;
  const groupRules = group
    ? [...group.rules.filter((r) => r.campaignId === campaign.id), ...group.rules.filter((r) => r.campaignId === undefined)].map(strip)
    : [];
  const rules = snapshot ? snapshot.rules : [...groupRules, ...campaign.rules];
  const holdbackDays = snapshot?.holdbackDays ?? group?.holdbackDays ?? campaign.holdbackDays ?? defaultHoldbackDays;
  const words = describeTerms({ rules, currency: campaign.currency, holdbackDays });
  return {
    campaignId: campaign.id,
    name: campaign.name,
    currency: campaign.currency,
    // a rule that never pays (an earlier one takes every such event) is left out: it would mislead
    rules: words.rules.filter((_, i) => !words.shadowed.includes(i)),
    holdback: words.holdback,
    holdbackDays,
    source: snapshot ? 'snapshot' : groupRules.length > 0 ? 'group' : 'campaign',
  };
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

const small = (text: string, max: number) => /^\d{1,2}$/.test(text) && Number(text) <= max;

/**
 * A cron expression (UTC) in words for its common shapes: "on the 1st of each month at 06:00 UTC",
 * "every Monday at 09:30 UTC", "every day at 00:00 UTC", "every hour at minute 15". Anything else is
 * shown as it is: 'on the schedule "0 6 1,15 * *" (UTC)'.
 */
export function describeSchedule(cron: string): string {
  const plain = `on the schedule "${cron}" (UTC)`;
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return plain;
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  if (month !== '*' || !small(minute, 59)) return plain;
  const mm = minute.padStart(2, '0');
  if (hour === '*' && dom === '*' && dow === '*') return `every hour at minute ${Number(minute)}`;
  if (!small(hour, 23)) return plain;
  const at = `at ${hour.padStart(2, '0')}:${mm} UTC`;
  if (dom === '*' && dow === '*') return `every day ${at}`;
  if (dow === '*' && small(dom, 31) && Number(dom) >= 1) return `on the ${ordinal(Number(dom))} of each month ${at}`;
  if (dom === 'L' && dow === '*') return `on the last day of each month ${at}`;
  if (dom === '*') {
    if (dow === '1-5' || dow.toLowerCase() === 'mon-fri') return `every weekday (Monday to Friday) ${at}`;
    const named = DAY_NAMES[dow.toLowerCase()];
    const n = named ?? (small(dow, 7) ? Number(dow) % 7 : undefined);
    if (n !== undefined) return `every ${WEEKDAYS[n]} ${at}`;
  }
  return plain;
}

/** When the payout job runs next (UTC), or null when the expression never fires again. */
export function nextPayoutRun(cron: string, now: Date = new Date()): Date | null {
  try {
    return new Cron(cron, { timezone: 'UTC', paused: true }).nextRun(now);
  } catch {
    return null;
  }
}

/**
 * The payout sentence: "Paid on the 1st of each month at 06:00 UTC once your approved balance
 * reaches 50.00 USD." for the currencies named (the minimum is one number in each currency).
 */
export function payoutTermsText(cron: string, minPayout: string, currencies: string[]): string {
  const when = `Paid ${describeSchedule(cron)}`;
  const zero = !/[1-9]/.test(minPayout);
  if (zero) return `${when}, whatever your approved balance.`;
  const list = currencies.length > 0 ? currencies : ['USD'];
  const amounts = list.map((c) => formatMoney(minPayout, c));
  const joined = amounts.length === 1 ? amounts[0] : `${amounts.slice(0, -1).join(', ')} or ${amounts[amounts.length - 1]}`;
  return `${when} once your approved balance reaches ${joined}${amounts.length > 1 ? ' (in that currency)' : ''}.`;
}

// ---------------------------------------------------------------------------------------------
// What comes next for a commission or a payout (the lists' "Next" column and badge titles)

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

/** Facts the "what comes next" texts need: the next payout run and which currencies it pays. */
export type PayoutOutlook = {
  nextRun: Date | null;
  /** currencies whose approved balance (minus open clawbacks) reaches the minimum now */
  due: Set<string>;
  minPayout: string;
};

export function commissionNext(
  c: { status: string; createdAt: string; holdbackDays: number; currency: string; paidAt: string | null; reason: string | null; flags?: readonly string[] },
  outlook: PayoutOutlook,
): string {
  if (c.status === 'accrued' && (c.flags?.length ?? 0) > 0) return 'Checked by the program before approval';
  switch (c.status) {
    case 'accrued':
      return `Approved on ${isoDay(new Date(Date.parse(c.createdAt) + c.holdbackDays * DAY_MS))} when the holdback ends`;
    case 'approved':
      if (outlook.due.has(c.currency) && outlook.nextRun) return `Paid in the payout of ${isoDay(outlook.nextRun)}`;
      return `Waits for the ${formatMoney(outlook.minPayout, c.currency)} minimum payout`;
    case 'paid':
      return c.paidAt ? `Paid on ${c.paidAt.slice(0, 10)}` : 'Paid';
    case 'reversed':
      return c.reason ? `Not paid: ${c.reason}` : 'Not paid';
    default:
      return '';
  }
}

export function payoutNext(p: { status: string; paidAt: string | null; failureReason: string | null }, outlook: PayoutOutlook): string {
  switch (p.status) {
    case 'pending':
      return 'On its way; marked paid when it arrives';
    case 'paid':
      return p.paidAt ? `Paid on ${p.paidAt.slice(0, 10)}` : 'Paid';
    case 'failed':
      return `Failed${p.failureReason ? ` (${p.failureReason})` : ''}; its commissions go into the next payout run${outlook.nextRun ? ` on ${isoDay(outlook.nextRun)}` : ''}`;
    default:
      return '';
  }
}
