// The confirmation before approving or reversing (web/confirm.tsx: nothing moves without
// `confirmed=1`): what is about to happen, to which commissions, and the reason of a reversal.
import type { AppContext } from '../../../context';
import { reviewQueue, type ReviewItem } from '../../../modules/fraud/review';
import { ConfirmPanel } from '../../confirm';
import { Field } from '../../forms';
import { Notice } from '../../layout';
import type { AdminPage } from '../../session';
import { formatMoney } from '../../ui';
import { AdminLayout } from '../kit';
import { FLAG_LABELS, flagReason, MAX_BULK, plural, REVIEW, type Bulk } from './labels';

/** The confirmation of an action on these ids (the ones still waiting), as HTML. */
export async function confirmView(ctx: AppContext, page: AdminPage, action: Bulk, ids: string[], input: { reason?: string; error?: string } = {}) {
  const { items } = ids.length > 0 && ids.length <= MAX_BULK ? await reviewQueue(ctx.sql, { limit: MAX_BULK, ids }) : { items: [] };
  return (<ConfirmPage page={page} action={action} asked={ids.length} items={items} reason={input.reason} error={input.error} />) as string;
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
              ? `${plural(n, 'commission')} for ${plural(new Set(props.items.map((i) => i.partnerId)).size, 'partner')} ${n === 1 ? 'becomes approved despite its flags, and is' : 'become approved despite their flags, and are'} paid in the next payout run.`
              : `${plural(n, 'commission')} ${n === 1 ? 'is reversed with the reason below: the partner is not paid it' : 'are reversed with the reason below: the partner is not paid them'} and sees the reason. A reversal cannot be undone.`}
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
