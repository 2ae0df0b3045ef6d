// An event's page (GET /admin/events/:id): its facts, the commissions it earned and their amount
// changes, the partners credited and the user's referral touches.
import type { EventDetail } from '../../../modules/reports/money';
import type { AdminPage } from '../../session';
import { Badge, formatMoney, Trunc, NumHead } from '../../ui';
import { AdminLayout, NotFoundPage } from '../kit';
import { CommissionsTable } from '../tables';
import { attributionBadge } from './badge';
import { LIST, minute } from './filter';

/** The event's page as HTML. */
export const eventView = (page: AdminPage, detail: EventDetail) => (<EventPage page={page} detail={detail} />) as string;

/** The answer for an unknown event id, as HTML. */
export const eventNotFound = (page: AdminPage) => (<NotFoundPage page={page} what="event" back={LIST} />) as string;

function EventPage(props: { page: AdminPage; detail: EventDetail }) {
  const { event: e, attributions, touches, commissions } = props.detail;
  const metadata = JSON.stringify(e.metadata, null, 2);
  const partners = new Map(commissions.map((c) => [c.partnerId, c.partnerName]));
  const campaigns = new Map(commissions.map((c) => [c.campaignId, c.campaignName]));
  // a recruit override shares its event with the recruit's commission: the recruit is on this page
  const overrides = new Map(
    commissions.flatMap((c) => {
      const source = c.sourceCommissionId ? commissions.find((s) => s.id === c.sourceCommissionId) : undefined;
      return source ? [[c.id, { id: source.partnerId, name: source.partnerName }] as const] : [];
    }),
  );
  return (
    <AdminLayout page={props.page} title="Event" current={LIST}>
      <p class="back">
        <a href={LIST}>Events</a>
      </p>
      <h1 safe>{`${e.type} from ${e.userId}`}</h1>
      <EventFacts event={e} />
      {metadata !== '{}' && (
        <details>
          <summary>Metadata</summary>
          <pre class="response" safe>
            {metadata}
          </pre>
        </details>
      )}
      <h2>Commissions</h2>
      {commissions.length === 0 ? (
        <p class="empty">No commission: {e.attributionStatus === 'attributed' ? 'no campaign rule matched this event for the credited partners.' : 'the event was not attributed.'}</p>
      ) : (
        <CommissionsTable commissions={commissions} names={{ partners, campaigns, overrides }} caption="Commissions this event earned" />
      )}
      {props.detail.adjustments.length > 0 && <AmountChanges changes={props.detail.adjustments} />}
      <h2>Attributions</h2>
      {attributions.length === 0 ? (
        <p class="empty" id="attribution-empty" safe>
          {e.attributionStatus === 'no_click' && props.detail.filteredClicks.length > 0 ? filteredWhy(props.detail.filteredClicks) : attributionBadge(e.attributionStatus).title}
        </p>
      ) : (
        <AttributionsTable attributions={attributions} />
      )}
      {touches.length > 0 && (
        <>
          <h2>Referral touches of this user</h2>
          <p class="hint">The clicks (or the promotion code) recorded at the user's first attributed event; later events of the user are credited to them again.</p>
          <TouchesTable touches={touches} />
        </>
      )}
    </AdminLayout>
  );
}

/** Each click filter in words: on its own (`only`), and counted (`a` for one click, `many` for more). */
const FILTER_WORDS: Record<string, { only: string; a: string; many: string }> = {
  bot_click: { only: 'as a bot (its user agent is a crawler or script)', a: 'as a bot', many: 'as bots' },
  click_flood: { only: 'as a click flood (too many clicks from one network)', a: 'as a click flood', many: 'as a click flood' },
};

/** Why a user with partner clicks found none to credit: which filter kept each click out. */
export function filteredWhy(clicks: EventDetail['filteredClicks']): string {
  const byReason = new Map<string, number>();
  for (const c of clicks) byReason.set(c.reason, (byReason.get(c.reason) ?? 0) + 1);
  if (clicks.length === 1) {
    const c = clicks[0]!;
    return `Not attributed: the user's only partner click (through ${c.partnerName}) was filtered ${FILTER_WORDS[c.reason]?.only ?? c.reason}, so it earns no credit.`;
  }
  const parts = [...byReason].map(([reason, n]) => `${n} ${(n === 1 ? FILTER_WORDS[reason]?.a : FILTER_WORDS[reason]?.many) ?? reason.replace(/_/g, ' ')}`);
  return `Not attributed: all ${clicks.length} of the user's partner clicks were filtered (${parts.join(', ')}), so none earns credit.`;
}

