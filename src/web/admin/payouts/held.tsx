// Payouts held by the partner's payout method (a recent change, a Stripe account not ready): how
// many partners and how much, why (reasons counted), and the list of who. When every due payout is
// held, the run page and the payouts list say so instead of "Nothing is due".
import type { RunPreview } from '../../../modules/reports/money';
import { totalsOf } from '../../../modules/reports/money';
import { plural } from '../kit/bulk';
import { totalsText } from '../tables';
import { LIST } from './view';

type Held = RunPreview['held'];

/** Where the list of held partners is: on the run page. */
export const HELD_HREF = `${LIST}/run#run-held`;

/** The reason without its moment ("payout method changed; held until …" -> "payout method changed"). */
const reasonKind = (reason: string) => reason.split(';')[0]!.trim();

/** "2 partners are owed 42.00 USD + 10.00 EUR", and why: "payout method changed (1 partner); Stripe account not ready: onboarding not finished (1 partner)". */
export function heldWords(held: Held): { owed: string; why: string } {
  const partners = new Set(held.map((h) => h.partnerId)).size;
  const owed = `${plural(partners, 'partner is', 'partners are')} owed ${totalsText(totalsOf(held.map((h) => ({ currency: h.currency, amount: h.amount }))))}`;
  const kinds = new Map<string, Set<string>>();
  for (const h of held) {
    const kind = reasonKind(h.reason);
    kinds.set(kind, (kinds.get(kind) ?? new Set()).add(h.partnerId));
  }
  const why = [...kinds].map(([kind, ids]) => `${kind} (${plural(ids.size, 'partner')})`).join('; ');
  return { owed, why };
}

/** Every due payout is held: nothing can be paid now, and why. */
export function AllHeld(props: { held: Held; id: string; listHref?: string; hint?: boolean }) {
  const { owed, why } = heldWords(props.held);
  return (
    <p id={props.id} class={props.hint ? 'hint' : undefined}>
      <span safe>{`Nothing can be paid now: ${owed}, but every one is held by their payout method. Why: ${why}. `}</span>
      <a href={props.listHref ?? '#run-held'}>See who is held</a>
    </p>
  );
}

/** Who is held: each partner (linked to their page, where the method is), what and why. */
export function HeldList(props: { held: Held; paying: boolean }) {
  return (
    <div id="run-held">
      <p class="hint" safe>
        {`${plural(props.held.length, 'payout')} held (the partner's payout method, or a missing tax form), ${props.paying ? 'left for a later run' : 'waiting until the hold ends, the method is ready or the tax form is on file'}:`}
      </p>
      <ul>
        {props.held.map((h) => (
          <li data-held={h.partnerId}>
            <a href={`/admin/partners/${encodeURIComponent(h.partnerId)}`} safe>
              {h.partnerName}
            </a>
            <span safe>{`: ${totalsText([{ currency: h.currency, amount: h.amount }])} — ${h.reason}`}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The payouts list's line on the next run: what is due (and how many are held), or why nothing can be paid. */
export function DueNow(props: { preview: RunPreview }) {
  const p = props.preview;
  if (p.lines.length === 0 && p.held.length > 0) return <AllHeld held={p.held} id="next-run" listHref={HELD_HREF} hint />;
  if (p.lines.length === 0) {
    return (
      <p class="hint" id="next-run">
        Nothing is due now.
      </p>
    );
  }
  const held = new Set(p.held.map((h) => h.partnerId)).size;
  return (
    <p class="hint" id="next-run">
      <span safe>{`Due now: ${totalsText(p.totals)} to ${plural(p.partners, 'partner')} (${plural(p.commissions, 'commission')}).`}</span>
      {held > 0 && (
        <>
          {' '}
          <a href={HELD_HREF} safe>{`${plural(held, 'partner')} held`}</a>
        </>
      )}
    </p>
  );
}
