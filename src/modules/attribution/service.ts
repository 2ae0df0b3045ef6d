// Steps 1-3 of DESIGN.md "Attribution": who, if anyone, brought the user of an event.
import type { Tx } from '../../db';
import { fraction, type Fraction } from '../../lib/money';
import { DAY } from '../../lib/time';
import { findCreditingCode, type CreditingCode } from '../codes/service';
import { applyModel, MAX_TOUCHES, type AttributionModel, type AttributionStatus } from './models';

export type { AttributionStatus };

export type ResolvedTouch = {
  position: number; // 0 = oldest click of the referral
  /** Null for a code touch. */
  clickId: string | null;
  /** The promotion code of a code touch (its id and the code as stored); null for a click. */
  codeId: string | null;
  couponCode: string | null;
  partnerId: string;
  campaignId: string;
  weight: Fraction;
  /** The share link the touch came through, when known without its click (an imported customer's). */
  linkId?: string | null;
};

export type Resolution = {
  status: AttributionStatus;
  model: AttributionModel;
  /** Touches that earn: on a sticky referral, those of partners revoked since are left out. */
  touches: ResolvedTouch[];
  referralStartedAt: Date | null;
  /** A new referral to record (the user's first attributed event). */
  newReferral: boolean;
};

export type Settings = { model: AttributionModel; windowDays: number };

type ReferralTouchRow = {
  model: AttributionModel;
  started_at: Date;
  position: number;
  click_id: string | null;
  code_id: string | null;
  coupon_code: string | null;
  partner_id: string;
  campaign_id: string;
  weight_num: number;
  weight_den: number;
  partner_revoked: boolean;
};

export async function readSettings(sql: Tx): Promise<Settings> {
  const [row] = await sql<{ attribution_model: AttributionModel; attribution_window_days: number }[]>`
    select attribution_model, attribution_window_days from settings where id`;
  return { model: row?.attribution_model ?? 'last_click', windowDays: row?.attribution_window_days ?? 30 };
}

export type AttributionQuestion = { userId: string; occurredAt: Date; couponCode?: string };

/**
 * Decides the attribution of events of distinct users as of each one's `occurredAt`, in a fixed
 * number of statements whatever their number. Run it inside the events' transaction, after taking
 * their users' locks, so that a user's first attributed events cannot race.
 *
 * Precedence (DESIGN.md "Promotion codes"): a referral the user already has (sticky), else a
 * crediting promotion code the event names (wins over clicks, and needs no identify), else clicks.
 */
export async function resolveAttributions(sql: Tx, inputs: AttributionQuestion[]): Promise<Resolution[]> {
  if (inputs.length === 0) return [];
  const users = [...new Set(inputs.map((i) => i.userId))];
  // pipelined: one round trip for the settings, the identities and the referrals
  const [settings, identities, referralRows] = await Promise.all([
    readSettings(sql),
    sql<{ user_id: string }[]>`select user_id from identities where user_id = any(${users}::text[])`,
    sql<(ReferralTouchRow & { user_id: string })[]>`
      select r.user_id, r.model, r.started_at, t.position, t.click_id, t.code_id, pc.code as coupon_code, t.partner_id, t.campaign_id,
             t.weight_num, t.weight_den, p.revoked_at is not null as partner_revoked
      from referrals r
      join referral_touches t on t.user_id = r.user_id
      join partners p on p.id = t.partner_id
      left join promotion_codes pc on pc.id = t.code_id
      where r.user_id = any(${users}::text[])
      order by r.user_id, t.position`,
  ]);
  const identified = new Set(identities.map((i) => i.user_id));
  const referrals = new Map<string, ReferralTouchRow[]>();
  for (const row of referralRows) referrals.set(row.user_id, [...(referrals.get(row.user_id) ?? []), row]);

  const codeTexts = [...new Set(inputs.flatMap((i) => (i.couponCode !== undefined && !referrals.has(i.userId) ? [i.couponCode] : [])))];
  const found = await Promise.all(codeTexts.map((text) => findCreditingCode(sql, text)));
  const codes = new Map(codeTexts.map((text, k) => [text, found[k]]));

  // the events that fall through to clicks: newest first, at most MAX_TOUCHES each; the clicks of
  // revoked partners, bots and floods (uncredited_reason) do not count at all
  const byClicks = inputs.flatMap((input, k) =>
    !referrals.has(input.userId) && !(input.couponCode !== undefined && codes.get(input.couponCode)) && identified.has(input.userId) ? [k] : [],
  );
  const clicks = new Map<number, ClickRow[]>();
  if (byClicks.length > 0) {
    const rows = await sql<(ClickRow & { k: number })[]>`
      select q.k::int as k, c.id, c.partner_id, c.campaign_id, c.created_at
      from unnest(${byClicks.map((k) => inputs[k]!.userId)}::text[], ${byClicks.map((k) => inputs[k]!.occurredAt.toISOString())}::timestamptz[],
                  ${byClicks}::int[]) as q(user_id, at, k)
      cross join lateral (
        select c.id, c.partner_id, c.campaign_id, c.created_at
        from identity_clicks ic
        join clicks c on c.id = ic.click_id
        join partners p on p.id = c.partner_id
        where ic.user_id = q.user_id and c.created_at <= q.at and p.revoked_at is null and c.uncredited_reason is null
        order by c.created_at desc, c.id desc
        limit ${MAX_TOUCHES}
      ) c
      order by q.k, c.created_at desc, c.id desc`;
    for (const { k, ...row } of rows) clicks.set(k, [...(clicks.get(k) ?? []), row]);
  }

  return inputs.map((input, k) =>
    decide({
      settings,
      occurredAt: input.occurredAt,
      identified: identified.has(input.userId),
      referral: referrals.get(input.userId) ?? [],
      code: input.couponCode === undefined ? null : (codes.get(input.couponCode) ?? null),
      clicks: clicks.get(k) ?? [],
    }),
  );
}

