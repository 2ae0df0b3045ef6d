// The partner's rewards beyond the base rate: where it stands on each tiered rule (the tier reached
// and what the next one needs, on the home) and the recruits page (its recruiting link with Copy,
// the recruiter share it earns, its recruits with the override commissions each brought).
import { EXPONENTS, scaleDecimal } from '../../lib/money';
import type { TierStanding } from '../../modules/commissions/standing';
import type { Recruit } from '../../modules/reports/rewards';
import { day } from '../layout';
import type { PartnerPage } from '../session';
import { EVENT_WORDS, percentText } from '../terms';
import { attr, EmptyState, formatMoney, NumHead, Trunc } from '../ui';
import { PortalLayout } from './shell';

const every = (eventType: string) => EVENT_WORDS[eventType]?.every ?? `every “${eventType}” event`;

/** What a tier or the base rate pays, in words: "30% of every paid invoice". */
function paysText(s: TierStanding, value: { percent: number | null; amount: string | null }): string {
  return s.kind === 'percent' ? `${percentText(value.percent ?? 0)} of ${every(s.eventType)}` : `${formatMoney(value.amount ?? '0', s.currency)} for ${every(s.eventType)}`;
}

/** Progress toward a threshold as a whole percent, 0-100 (integers and minor units only). */
function progressOf(have: bigint, need: bigint): number {
  if (need <= 0n) return 100;
  const p = (have * 100n) / need;
  return Number(p > 100n ? 100n : p < 0n ? 0n : p);
}

/** A decimal text in major units as minor units of `currency` (0 when unreadable). */
const minor = (text: string, currency: string) => scaleDecimal(text, EXPONENTS[currency] ?? 2, 'round') ?? 0n;

/** One tiered rule: the tier reached now and what the next one needs, with a progress bar per threshold. */
function Standing(props: { s: TierStanding; i: number }) {
  const s = props.s;
  const tier = s.current.tierIndex === null ? 'Base rate' : `Tier ${s.current.tierIndex + 1}`;
  const n = s.next;
  const bars: { label: string; value: number; text: string }[] = [];
  if (n?.minRevenue !== null && n?.minRevenue !== undefined) {
    const need = formatMoney(n.minRevenue, s.currency);
    const have = formatMoney(s.revenue, s.currency);
    const value = progressOf(minor(s.revenue, s.currency), minor(n.minRevenue, s.currency));
    bars.push({ label: 'Revenue', value, text: `${have} of ${need}${n.revenueNeeded && !/^[0.]+$/.test(n.revenueNeeded) ? ` · ${formatMoney(n.revenueNeeded, s.currency)} to go` : ' · reached'}` });
  }
  if (n?.minCustomers !== null && n?.minCustomers !== undefined) {
    const value = progressOf(BigInt(s.customers), BigInt(n.minCustomers));
    bars.push({
      label: 'New customers',
      value,
      text: `${s.customers} of ${n.minCustomers}${n.customersNeeded ? ` · ${n.customersNeeded} to go` : ' · reached'}`,
    });
  }
  return (
    <li class="tier-card" data-campaign={s.campaignId} data-event={s.eventType}>
      <h3 safe>{s.campaignName}</h3>
      <p class="tier-now">
        <span class="badge blue" title={attr(`What you earn now on ${every(s.eventType)}`)} data-tier safe>
          {tier}
        </span>{' '}
        <span safe>{`${paysText(s, s.current)}.`}</span>
      </p>
      <p class="hint" safe>
        {`Over the last ${s.periodDays} days: ${formatMoney(s.revenue, s.currency)} revenue from ${s.customers} new customer${s.customers === 1 ? '' : 's'}.`}
      </p>
      {n ? (
        <div class="tier-next" id={`next-tier-${props.i}`}>
          <p safe>{`Next: Tier ${n.tierIndex + 1}, ${paysText(s, n)}. It needs:`}</p>
          {bars.map((b) => (
            <div class="meter">
              <label>
                <span class="meter-label" safe>
                  {b.label}
                </span>
                <progress max="100" value={String(b.value)} safe>
                  {`${b.value}%`}
                </progress>
              </label>
              <span class="meter-text" safe>
                {b.text}
              </span>
            </div>
          ))}
        </div>
      ) : (
        <p class="tier-top">You are on the highest tier.</p>
      )}
    </li>
  );
}

