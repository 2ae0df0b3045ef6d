// Settling one payout (mark paid or failed): the confirmation's words and fields, and the payout's facts.
import type { PayoutListed } from '../../../modules/reports/money';
import { Badge, formatMoney, href, payoutBadge } from '../../ui';
import { day } from '../kit';
import { DialogField, payoutHref } from '../tables';
import { RAIL_LABELS } from './view';

/** The confirmation of settling one payout: title, where it posts, the button. */
export function settleConfirm(p: PayoutListed, kind: 'paid' | 'failed', csrf: string) {
  const amount = formatMoney(p.amount, p.currency);
  return kind === 'paid'
    ? { title: `Mark ${amount} paid to ${p.partnerName}`, action: `${payoutHref(p.id)}/mark-paid`, button: `Mark ${amount} paid`, csrf }
    : { title: `Mark ${amount} to ${p.partnerName} failed`, action: `${payoutHref(p.id)}/mark-failed`, button: `Mark ${amount} failed`, csrf, danger: true };
}

/** What settling does, and the field it asks (a reference for paid, the reason for failed). */
export function SettleBody(props: { kind: 'paid' | 'failed'; idPrefix: string; value?: string; error?: string }) {
  return props.kind === 'paid' ? (
    <>
      <p>Use this once the money has reached the partner. Its commissions become paid; this cannot be undone.</p>
      <DialogField id={`${props.idPrefix}-reference`} name="reference" label="Payment reference (optional)" hint="The bank transfer's reference, for your records" value={props.value} error={props.error} />
    </>
  ) : (
    <>
      <p>The money did not reach the partner. Its commissions become approved again and are paid in the next payout run; clawbacks it netted reopen. This cannot be undone.</p>
      <DialogField id={`${props.idPrefix}-reason`} name="reason" label="What went wrong" hint="Bounced, wrong account…" value={props.value} error={props.error} required />
    </>
  );
}

export function PayoutFacts(props: { payout: PayoutListed }) {
  const p = props.payout;
  return (
    <dl class="facts">
      <dt>Partner</dt>
      <dd>
        <a href={`/admin/partners/${encodeURIComponent(p.partnerId)}`} safe>
          {p.partnerName}
        </a>
      </dd>
      <dt>Status</dt>
      <dd>
        <Badge {...payoutBadge(p)} id="payout-status" />
      </dd>
      <dt>Amount</dt>
      <dd class="money" safe>
        {formatMoney(p.amount, p.currency)}
      </dd>
      <dt>Commissions</dt>
      <dd safe>{`${p.commissionCount} (${formatMoney(p.commissionsAmount, p.currency)})`}</dd>
      {p.clawbackCount > 0 && (
        <>
          <dt>Clawbacks netted</dt>
          <dd safe>{`${p.clawbackCount} (-${formatMoney(p.clawbacksAmount, p.currency)})`}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd safe>{day(p.createdAt)}</dd>
      {!!p.paidAt && (
        <>
          <dt>Paid</dt>
          <dd safe>{day(p.paidAt)}</dd>
        </>
      )}
      <dt>Rail</dt>
      <dd id="payout-rail" safe>
        {RAIL_LABELS[p.provider] ?? p.provider}
      </dd>
      {!!p.providerReference && (
        <>
          <dt>Reference</dt>
          <dd safe>{p.providerReference}</dd>
        </>
      )}
      {!!p.providerAnswer && (
        <>
          <dt>Rail's answer</dt>
          <dd id="payout-answer" safe>
            {p.providerAnswer}
          </dd>
        </>
      )}
      {p.status === 'paid' && !!p.invoiceNumber && (
        <>
          <dt>Self-billing invoice</dt>
          <dd id="payout-invoice">
            <a href={`/v1/payouts/${encodeURIComponent(p.id)}/invoice.pdf`} download={`${p.invoiceNumber}.pdf`} safe>
              {`${p.invoiceNumber} (PDF)`}
            </a>
          </dd>
        </>
      )}
      {!!p.failedAt && (
        <>
          <dt>Failed</dt>
          <dd safe>{`${day(p.failedAt)}: ${p.failureReason ?? ''}`}</dd>
        </>
      )}
    </dl>
  );
}