type ClickRow = { id: string; partner_id: string; campaign_id: string; created_at: Date };

/** The rules of steps 1-3, on what the reads found. */
function decide(found: {
  settings: Settings;
  occurredAt: Date;
  identified: boolean;
  referral: ReferralTouchRow[];
  code: CreditingCode | null;
  clicks: ClickRow[];
}): Resolution {
  const { settings, occurredAt, referral } = found;
  if (referral.length === 0 && found.code) {
    const code = found.code;
    const touch = { position: 0, clickId: null, codeId: code.id, couponCode: code.code, partnerId: code.partnerId, campaignId: code.campaignId, weight: fraction(1, 1) };
    return { status: 'attributed', model: settings.model, touches: [touch], referralStartedAt: occurredAt, newReferral: true };
  }
  if (!found.identified && referral.length === 0) return none('no_identity', settings.model);

  if (referral.length > 0) {
    // sticky: recurring revenue keeps flowing to the partners who brought the customer
    const first = referral[0]!;
    return {
      status: 'attributed',
      model: first.model,
      touches: referral
        .filter((r) => !r.partner_revoked)
        .map((r) => ({
          position: r.position,
          clickId: r.click_id,
          codeId: r.code_id,
          couponCode: r.coupon_code,
          partnerId: r.partner_id,
          campaignId: r.campaign_id,
          weight: fraction(r.weight_num, r.weight_den),
        })),
      referralStartedAt: first.started_at,
      newReferral: false,
    };
  }

  const clicks = found.clicks; // newest first
  if (clicks.length === 0) return none('no_click', settings.model);
  const windowStart = occurredAt.getTime() - settings.windowDays * DAY;
  const inWindow = clicks.filter((c) => c.created_at.getTime() >= windowStart).reverse();
  if (inWindow.length === 0) return none('outside_window', settings.model);

  const touches = applyModel(settings.model, inWindow).map((t, position) => ({
    position,
    clickId: t.click.id,
    codeId: null,
    couponCode: null,
    partnerId: t.click.partner_id,
    campaignId: t.click.campaign_id,
    weight: t.weight,
  }));
  return { status: 'attributed', model: settings.model, touches, referralStartedAt: occurredAt, newReferral: true };
}

function none(status: Exclude<AttributionStatus, 'attributed'>, model: AttributionModel): Resolution {
  return { status, model, touches: [], referralStartedAt: null, newReferral: false };
}

/**
 * Records users' referrals: the touches every later event of each reuses. Two statements whatever
 * their number, the rows travelling as one JSON parameter so the statement text never changes.
 */
export async function recordReferrals(sql: Tx, referrals: { userId: string; model: AttributionModel; startedAt: Date; touches: ResolvedTouch[] }[]) {
  if (referrals.length === 0) return;
  const heads = referrals.map((r) => ({ user_id: r.userId, model: r.model, started_at: r.startedAt.toISOString() }));
  const touches = referrals.flatMap((r) =>
    r.touches.map((t) => ({
      user_id: r.userId,
      position: t.position,
      click_id: t.clickId,
      code_id: t.codeId,
      partner_id: t.partnerId,
      campaign_id: t.campaignId,
      weight_num: Number(t.weight.num),
      weight_den: Number(t.weight.den),
      link_id: t.linkId ?? null,
    })),
  );
  await Promise.all([
    sql`
      insert into referrals (user_id, model, started_at)
      select user_id, model, started_at from jsonb_to_recordset(${sql.json(heads)}) as r(user_id text, model text, started_at timestamptz)`,
    sql`
      insert into referral_touches (user_id, position, click_id, code_id, partner_id, campaign_id, weight_num, weight_den, link_id)
      select user_id, position, click_id, code_id, partner_id, campaign_id, weight_num, weight_den, link_id
      from jsonb_to_recordset(${sql.json(touches)})
        as r(user_id text, position int, click_id text, code_id text, partner_id text, campaign_id text, weight_num bigint, weight_den bigint, link_id text)`,
  ]);
}