/** The home's "Your tier" section: one card per tiered rule that can pay the partner; nothing when none. */
export function TierSection(props: { standings: TierStanding[] }) {
  if (props.standings.length === 0) return '';
  return (
    <section aria-labelledby="tier-title" class="portal-section" id="tiers">
      <h2 id="tier-title">Your tier</h2>
      <p class="caption">The more you sell, the more you earn: your revenue and new customers over the period pick the tier each new commission pays.</p>
      <ul class="tier-cards">
        {props.standings.map((s, i) => (
          <Standing s={s} i={i} />
        ))}
      </ul>
    </section>
  );
}

/** A held campaign's recruiter share, for the recruits page's terms. */
export type RecruiterTerm = { campaignId: string; name: string; percent: number };

export function RecruitsPage(props: {
  page: PartnerPage;
  link: string;
  signupOpen: boolean;
  terms: RecruiterTerm[];
  recruits: Recruit[];
  total: number;
}) {
  return (
    <PortalLayout page={props.page} title="Recruits" current="/portal/recruits" scripts={['/assets/copy.js']}>
      <h1>Recruit partners</h1>
      <section aria-labelledby="recruit-link-title" class="portal-section">
        <h2 id="recruit-link-title">Your recruiting link</h2>
        <p>Share it with people who could promote the program too. Whoever signs up through it becomes your recruit.</p>
        <div class="copy recruit-link">
          <label class="vh" for="recruit-url">
            Your recruiting link
          </label>
          <input id="recruit-url" value={props.link} readonly />
          <button type="button" class="secondary" data-copy="#recruit-url">
            Copy
          </button>
        </div>
        {!props.signupOpen && <p class="notice">Signups are closed right now: the link works once the program opens them again.</p>}
        {props.terms.length === 0 ? (
          <p class="hint" id="recruit-terms">The program pays no recruiter share at the moment; recruits still count as yours when it does.</p>
        ) : (
          <ul class="recruit-terms" id="recruit-terms">
            {props.terms.map((t) => (
              <li safe>{`${t.name}: you earn ${percentText(t.percent)} of every commission your recruits earn, as your own commission.`}</li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="recruits-title" class="portal-section">
        <h2 id="recruits-title">Your recruits</h2>
        {props.recruits.length === 0 ? (
          <EmptyState title="No recruits yet" text="Share your recruiting link: partners who sign up through it show up here with what you earned on them." />
        ) : (
          <>
            <div class="table-wrap">
              <table id="recruits" class="stack">
                <caption class="vh">Partners you recruited, newest first, with what you earned on their commissions</caption>
                <thead>
                  <tr>
                    <th scope="col">Recruit</th>
                    <th scope="col">Joined</th>
                    <NumHead label="You earned" />
                  </tr>
                </thead>
                <tbody>
                  {props.recruits.map((r) => (
                    <tr data-id={r.id}>
                      <td class="lead fill">
                        <Trunc text={r.name} />
                      </td>
                      <td data-label="Joined" class="date" safe>
                        {day(r.createdAt.toISOString())}
                      </td>
                      <td class="num money" data-label="You earned" data-stat="earnings" safe>
                        {r.earnings.length === 0 ? 'nothing yet' : r.earnings.map((e) => formatMoney(e.amount, e.currency)).join(' + ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="caption" safe>
              {`Your recruit override commissions, reversed ones left out${props.total > props.recruits.length ? `; the newest ${props.recruits.length} of ${props.total} recruits` : ''}. They follow the same holdback and payouts as your other commissions.`}
            </p>
          </>
        )}
      </section>
    </PortalLayout>
  );
}
