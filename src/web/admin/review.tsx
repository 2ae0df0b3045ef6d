// Admin review queue (/admin/review): flagged commissions the holdback job leaves for a person,
// each with the evidence of its flags (clicks, network hashes, emails, amount against the
// threshold, the other partner); approve or reverse one, or many at once after a confirmation
// (web/confirm.tsx: nothing moves without `confirmed=1`). Also the partner page's flag history.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { approveCommission, reverseCommission } from '../../modules/commissions/lifecycle';
import { ReverseBody } from '../../modules/commissions/model';
import { reviewQueue, type PartnerFlagMonth, type ReviewItem } from '../../modules/fraud/review';
import type { Flag } from '../../modules/fraud/signals';
import { ConfirmPanel, isConfirmed } from '../confirm';
import { CsrfInput, Field, formList, schemaErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Badge, EmptyState, formatMoney, href } from '../ui';
import { adminActor, AdminLayout, type AdminKit } from './kit';
import { eventHref } from './tables';

export const REVIEW = '/admin/review';
const SHOWN = 100;
const MAX_BULK = 100;

export const FLAG_LABELS: Record<Flag, { label: string; title: string }> = {
  self_referral: { label: 'Self-referral', title: "The customer's email or network is the partner's own." },
  click_flood: { label: 'Click flood', title: 'The customer also came through clicks over the hourly limit of one network on one link.' },
  bot_click: { label: 'Bot click', title: 'The customer also came through clicks from a known bot or crawler.' },
  duplicate_customer: { label: 'Duplicate customer', title: 'The same billing customer already earned a commission for another partner.' },
  review_amount: { label: 'Large amount', title: 'The commission is above REVIEW_ABOVE.' },
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const shortHash = (hash: string) => `${hash.slice(0, 12)}…`;
const when = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
const flagReason = (flags: Flag[]) => `fraud: ${flags.join(', ')}`;

const ReviewQuery = t.Object({
  done: t.Optional(t.String({ maxLength: 20 })),
  n: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
});
const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

type Bulk = 'approve' | 'reverse';

function reasonProblem(reason: string): string | null {
  const problems = schemaErrors(ReverseBody, { reason });
  if (!problems.reason) return null;
  return problems.reason === 'required' ? 'say why (self-referral, bot traffic…)' : problems.reason;
}

export function reviewRoutes(ctx: AppContext, kit: AdminKit) {
  async function queueView(page: AdminPage, outcome: { ok?: string; error?: string } = {}) {
    const { items, total } = await reviewQueue(ctx.sql, { limit: SHOWN });
    return (<ReviewPage page={page} items={items} total={total} outcome={outcome} />) as string;
  }

  async function confirmView(page: AdminPage, action: Bulk, ids: string[], input: { reason?: string; error?: string } = {}) {
    const { items } = ids.length > 0 && ids.length <= MAX_BULK ? await reviewQueue(ctx.sql, { limit: MAX_BULK, ids }) : { items: [] };
    return (<ConfirmPage page={page} action={action} asked={ids.length} items={items} reason={input.reason} error={input.error} />) as string;
  }

  /** Approves or reverses each id; those no longer waiting are counted as skipped. */
  async function act(page: AdminPage, action: Bulk, ids: string[], reason: string): Promise<Response> {
    let moved = 0;
    for (const id of ids) {
      try {
        if (action === 'approve') await approveCommission(ctx.sql, { id, actor: adminActor(page) });
        else await reverseCommission(ctx.sql, { id, actor: adminActor(page), reason });
        moved++;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    }
    return seeOther(href(REVIEW, {}, { done: action === 'approve' ? 'approved' : 'reversed', n: String(moved), skipped: String(ids.length - moved) }));
  }

  /** The confirmed post of an action (bulk, or one commission by its id). */
  const post = (action: Bulk, one: boolean) => ({ request, body, params }: { request: Request; body: unknown; params?: { id?: string } }) =>
    kit.form(request, body, REVIEW, async (page, form) => {
      const ids = one ? [params!.id!] : formList(body, 'ids');
      const reason = (form.reason ?? '').trim();
      if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) {
        return render(await confirmView(page, action, ids, { reason: form.reason }), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
      }
      if (action === 'reverse') {
        const problem = reasonProblem(reason);
        if (problem) return render(await confirmView(page, action, ids, { reason: form.reason ?? '', error: problem }), { status: 400 });
      }
      return act(page, action, ids, reason);
    });

  return new Elysia({ detail: { hide: true } })
    .get(
      REVIEW,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const n = Number.parseInt(query.n ?? '0', 10) || 0;
          const skipped = Number.parseInt(query.skipped ?? '0', 10) || 0;
          const tail = skipped > 0 ? ` ${plural(skipped, 'was', 'were')} no longer waiting and left as they were.` : '';
          const ok = query.done === 'approved' ? `Approved ${plural(n, 'commission')}.${tail}` : query.done === 'reversed' ? `Reversed ${plural(n, 'commission')}.${tail}` : undefined;
          return render(await queueView(page, { ok }));
        }),
      { query: ReviewQuery },
    )
    // the bulk form (a GET: the ticked ids in the URL) and each card's buttons land on the confirmation
    .get(
      `${REVIEW}/confirm`,
      ({ request }) =>
        kit.page(request, async (page) => {
          const url = new URL(request.url);
          const action: Bulk = url.searchParams.get('action') === 'reverse' ? 'reverse' : 'approve';
          const ids = [...new Set(url.searchParams.getAll('ids').filter((v) => v.length > 0 && v.length <= 64))].slice(0, MAX_BULK + 1);
          // nothing ticked is said on the page; nothing happens on a GET anyway
          return render(await confirmView(page, action, ids));
        }),
      { query: t.Object({ action: t.Optional(t.String({ maxLength: 10 })), ids: t.Optional(t.Unknown()) }) },
    )
    .post(`${REVIEW}/approve`, post('approve', false))
    .post(`${REVIEW}/reverse`, post('reverse', false))
    .post(`${REVIEW}/:id/approve`, post('approve', true), { params: IdParams })
    .post(`${REVIEW}/:id/reverse`, post('reverse', true), { params: IdParams });
}

