// The partner portal's pages: views only; the routes in ./index.tsx load the data from the services.
import type { Commission } from '../../modules/commissions/service';
import type { PayoutView } from '../../modules/payouts/service';
import { CsrfInput, Field, type FormErrors } from '../forms';
import { day, Layout, Notice } from '../layout';
import type { PartnerPage } from '../session';
import { attr, Badge, EmptyState, MoneyCell, Pager, payoutBadge, NumHead } from '../ui';
import { CommissionTable, TermsList } from './home';
import { PortalLayout } from './shell';
import { payoutNext, type CampaignTerms, type PayoutOutlook } from './terms';

export { PortalLayout };

// ---------------------------------------------------------------------------------------------
// Signed out

export function SignInPage(props: { csrf: string; email?: string; errors?: FormErrors; sent?: string; signupOpen: boolean }) {
  return (
    <Layout title="Sign in">
      <div class="narrow">
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
    </Layout>
  );
}

/** The program's pitch on the signup page: its live campaigns' terms and the payout terms. */
export type ProgramPitch = { terms: CampaignTerms[]; payoutTerms: string };

export function SignUpPage(props: { csrf: string; pitch: ProgramPitch; values?: { email?: string; name?: string; ref?: string }; errors?: FormErrors; sent?: string }) {
  if (props.sent) {
    // done: the form is not shown again, the next step is in the inbox
    return (
      <Layout title="Check your inbox">
        <div class="done-state">
          <h1>Check your inbox</h1>
          <Notice kind="ok" text={props.sent} />
          <p>The link works once and for 15 minutes. Nothing arrived? Look in the spam folder, or ask for a new link on the sign-in page.</p>
          <p>
            <a href="/portal/sign-in">Go to sign-in</a>
          </p>
        </div>
      </Layout>
    );
  }
  return (
    <Layout title="Become a partner">
      <div class="narrow">
        <h1>Become a partner</h1>
        <section class="pitch" aria-labelledby="pitch-title">
          <h2 id="pitch-title">What you earn</h2>
          <p>Share your links; every customer they bring earns you a commission on these terms:</p>
          <TermsList terms={props.pitch.terms} empty="The program has no live campaign at the moment; sign up and you will see its terms here once it has." />
          <p class="payout-terms" id="payout-terms" safe>
            {props.pitch.payoutTerms}
          </p>
        </section>
        <h2>Sign up</h2>
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <form method="post" action="/portal/sign-up" novalidate>
          <CsrfInput token={props.csrf} />
          {!!props.values?.ref && <input type="hidden" name="ref" value={props.values.ref} />}
          <Field name="name" label="Name" value={props.values?.name} error={props.errors?.name} required autocomplete="name" />
          <Field name="email" label="Email" type="email" value={props.values?.email} error={props.errors?.email} required autocomplete="email" />
          <button type="submit">Sign up</button>
        </form>
        <p>
          Already a partner? <a href="/portal/sign-in">Sign in</a>.
        </p>
      </div>
    </Layout>
  );
}

export function SignupClosedPage() {
  return (
    <Layout title="Signup closed">
      <div class="narrow">
        <h1>Signup is closed</h1>
        <p>This partner program takes new partners by invitation only.</p>
        <p>
          <a href="/portal/sign-in">Sign in</a>
        </p>
      </div>
    </Layout>
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

export function LinkExpiredPage() {
  return (
    <Layout title="Link expired">
      <div class="narrow">
        <h1>This link has expired or was already used</h1>
        <p>Sign-in links work once and for 15 minutes.</p>
        <p>
          <a href="/portal/sign-in">Ask for a new one</a>
        </p>
      </div>
    </Layout>
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

export function PayoutsPage(props: { page: PartnerPage; payouts: PayoutView[]; total: number; pageNumber: number; outlook: PayoutOutlook; payoutTerms: string }) {
  return (
    <PortalLayout page={props.page} title="Payouts" current="/portal/payouts">
      <h1>Payouts</h1>
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