/** The event's facts: attribution, amount, times, source, ids. */
function EventFacts(props: { event: EventDetail['event'] }) {
  const e = props.event;
  return (
    <dl class="facts">
      <dt>Attribution</dt>
      <dd>
        <Badge {...attributionBadge(e.attributionStatus)} id="event-status" />
        {!!e.attributionModel && <span class="note" safe>{e.attributionModel.replace(/_/g, ' ')}</span>}
      </dd>
      <dt>Amount</dt>
      <dd class="money">
        {e.amount !== null && e.currency ? <span safe>{formatMoney(e.amount, e.currency)}</span> : '–'}
      </dd>
      <dt>Occurred</dt>
      <dd safe>{`${minute(e.occurredAt)} UTC`}</dd>
      <dt>Received</dt>
      <dd safe>{`${minute(e.receivedAt)} UTC`}</dd>
      <dt>Source</dt>
      <dd safe>{e.source}</dd>
      <dt>Event id</dt>
      <dd>
        <code safe>{e.id}</code>
      </dd>
      {!!e.idempotencyKey && (
        <>
          <dt>Idempotency key</dt>
          <dd>
            <code safe>{e.idempotencyKey}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The partners credited with the event, each with its share. */
function AttributionsTable(props: { attributions: EventDetail['attributions'] }) {
  return (
    <div class="table-wrap">
      <table id="attributions" class="stack">
        <caption class="vh">Partners credited with this event</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <th scope="col">Campaign</th>
            <th scope="col">Click or code</th>
            <th scope="col">Model</th>
            <NumHead label="Share" />
          </tr>
        </thead>
        <tbody>
          {props.attributions.map((a) => (
            <tr>
              <td class="lead">
                <Trunc text={a.partnerName} href={`/admin/partners/${encodeURIComponent(a.partnerId)}`} />
              </td>
              <td data-label="Campaign">
                <Trunc text={a.campaignName} />
              </td>
              <td data-label="Click or code">
                <TouchSource clickId={a.clickId} couponCode={a.couponCode} />
              </td>
              <td data-label="Model" safe>
                {a.model.replace(/_/g, ' ')}
              </td>
              <td class="num" data-label="Share" safe>
                {`${Math.round(a.weight * 1000) / 10}%`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The user's referral touches, recorded at its first attributed event. */
function TouchesTable(props: { touches: EventDetail['touches'] }) {
  return (
    <div class="table-wrap">
      <table id="touches" class="stack">
        <caption class="vh">Referral touches</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <th scope="col">Campaign</th>
            <th scope="col">Click or code</th>
            <NumHead label="Weight" />
          </tr>
        </thead>
        <tbody>
          {props.touches.map((t) => (
            <tr>
              <td class="lead">
                <Trunc text={t.partnerName} href={`/admin/partners/${encodeURIComponent(t.partnerId)}`} />
              </td>
              <td data-label="Campaign">
                <Trunc text={t.campaignName} />
              </td>
              <td data-label="Click or code">
                <TouchSource clickId={t.clickId} couponCode={t.couponCode} />
              </td>
              <td class="num" data-label="Weight" safe>
                {`${t.weightNum}/${t.weightDen}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Why a commission's amount is below what it accrued: each reduction, who made it and why. */
function AmountChanges(props: { changes: EventDetail['adjustments'] }) {
  return (
    <>
      <h3>Amount changes</h3>
      <p class="hint">Money that came back on this payment lowered its commissions in proportion; a paid one owes the difference back in the next payout.</p>
      <div class="table-wrap">
        <table id="amount-changes" class="stack">
          <caption class="vh">Amount changes of these commissions</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Partner</th>
              <NumHead label="Before" />
              <NumHead label="After" />
              <th scope="col">Why</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {props.changes.map((c) => (
              <tr>
                <td class="lead" safe>{`${minute(c.at)} UTC`}</td>
                <td data-label="Partner">
                  <Trunc text={c.partnerName} />
                </td>
                <td class="num" data-label="Before" safe>
                  {formatMoney(c.before, c.currency)}
                </td>
                <td class="num" data-label="After" safe>
                  {formatMoney(c.after, c.currency)}
                </td>
                <td data-label="Why" safe>
                  {c.detail ? `${c.reason.replace(/_/g, ' ')}: ${c.detail}` : c.reason.replace(/_/g, ' ')}
                </td>
                <td data-label="By" safe>
                  {c.actor}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** What credited a touch: its click, or the promotion code the customer used. */
function TouchSource(props: { clickId: string | null; couponCode: string | null }) {
  if (props.clickId !== null) return <Trunc text={props.clickId} />;
  return (
    <span class="touch-code">
      Code{' '}
      <code class="promo-code" safe>
        {props.couponCode ?? ''}
      </code>
    </span>
  );
}