function FlagBadges(props: { flags: Flag[] }) {
  return (
    <span class="flag-badges">
      {props.flags.map((f) => (
        <Badge tone={f === 'review_amount' ? 'blue' : 'red'} label={FLAG_LABELS[f].label} title={FLAG_LABELS[f].title} />
      ))}
    </span>
  );
}

/** What each flag of one commission rests on. */
function Evidence(props: { item: ReviewItem }) {
  const { item } = props;
  const e = item.evidence;
  const self = e.self_referral;
  const uncredited = new Set([...(e.click_flood?.clickIds ?? []), ...(e.bot_click?.clickIds ?? [])]);
  const matching = new Set(self?.ipHashes ?? []);
  return (
    <dl class="evidence">
      {!!self && (
        <>
          <dt>Self-referral</dt>
          <dd>
            {self.customerEmail !== null && (
              <p safe>{`Customer email ${self.customerEmail} is the partner's ${self.partnerEmail ?? ''} (compared lower case, without +tag).`}</p>
            )}
            {self.ipHashes.length > 0 && (
              <p>
                The customer was identified from a network the partner signed in from:{' '}
                {self.ipHashes.map((h) => (
                  <code class="hash" title={h} safe>
                    {shortHash(h)}
                  </code>
                ))}
              </p>
            )}
          </dd>
        </>
      )}
      {!!e.duplicate_customer && (
        <>
          <dt>Duplicate customer</dt>
          <dd>
            <p>
              <span safe>{`Billing customer ${e.duplicate_customer.customerId} (${e.duplicate_customer.provider}) already earned a commission for `}</span>
              <a href={`/admin/partners/${encodeURIComponent(e.duplicate_customer.otherPartnerId)}`} safe>
                {item.otherPartnerName ?? e.duplicate_customer.otherPartnerId}
              </a>
              <span safe>{` (${e.duplicate_customer.otherCommissionId}).`}</span>
            </p>
          </dd>
        </>
      )}
      {!!e.review_amount && (
        <>
          <dt>Large amount</dt>
          <dd>
            <p safe>{`${formatMoney(e.review_amount.amount, e.review_amount.currency)} is above the review threshold of ${formatMoney(e.review_amount.threshold, e.review_amount.currency)} (REVIEW_ABOVE).`}</p>
          </dd>
        </>
      )}
      {(!!e.click_flood || !!e.bot_click) && (
        <>
          <dt>Uncredited clicks</dt>
          <dd>
            <p safe>
              {[
                e.click_flood ? `${plural(e.click_flood.clickIds.length, 'click')} over the hourly limit of one network on one link` : '',
                e.bot_click ? `${plural(e.bot_click.clickIds.length, 'click')} from a known bot or crawler` : '',
              ]
                .filter(Boolean)
                .join('; ')}
            </p>
          </dd>
        </>
      )}
      <dt>Customer</dt>
      <dd>
        <p>
          <span safe>{`User ${item.userId}`}</span>
          {item.customerEmail !== null && <span safe>{`, email ${item.customerEmail}`}</span>}
          {item.identityIpHashes.length > 0 && (
            <>
              {', identified from '}
              {item.identityIpHashes.map((h) => (
                <code class={matching.has(h) ? 'hash match' : 'hash'} title={h} safe>
                  {shortHash(h)}
                </code>
              ))}
            </>
          )}
        </p>
      </dd>
      <dt>Clicks through this partner</dt>
      <dd>
        {item.clicks.length === 0 ? (
          <p>None recorded.</p>
        ) : (
          <div class="table-wrap">
            <table class="evidence-clicks">
              <caption class="vh">The customer's clicks through this partner's links</caption>
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">IP hash</th>
                  <th scope="col">User agent</th>
                  <th scope="col">Credited</th>
                </tr>
              </thead>
              <tbody>
                {item.clicks.map((c) => (
                  <tr class={uncredited.has(c.id) || c.uncreditedReason ? 'uncredited' : undefined}>
                    <td safe>{when(c.at)}</td>
                    <td>
                      {c.ipHash ? (
                        <code class="hash" title={c.ipHash} safe>
                          {shortHash(c.ipHash)}
                        </code>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td class="ua" safe>
                      {c.userAgent ?? '—'}
                    </td>
                    <td>{c.uncreditedReason === 'bot_click' ? 'No: bot' : c.uncreditedReason === 'click_flood' ? 'No: flood' : 'Yes'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </dd>
    </dl>
  );
}

function ReviewPage(props: { page: AdminPage; items: ReviewItem[]; total: number; outcome: { ok?: string; error?: string } }) {
  const csrf = props.page.csrf;
  return (
    <AdminLayout page={props.page} title="Review" current={REVIEW}>
      <div class="page-head">
        <h1>Review</h1>
      </div>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      <p class="hint">
        Commissions with fraud flags wait here instead of being approved after their holdback. Approve the ones that are fine, reverse the others.
      </p>
      {props.items.length === 0 ? (
        <EmptyState title="Nothing to review" text="No flagged commission is waiting. New ones appear here as they accrue." />
      ) : (
        <>
          <form method="get" action={`${REVIEW}/confirm`} id="review-bulk" class="row bulk-bar" aria-label="Approve or reverse ticked commissions">
            <span id="review-count" safe>
              {props.total > props.items.length ? `${props.items.length} of ${props.total} waiting, newest first` : `${plural(props.total, 'commission')} waiting`}
            </span>
            <button type="submit" name="action" value="approve" class="secondary">
              Approve ticked…
            </button>
            <button type="submit" name="action" value="reverse" class="danger">
              Reverse ticked…
            </button>
          </form>
          <ol class="review-list">
            {props.items.map((item) => (
              <li class="review-item" id={`review-${item.id}`}>
                <div class="review-head">
                  <label class="pick">
                    <input type="checkbox" name="ids" value={item.id} form="review-bulk" />
                    <span class="vh" safe>{`Tick ${item.id}`}</span>
                  </label>
                  <div class="review-title">
                    <a href={`/admin/partners/${encodeURIComponent(item.partnerId)}`} safe>
                      {item.partnerName}
                    </a>
                    <span class="amount" safe>
                      {formatMoney(item.amount, item.currency)}
                    </span>
                    <FlagBadges flags={item.flags} />
                  </div>
                  <p class="hint">
                    <span safe>{`${item.eventType} · accrued ${when(item.createdAt)} · `}</span>
                    <a href={eventHref(item.eventId)} safe>
                      {item.eventId}
                    </a>
                  </p>
                </div>
                <Evidence item={item} />
                <div class="actions">
                  <form method="post" action={`${REVIEW}/${encodeURIComponent(item.id)}/approve`}>
                    <CsrfInput token={csrf} />
                    <button type="submit" class="secondary" safe>
                      {`Approve ${formatMoney(item.amount, item.currency)}…`}
                    </button>
                  </form>
                  <form method="post" action={`${REVIEW}/${encodeURIComponent(item.id)}/reverse`}>
                    <CsrfInput token={csrf} />
                    <input type="hidden" name="reason" value={flagReason(item.flags)} />
                    <button type="submit" class="danger" safe>
                      {`Reverse ${formatMoney(item.amount, item.currency)}…`}
                    </button>
                  </form>
                </div>
              </li>
            ))}
          </ol>
        </>
      )}
    </AdminLayout>
  );
}

function ConfirmPage(props: { page: AdminPage; action: Bulk; asked: number; items: ReviewItem[]; reason?: string; error?: string }) {
  const verb = props.action === 'approve' ? 'Approve' : 'Reverse';
  const n = props.items.length;
  const totals = new Map<string, bigint>();
  // amounts are decimal text with exactly the currency's decimals: dropping the point gives minor units
  for (const item of props.items) {
    const [whole = '0', frac = ''] = item.amount.split('.');
    const minor = BigInt(whole + frac);
    totals.set(item.currency, (totals.get(item.currency) ?? 0n) + minor);
  }
  const totalText = [...totals].map(([currency, minor]) => formatMoney(minor, currency)).join(', ');
  const title = n === 0 ? `${verb} commissions` : `${verb} ${plural(n, 'flagged commission')} (${totalText})`;
  const flags = [...new Set(props.items.flatMap((i) => i.flags))];
  return (
    <AdminLayout page={props.page} title={`${verb} commissions`} current={REVIEW}>
      <p class="back">
        <a href={REVIEW}>Review</a>
      </p>
      {n === 0 ? (
        <section class="confirm-page">
          <h1 safe>{`${verb} commissions`}</h1>
          <Notice
            kind="error"
            text={
              props.asked === 0
                ? `Tick at least one commission to ${verb.toLowerCase()}.`
                : props.asked > MAX_BULK
                  ? `At most ${MAX_BULK} commissions at once.`
                  : 'None of them is waiting for review any more.'
            }
          />
          <p>
            <a class="button secondary" href={REVIEW}>
              Back to the review queue
            </a>
          </p>
        </section>
      ) : (
        <ConfirmPanel
          title={title}
          action={`${REVIEW}/${props.action}`}
          button={title}
          csrf={props.page.csrf}
          back={REVIEW}
          fields={{ ids: props.items.map((i) => i.id) }}
          danger={props.action === 'reverse'}
        >
          <p safe>
            {props.action === 'approve'
              ? `${plural(n, 'commission')} for ${plural(new Set(props.items.map((i) => i.partnerId)).size, 'partner')} become approved despite their flags, and are paid in the next payout run.`
              : `${plural(n, 'commission')} are reversed with the reason below: the partner is not paid them and sees the reason. A reversal cannot be undone.`}
          </p>
          <ul class="confirm-list">
            {props.items.map((i) => (
              <li safe>{`${i.partnerName}: ${formatMoney(i.amount, i.currency)} (${i.flags.map((f) => FLAG_LABELS[f].label).join(', ')})`}</li>
            ))}
          </ul>
          {props.action === 'reverse' && (
            <Field name="reason" label="Reason (one for all)" hint="The partner sees it." value={props.reason ?? flagReason(flags)} error={props.error} required />
          )}
        </ConfirmPanel>
      )}
    </AdminLayout>
  );
}

/** The partner page's section: flags per month, with revoke prefilled with the reason. */
export function PartnerFlags(props: { partnerId: string; revoked: boolean; history: { months: PartnerFlagMonth[]; waiting: number; flagged: number } }) {
  const { history } = props;
  if (history.flagged === 0) return <></>;
  const months = [...new Set(history.months.map((m) => m.month))];
  const flags = [...new Set(history.months.map((m) => m.flag))];
  const cell = (month: string, flag: Flag) => history.months.find((m) => m.month === month && m.flag === flag)?.commissions ?? 0;
  const reason = `Fraud signals on ${plural(history.flagged, 'commission')}: ${flags.map((f) => FLAG_LABELS[f].label.toLowerCase()).join(', ')}`;
  return (
    <section aria-labelledby="flags-title" id="partner-flags">
      <div class="section-head">
        <h2 id="flags-title">Fraud flags</h2>
        {history.waiting > 0 && (
          <a href={REVIEW} safe>
            {`${plural(history.waiting, 'commission')} waiting for review`}
          </a>
        )}
      </div>
      <div class="table-wrap">
        <table class="flag-history">
          <caption class="vh">Flagged commissions per month</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              {flags.map((f) => (
                <th scope="col" class="num" safe>
                  {FLAG_LABELS[f].label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {months.map((m) => (
              <tr>
                <th scope="row" safe>
                  {m}
                </th>
                {flags.map((f) => (
                  <td class="num" safe>
                    {String(cell(m, f))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!props.revoked && (
        <p>
          <a class="button danger" id="revoke-for-flags" href={href(`/admin/partners/${encodeURIComponent(props.partnerId)}/revoke`, { reason })}>
            Revoke for these flags…
          </a>
        </p>
      )}
    </section>
  );
}
