// What each flag of one commission rests on: clicks, network hashes, emails, the amount against
// the threshold, the other partner.
import type { ReviewItem } from '../../../modules/fraud/review';
import { formatMoney } from '../../ui';
import { plural, shortHash, when } from './labels';

/** What each flag of one commission rests on. */
export function Evidence(props: { item: ReviewItem }) {
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
          <ClicksTable clicks={item.clicks} uncredited={uncredited} />
        )}
      </dd>
    </dl>
  );
}

/** The customer's clicks through the partner, those left uncredited marked. */
function ClicksTable(props: { clicks: ReviewItem['clicks']; uncredited: Set<string> }) {
  const { uncredited } = props;
  return (
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
          {props.clicks.map((c) => (
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
  );
}
