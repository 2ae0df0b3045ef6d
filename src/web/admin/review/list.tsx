// The review queue (GET /admin/review): flagged commissions waiting, newest first, each with its
// evidence and its approve and reverse buttons; tick several for the bulk bar.
import type { AppContext } from '../../../context';
import { reviewQueue, type ReviewItem } from '../../../modules/fraud/review';
import type { Flag } from '../../../modules/fraud/signals';
import { CsrfInput } from '../../forms';
import { Notice } from '../../layout';
import type { AdminPage } from '../../session';
import { Badge, EmptyState, formatMoney } from '../../ui';
import { AdminLayout, can } from '../kit';
import { eventHref } from '../tables';
import { Evidence } from './evidence';
import { FLAG_LABELS, flagReason, plural, REVIEW, SHOWN, when } from './labels';

/** The queue as HTML, with the outcome of the last action on top. */
export async function queueView(ctx: AppContext, page: AdminPage, outcome: { ok?: string; error?: string } = {}) {
  const { items, total } = await reviewQueue(ctx.sql, { limit: SHOWN });
  return (<ReviewPage page={page} items={items} total={total} outcome={outcome} />) as string;
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

function ReviewPage(props: { page: AdminPage; items: ReviewItem[]; total: number; outcome: { ok?: string; error?: string } }) {
  const csrf = props.page.csrf;
  // a role that may not decide reads the queue and its evidence, without ticks and buttons
  const decide = can(props.page, 'POST', `${REVIEW}/:id/approve`);
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
            {decide && (
              <>
                <button type="submit" name="action" value="approve" class="secondary">
                  Approve ticked…
                </button>
                <button type="submit" name="action" value="reverse" class="danger">
                  Reverse ticked…
                </button>
              </>
            )}
          </form>
          <ol class="review-list">
            {props.items.map((item) => (
              <li class="review-item" id={`review-${item.id}`}>
                <div class="review-head">
                  {decide && (
                    <label class="pick">
                      <input type="checkbox" name="ids" value={item.id} form="review-bulk" />
                      <span class="vh" safe>{`Tick ${item.id}`}</span>
                    </label>
                  )}
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
                {decide && (
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
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </AdminLayout>
  );
}
