// The portal's "How you are paid" page (/portal/payouts/method): the partner chooses PayPal, Wise,
// Stripe (Express onboarding, which comes back to /portal/payouts/stripe/return or /refresh) or by
// hand, and sees where the next payout goes and when. Every change is emailed and held
// (workflows/payout-method.ts).
import { Elysia } from 'elysia';
import type { RailName } from '../../../plugins/payouts';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { refuseCrossSite } from '../../modules/auth/plugin';
import { methodRow, methodView, type PayoutMethod } from '../../modules/payouts/methods';
import { refreshStripeReadiness, setPayoutMethod, stripeOnboardingLink } from '../../workflows/payout-method';
import { refuseBadToken } from '../csrf';
import { CsrfInput, formFields } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { RefusedPage, RevokedPage } from './pages';
import { PortalLayout } from './shell';

const PATH = '/portal/payouts/method';

const CHOICES: { type: RailName; label: string; hint: string }[] = [
  { type: 'paypal', label: 'PayPal', hint: 'Paid to the PayPal account of this email.' },
  { type: 'wise', label: 'Wise', hint: 'Paid by Wise to this email, in your currency.' },
  { type: 'stripe', label: 'Stripe', hint: 'Paid to your bank through a Stripe Express account you set up on Stripe.' },
  { type: 'manual', label: 'By hand', hint: 'The program pays you itself and tells you how.' },
];

/** Where the next payout goes and when, in a sentence. */
export function methodSentence(method: PayoutMethod): string {
  const label = CHOICES.find((c) => c.type === method.type)?.label;
  const where = !method.type
    ? 'You have not chosen how you are paid: the program pays you by hand.'
    : method.type === 'stripe'
      ? method.ready
        ? 'Your next payout goes to your Stripe account.'
        : 'Stripe is chosen, but your Stripe account is not ready: finish Stripe’s setup, or payouts wait.'
      : method.email
        ? `Your next payout goes by ${label} to ${method.email}.`
        : `Your next payout is paid ${label?.toLowerCase()}.`;
  const held = method.heldUntil ? ` Payouts wait until ${method.heldUntil.slice(0, 16).replace('T', ' ')} UTC because the method changed.` : '';
  return where + held;
}

export function payoutMethodPortalRoutes(ctx: AppContext) {
  const withPartner = async (request: Request, view: (page: PartnerPage) => Response | Promise<Response>) => {
    const guard = await guardPartner(ctx, request);
    if (guard.kind === 'signed-out') return seeOther('/portal/sign-in');
    if (guard.kind === 'revoked') return render(<RevokedPage reason={guard.reason} />, { status: 403 });
    return view(guard.page);
  };
  const page = async (p: PartnerPage, extra: { done?: string; error?: string; values?: { type?: string; email?: string } }, status = 200) =>
    render(<MethodPage page={p} method={methodView(await methodRow(ctx.sql, p.partner.id), true)} stripeOn={ctx.payoutProvider.connect !== null} {...extra} />, { status });
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) => withPartner(request, (p) => page(p, { done: (query as Record<string, string>).done })))
    .post(PATH, ({ request, body }) =>
      withPartner(request, async (p) => {
        const form = formFields(body);
        try {
          refuseCrossSite(ctx, request);
          refuseBadToken(p.sessionToken, form);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return render(<RefusedPage message={error.message} back={PATH} />, { status: error.status });
        }
        const type = form.type as RailName;
        const email = (form.email ?? '').trim();
        if (!CHOICES.some((c) => c.type === type)) return page(p, { error: 'Choose how you are paid.', values: form }, 400);
        const needsEmail = type === 'paypal' || type === 'wise';
        if (needsEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return page(p, { error: 'Enter the email of the account to pay.', values: form }, 400);
        try {
          const set = await setPayoutMethod(ctx, {
            partnerId: p.partner.id,
            choice: needsEmail ? { type, email } : { type },
            actor: `partner:${p.partner.id}`,
            own: true,
          });
          // the page's form-action policy keeps a form's redirect on this site: Stripe opens from a link
          return seeOther(`${PATH}?done=${set.onboardingUrl ? (set.ready ? 'stripe-ready' : 'stripe-start') : 'saved'}`);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return page(p, { error: error.message, values: form }, error.status);
        }
      }),
    )
    .get('/portal/payouts/stripe/return', ({ request }) =>
      withPartner(request, async (p) => {
        const method = await refreshStripeReadiness(ctx, p.partner.id).catch(() => null);
        return seeOther(`${PATH}?done=${method?.ready ? 'stripe-ready' : 'stripe-pending'}`);
      }),
    )
    .get('/portal/payouts/stripe/refresh', ({ request }) =>
      withPartner(request, async (p) => {
        const link = await stripeOnboardingLink(ctx, p.partner.id).catch(() => null);
        return seeOther(link ?? `${PATH}?done=stripe-pending`);
      }),
    );
}

const DONE: Record<string, { kind: 'ok' | 'error'; text: string }> = {
  saved: { kind: 'ok', text: 'Saved. We emailed you about the change.' },
  'stripe-start': { kind: 'ok', text: 'Your Stripe account is opened. Continue the setup on Stripe: payouts go there once Stripe has checked it.' },
  'stripe-ready': { kind: 'ok', text: 'Your Stripe account is ready: payouts go there.' },
  'stripe-pending': { kind: 'error', text: 'Stripe has not finished checking your account yet. Continue the setup, or come back later.' },
};

function MethodPage(props: { page: PartnerPage; method: PayoutMethod; stripeOn: boolean; done?: string; error?: string; values?: { type?: string; email?: string } }) {
  const m = props.method;
  const chosen = props.values?.type ?? m.type ?? '';
  const email = props.values?.email ?? m.email ?? '';
  const done = props.done ? DONE[props.done] : undefined;
  return (
    <PortalLayout page={props.page} title="How you are paid" current="/portal/payouts">
      <div class="narrow">
        <h1>How you are paid</h1>
        {!!done && <Notice kind={done.kind} text={done.text} />}
        {!!props.error && <Notice kind="error" text={props.error} />}
        <p id="next-payout" safe>
          {methodSentence(m)}
        </p>
        {m.type === 'stripe' && !m.ready && (
          <p>
            <a class="button" href="/portal/payouts/stripe/refresh">
              Continue Stripe setup
            </a>
          </p>
        )}
        <form method="post" action={PATH} id="payout-method">
          <CsrfInput token={props.page.csrf} />
          <fieldset>
            <legend>Pay me by</legend>
            <ul class="switches">
              {CHOICES.filter((c) => c.type !== 'stripe' || props.stripeOn).map((c) => (
                <li>
                  <label>
                    <input type="radio" name="type" value={c.type} checked={chosen === c.type} />
                    <span>
                      <strong safe>{c.label}</strong>
                      <small safe>{c.hint}</small>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <label>
            Email of the PayPal or Wise account
            <input type="email" name="email" value={email} autocomplete="email" maxlength={254} />
          </label>
          <p class="hint">A change is emailed to you, and payouts wait a while after it, so nobody can move your money quietly.</p>
          <button type="submit">Save how I am paid</button>
        </form>
      </div>
    </PortalLayout>
  );
}
