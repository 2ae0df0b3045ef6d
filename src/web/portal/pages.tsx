// The partner portal's pages: views only; the routes in ./index.tsx load the data from the services.
import type { Commission } from '../../modules/commissions/service';
import type { PayoutView } from '../../modules/payouts/service';
import { CsrfInput, Field, type FormErrors } from '../forms';
import type { PageBrand } from '../brand';
import { answerMax, type ApplicationQuestion } from '../../lib/questions';
import { AuthLayout } from '../auth-layout';
import { day, Layout, Notice } from '../layout';
import type { PartnerPage } from '../session';
import { attr, Badge, EmptyState, MoneyCell, Pager, payoutBadge, NumHead } from '../ui';
import { CommissionTable, TermsList } from './home';
import { PortalLayout, TaxHoldNote } from './shell';
import { payoutNext, type CampaignTerms, type PayoutOutlook } from './terms';

export { PortalLayout };

// ---------------------------------------------------------------------------------------------
// Signed out

export function SignInPage(props: { csrf: string; email?: string; errors?: FormErrors; sent?: string; signupOpen: boolean; brand?: PageBrand }) {
  return (
    <AuthLayout title="Sign in" brand={props.brand}>
      <div>
        <h1>Partner sign-in</h1>
        {!!props.sent && <Notice kind="ok" text={props.sent} />}
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <p>Enter your email and we will send you a sign-in link.</p>
        <form method="post" action="/portal/sign-in" novalidate>
          <CsrfInput token={props.csrf} />
          <Field name="email" label="Email" type="email" value={props.email} error={props.errors?.email} required autocomplete="email" />
          <button type="submit">Send sign-in link</button>
        </form>
        {!!props.signupOpen && (
          <p>
            New here? <a href="/portal/sign-up">Become a partner</a>.
          </p>
        )}
      </div>
    </AuthLayout>
  );
}

/** The program's pitch on the signup page: its live campaigns' terms and the payout terms. */
export type ProgramPitch = { terms: CampaignTerms[]; payoutTerms: string };

/** The signup form's values: the account fields and, under review, the signup questions. */
export type SignUpValues = { email?: string; name?: string; answers?: Record<string, string>; ref?: string };

export function SignUpPage(props: {
  csrf: string;
  pitch: ProgramPitch;
  /** review: the questions are asked and the partner waits for an admin. */
  mode: 'open' | 'review';
  /** The program's signup questions (settings.applicationQuestions), asked under review. */
  questions: ApplicationQuestion[];
  values?: SignUpValues;
  errors?: FormErrors;
  sent?: string;
  brand?: PageBrand;
}) {
  if (props.sent) {
    // done: the form is not shown again, the next step is in the inbox
    return props.mode === 'review' ? (
      <AuthLayout title="Application received" brand={props.brand}>
        <div class="done-state" id="application-received">
          <h1>Application received</h1>
          <Notice kind="ok" text={props.sent} />
          <p>We read every application. If it is approved, you get an email with a link to activate your account; if not, an email saying why.</p>
          <p>
            <a href="/portal/sign-in">Go to sign-in</a>
          </p>
        </div>
      </AuthLayout>
    ) : (
      <AuthLayout title="Check your inbox" brand={props.brand}>
        <div class="done-state">
          <h1>Check your inbox</h1>
          <Notice kind="ok" text={props.sent} />
          <p>The link works once and for 15 minutes. Nothing arrived? Look in the spam folder, or ask for a new link on the sign-in page.</p>
          <p>
            <a href="/portal/sign-in">Go to sign-in</a>
          </p>
        </div>
      </AuthLayout>
    );
  }
  const review = props.mode === 'review';
  const v = props.values ?? {};
  const e = props.errors ?? {};
  return (
    <AuthLayout title={review ? 'Apply to become a partner' : 'Become a partner'} brand={props.brand}>
      <div>
        <h1>{review ? 'Apply to become a partner' : 'Become a partner'}</h1>
        <section class="pitch" aria-labelledby="pitch-title">
          <h2 id="pitch-title">What you earn</h2>
          <p>Share your links; every customer they bring earns you a commission on these terms:</p>
          <TermsList terms={props.pitch.terms} empty="The program has no live campaign at the moment; sign up and you will see its terms here once it has." />
          <p class="payout-terms" id="payout-terms" safe>
            {props.pitch.payoutTerms}
          </p>
        </section>
        <h2>{review ? 'Apply' : 'Sign up'}</h2>
        {review && (
          <p>
            Every application is reviewed by the program. Tell us a little about how you would promote it;
            {props.questions.some((q) => q.required) ? ' questions marked (required) need an answer.' : ' every question is optional.'}
          </p>
        )}
        {!!e._form && <Notice kind="error" text={e._form} />}
        <form method="post" action="/portal/sign-up" novalidate>
          <CsrfInput token={props.csrf} />
          {!!v.ref && <input type="hidden" name="ref" value={v.ref} />}
          <Field name="name" label="Name" value={v.name} error={e.name} required autocomplete="name" />
          <Field name="email" label="Email" type="email" value={v.email} error={e.email} required autocomplete="email" />
          {review && props.questions.length > 0 && (
            <fieldset class="questions">
              <legend>About you</legend>
              {props.questions.map((q) => (
                <Question question={q} value={v.answers?.[q.key]} error={e[q.key]} />
              ))}
            </fieldset>
          )}
          <button type="submit">{review ? 'Send application' : 'Sign up'}</button>
        </form>
        <p>
          Already a partner? <a href="/portal/sign-in">Sign in</a>.
        </p>
      </div>
    </AuthLayout>
  );
}

