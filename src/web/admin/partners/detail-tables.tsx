// Admin partners: the tables of one partner's page (links, referred customers, recruits).
import { QrLink } from '../../kit/qr-link';
import { type Recruit } from '../../../modules/reports/rewards';
import { type CustomerState, type LinkStatsRow, type PartnerMoney, type ReferredCustomer } from '../../../modules/reports/partners';
import { attr, Badge, formatMoney, MoneyCell, partnerBadge, Trunc, type Tone, NumHead } from '../../ui';
import { detailPath, epcText, isoDay } from './shared';
import { LinkStatsFrame } from '../../kit/link-stats';
import { trafficPath } from '../traffic';

const CUSTOMER_STATES: Record<CustomerState, { tone: Tone; label: string; title: string }> = {
  active: { tone: 'green', label: 'Active', title: 'Active customer: commissions earned, none refunded' },
  refunded: { tone: 'amber', label: 'Refunded', title: 'Some payments were refunded or charged back: those commissions are reversed' },
  reversed: { tone: 'red', label: 'Reversed', title: 'Every commission for this customer was reversed' },
  no_commission: { tone: 'grey', label: 'No commission', title: 'Converted, but no commission rule paid for these events' },
};

export function LinkStatsTable(props: { links: LinkStatsRow[]; baseUrl: string; currency: string; campaigns: Map<string, string>; caption: string }) {
  const cur = props.currency;
  return (
    <LinkStatsFrame
      links={props.links}
      caption={props.caption}
      heads={
        <>
          <th scope="col">Campaign</th>
          <NumHead label="Clicks" />
          <NumHead label="Conversions" />
          <NumHead label="Revenue" />
          <NumHead label="Commissions" />
          <NumHead label="EPC" />
        </>
      }
      copy={(l) => {
        const url = `${props.baseUrl}/r/${l.slug}`;
        return (
          <span class="copy">
            <input id={`url-${l.id}`} class="vh" value={url} readonly tabindex="-1" aria-hidden="true" data-link-url />
            <a class="trunc" href={url} title={attr(url)} safe>
              {`/r/${l.slug}`}
            </a>
            <button type="button" class="secondary small" data-copy={`#url-${l.id}`} aria-label={attr(`Copy ${url}`)}>
              Copy
            </button>
            <QrLink id={l.id} slug={l.slug} />
            <a class="small" href={trafficPath({ linkId: l.id })} aria-label={attr(`Traffic of /r/${l.slug}`)}>
              Traffic
            </a>
          </span>
        );
      }}
      cells={(l) => (
        <>
          <td data-label="Campaign">
            <Trunc text={props.campaigns.get(l.campaignId) ?? l.campaignId} />
          </td>
          <td class="num" data-label="Clicks" safe>
            {l.clicks.toLocaleString('en-US')}
          </td>
          <td class="num" data-label="Conversions" safe>
            {l.conversions.toLocaleString('en-US')}
          </td>
          <MoneyCell amount={l.revenue} currency={cur} label="Revenue" />
          <td class="num figure" data-label="Commissions" safe>
            {formatMoney(l.commissions, cur)}
          </td>
          <td class="num figure" data-label="EPC" safe>
            {epcText(l.commissions, l.clicks, cur)}
          </td>
        </>
      )}
    />
  );
}

export function CustomersTable(props: { customers: ReferredCustomer[]; currency: string; caption: string }) {
  const cur = props.currency;
  return (
    <div class="table-wrap">
      <table id="customers" class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Status</th>
            <th scope="col">First sale</th>
            <th scope="col">Last sale</th>
            <NumHead label="Sales" title="The customer's sales credited to the partner, renewals included" />
            <NumHead label="Revenue" />
            <NumHead label="Commissions" />
          </tr>
        </thead>
        <tbody>
          {props.customers.map((u) => (
            <tr data-user={u.userId}>
              <td class="lead">
                <Trunc text={u.userId} />
              </td>
              <td class="badge-cell" data-label="Status">
                <Badge {...CUSTOMER_STATES[u.state]} />
              </td>
              <td data-label="First sale" class="date" safe>
                {isoDay(u.firstAt)}
              </td>
              <td data-label="Last sale" class="date" safe>
                {isoDay(u.lastAt)}
              </td>
              <td class="num" data-label="Sales" safe>
                {u.conversions.toLocaleString('en-US')}
              </td>
              <MoneyCell amount={u.revenue} currency={cur} label="Revenue" />
              <td class="num figure" data-label="Commissions" safe>
                {formatMoney(u.commissions, cur)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The partners this one recruited, with the override commissions it earned on each. */
export function RecruitsSection(props: { recruits: { recruits: Recruit[]; total: number }; name: string }) {
  const r = props.recruits;
  return (
    <section aria-labelledby="recruits-title" id="recruits">
      <h2 id="recruits-title">Recruits</h2>
      <p class="caption">Partners this one recruited. It earns each campaign's recruiter percent of their commissions, as its own "recruit override" commissions; reversed ones are left out.</p>
      {r.recruits.length === 0 ? (
        <p class="empty">No recruits yet.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table id="recruits-table" class="stack">
              <caption class="vh" safe>
                {`Partners ${props.name} recruited, newest first`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Recruit</th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                  <NumHead label="Override earnings" />
                </tr>
              </thead>
              <tbody>
                {r.recruits.map((x) => (
                  <tr data-id={x.id}>
                    <td class="lead fill">
                      <Trunc text={x.name} href={detailPath(x.id)} />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...partnerBadge(x)} />
                    </td>
                    <td data-label="Joined" class="date" safe>
                      {isoDay(x.createdAt)}
                    </td>
                    <td class="num money" data-label="Override earnings" data-stat="earnings" safe>
                      {x.earnings.length === 0 ? 'nothing yet' : x.earnings.map((e) => formatMoney(e.amount, e.currency)).join(' + ')}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {r.total > r.recruits.length && <p class="hint" safe>{`The newest ${r.recruits.length} of ${r.total.toLocaleString('en-US')} recruits.`}</p>}
        </>
      )}
    </section>
  );
}

/** The partner's revenue and commissions by status, one row per currency (never converted). */
export function MoneyByStatusTable(props: { money: PartnerMoney[]; rangeLabel: string }) {
  return props.money.length === 0 ? (
    <p class="empty">No revenue or commissions in this period.</p>
  ) : (
    <div class="table-wrap">
      <table id="money" class="stack">
        <caption class="vh" safe>
          {`Revenue and commissions by status per currency, ${props.rangeLabel.toLowerCase()}`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Currency</th>
            <NumHead label="Revenue" />
            <NumHead label="Pending" />
            <NumHead label="Approved" />
            <NumHead label="Paid" />
            <NumHead label="Reversed" />
          </tr>
        </thead>
        <tbody>
          {props.money.map((m) => (
            <tr data-currency={m.currency}>
              <td class="lead" safe>
                {m.currency}
              </td>
              <MoneyCell amount={m.revenue} currency={m.currency} label="Revenue" />
              <td class="num figure" data-label="Pending" safe>
                {formatMoney(m.accrued, m.currency)}
              </td>
              <td class="num figure" data-label="Approved" safe>
                {formatMoney(m.approved, m.currency)}
              </td>
              <td class="num figure" data-label="Paid" safe>
                {formatMoney(m.paid, m.currency)}
              </td>
              <td class="num figure" data-label="Reversed" safe>
                {formatMoney(m.reversed, m.currency)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
