// Tables several admin pages share: commissions, payouts, links.
import type { Children } from '@kitajs/html';
import type { Commission } from '../../modules/commissions/service';
import type { Link } from '../../modules/links/service';
import type { PayoutView } from '../../modules/payouts/service';
import { day } from './kit';

/** Ids to names for the tables' partner and campaign columns. */
export type Names = { partners?: Map<string, string>; campaigns?: Map<string, string> };

export function CommissionsTable(props: {
  commissions: Commission[];
  names: Names;
  /** A leading cell per row (the bulk-approve checkbox). */
  select?: (c: Commission) => Children;
  /** A trailing cell per row (the row's actions). */
  actions?: (c: Commission) => Children;
}) {
  return (
    <div class="table-wrap">
      <table id="commissions" class="stack">
        <thead>
          <tr>
            {!!props.select && <th>Select</th>}
            <th>Date</th>
            <th>Partner</th>
            <th>Campaign</th>
            <th>Event</th>
            <th class="num">Amount</th>
            <th>Status</th>
            {!!props.actions && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {props.commissions.map((c) => (
            <tr data-id={c.id}>
              {!!props.select && <td>{props.select(c)}</td>}
              <td safe>{day(c.createdAt)}</td>
              <td>
                <a href={`/admin/partners/${encodeURIComponent(c.partnerId)}`} safe>
                  {props.names.partners?.get(c.partnerId) ?? c.partnerId}
                </a>
              </td>
              <td safe>{props.names.campaigns?.get(c.campaignId) ?? c.campaignId}</td>
              <td safe>{c.eventType}</td>
              <td class="num" safe>
                {`${c.amount} ${c.currency}`}
              </td>
              <td>
                <span class={`status ${c.status}`}>
                  {c.status}
                </span>
                {!!c.reason && <small safe>{` (${c.reason})`}</small>}
              </td>
              {!!props.actions && <td>{props.actions(c)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PayoutsTable(props: { payouts: PayoutView[]; names: Names; actions?: (p: PayoutView) => Children }) {
  return (
    <div class="table-wrap">
      <table id="payouts" class="stack">
        <thead>
          <tr>
            <th>Date</th>
            <th>Partner</th>
            <th class="num">Amount</th>
            <th class="num">Commissions</th>
            <th>Status</th>
            <th>Paid</th>
            {!!props.actions && <th>Actions</th>}
          </tr>
        </thead>
        <tbody>
          {props.payouts.map((p) => (
            <tr data-id={p.id}>
              <td safe>{day(p.createdAt)}</td>
              <td>
                <a href={`/admin/partners/${encodeURIComponent(p.partnerId)}`} safe>
                  {props.names.partners?.get(p.partnerId) ?? p.partnerId}
                </a>
              </td>
              <td class="num" safe>
                {`${p.amount} ${p.currency}`}
              </td>
              <td class="num">{p.commissionCount}</td>
              <td>
                <span class={`status ${p.status}`}>
                  {p.status}
                </span>
                {!!p.failureReason && <small safe>{` (${p.failureReason})`}</small>}
              </td>
              <td safe>{day(p.paidAt)}</td>
              {!!props.actions && <td>{props.actions(p)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function LinksTable(props: { links: Link[]; names: Names }) {
  return (
    <div class="table-wrap">
      <table id="links" class="stack">
        <thead>
          <tr>
            <th>Link</th>
            <th>Campaign</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.links.map((l) => (
            <tr data-slug={l.slug}>
              <td safe>{l.url}</td>
              <td safe>{props.names.campaigns?.get(l.campaignId) ?? l.campaignId}</td>
              <td safe>{day(l.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