/** One signup question as its type asks: an address, a line, or a few lines. */
function Question(props: { question: ApplicationQuestion; value?: string; error?: string }) {
  const q = props.question;
  const label = q.required ? `${q.label} (required)` : q.label;
  if (q.type === 'text') return <AnswerArea name={q.key} label={label} hint={q.hint ?? ''} value={props.value} error={props.error} max={answerMax(q)} />;
  return (
    <Field
      name={q.key}
      label={label}
      type={q.type === 'url' ? 'url' : 'text'}
      value={props.value}
      error={props.error}
      hint={q.hint}
      autocomplete={q.type === 'url' ? 'url' : 'off'}
    />
  );
}

/** A long answer: label above, hint below it, error below the box. */
function AnswerArea(props: { name: string; label: string; hint: string; value?: string; error?: string; max: number }) {
  const id = `f-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id} safe>
        {props.label}
      </label>
      {!!props.hint && (
        <small id={`${id}-hint`} safe>
          {props.hint}
        </small>
      )}
      <textarea id={id} name={props.name} rows="3" maxlength={String(props.max)} aria-invalid={props.error ? 'true' : undefined} aria-describedby={described || undefined} safe>
        {props.value ?? ''}
      </textarea>
      {!!props.error && (
        <p class="error" id={`${id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}

export function SignupClosedPage(props: { brand?: PageBrand } = {}) {
  return (
    <AuthLayout title="Signup closed" brand={props.brand}>
      <h1>Signup is closed</h1>
      <p>This partner program takes new partners by invitation only.</p>
      <p>
        <a href="/portal/sign-in">Sign in</a>
      </p>
    </AuthLayout>
  );
}

export function RevokedPage(props: { reason: string | null }) {
  return (
    <Layout title="Account suspended">
      <div class="narrow">
        <h1>Your partner account is suspended</h1>
        {props.reason ? (
          <p>
            Reason: <span class="reason" safe>{props.reason}</span>
          </p>
        ) : (
          <p>No reason was given.</p>
        )}
      </div>
    </Layout>
  );
}

/** An invite or sign-in link that is expired or used: a new one is one email field away. */
export function LinkExpiredPage(props: { csrf: string; brand?: PageBrand }) {
  return (
    <AuthLayout title="Link expired" brand={props.brand}>
      <h1>This link has expired or was already used</h1>
      <p>Invite and sign-in links work once and for 15 minutes. Enter your email and we will send you a new one.</p>
      <form method="post" action="/portal/sign-in" novalidate id="new-link">
        <CsrfInput token={props.csrf} />
        <Field name="email" label="Email" type="email" required autocomplete="email" />
        <button type="submit">Send me a new link</button>
      </form>
    </AuthLayout>
  );
}

/** A refused form post (CSRF): says what happened, changes nothing. */
export function RefusedPage(props: { message: string; back: string }) {
  return (
    <Layout title="Request refused">
      <div class="narrow">
        <h1>Request refused</h1>
        <Notice kind="error" text={props.message} />
        <p>
          <a href={props.back}>Go back</a>
        </p>
      </div>
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Signed in: the lists

export const LIST_SIZE = 50;

export function CommissionsPage(props: {
  page: PartnerPage;
  commissions: Commission[];
  total: number;
  pageNumber: number;
  campaignNames: Map<string, string>;
  outlook: PayoutOutlook;
}) {
  return (
    <PortalLayout page={props.page} title="Commissions" current="/portal/commissions">
      <h1>Commissions</h1>
      {props.total === 0 ? (
        <EmptyState title="No commissions yet" text="Share your links: each sale they bring shows up here, pending first, then approved and paid." action={{ href: '/portal/links', label: 'Your links' }} />
      ) : (
        <>
          <CommissionTable id="commissions" commissions={props.commissions} campaignNames={props.campaignNames} outlook={props.outlook} caption="Your commissions, newest first" />
          <Pager path="/portal/commissions" query={{}} page={props.pageNumber} size={LIST_SIZE} total={props.total} shown={props.commissions.length} />
        </>
      )}
    </PortalLayout>
  );
}

export function PayoutsPage(props: { page: PartnerPage; payouts: PayoutView[]; total: number; pageNumber: number; outlook: PayoutOutlook; payoutTerms: string; method: string }) {
  return (
    <PortalLayout page={props.page} title="Payouts" current="/portal/payouts">
      <h1>Payouts</h1>
      <TaxHoldNote page={props.page} />
      <p class="payout-method" id="payout-method-summary">
        <span safe>{props.method}</span> <a href="/portal/payouts/method">Change how you are paid</a>
      </p>
      <p class="payout-terms" safe>
        {props.payoutTerms}
      </p>
      {props.total === 0 ? (
        <EmptyState title="No payouts yet" text="Approved commissions are paid out on the next payout run once they reach the minimum." />
      ) : (
        <>
          <div class="table-wrap">
            <table id="payouts" class="stack">
              <caption class="vh">Your payouts, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <NumHead label="Amount" />
                  <NumHead label="Commissions" />
                  <th scope="col">Status</th>
                  <th scope="col">Next</th>
                  <th scope="col">Invoice</th>
                </tr>
              </thead>
              <tbody>
                {props.payouts.map((p) => {
                  const next = payoutNext(p, props.outlook);
                  return (
                    <tr data-id={p.id}>
                      <td class="lead nowrap" safe>
                        {day(p.createdAt)}
                      </td>
                      <MoneyCell amount={p.amount} currency={p.currency} />
                      <td class="num" data-label="Commissions">
                        {p.commissionCount}
                      </td>
                      <td class="badge-cell" data-label="Status">
                        <Badge {...payoutBadge(p)} title={next} />
                      </td>
                      <td data-label="Next" class="next">
                        <span class="trunc wide" title={attr(next)} safe>
                          {next}
                        </span>
                      </td>
                      <td data-label="Invoice" class="nowrap">
                        {p.status === 'paid' && p.invoiceNumber ? (
                          <a href={`/v1/payouts/${encodeURIComponent(p.id)}/invoice.pdf`} download={`${p.invoiceNumber}.pdf`} class="invoice-link" safe>
                            {p.invoiceNumber}
                          </a>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager path="/portal/payouts" query={{}} page={props.pageNumber} size={LIST_SIZE} total={props.total} shown={props.payouts.length} />
        </>
      )}
    </PortalLayout>
  );
}
