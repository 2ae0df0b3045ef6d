// The partner portal's pages: views only; the routes in ./index.tsx load the data from the services.
import type { Children } from '@kitajs/html';
import type { Commission } from '../../modules/commissions/service';
import type { Link } from '../../modules/links/service';
import type { PayoutView } from '../../modules/payouts/service';
import type { CommissionTotal, DailyActivity } from '../../modules/reports/service';
import { LineChart } from '../chart';
import { CommissionTotals } from '../totals';
import { CsrfInput, Field, SelectField, type FormErrors } from '../forms';
import { day, Layout, Notice, OlderLink, type NavItem } from '../layout';
import type { PartnerPage } from '../session';
import { attr, Badge, commissionBadge, MoneyCell, payoutBadge, Trunc } from '../ui';

const NAV: NavItem[] = [
  { href: '/portal', label: 'Dashboard' },
  { href: '/portal/links', label: 'Links' },
  { href: '/portal/commissions', label: 'Commissions' },
  { href: '/portal/payouts', label: 'Payouts' },
];

export function PortalLayout(props: { page: PartnerPage; title: string; current: string; scripts?: string[]; children?: Children }) {
  return (
    <Layout
      title={props.title}
      who={`${props.page.partner.name} (${props.page.partner.email})`}
      nav={NAV}
      current={props.current}
      signOut={{ action: '/portal/sign-out', csrf: props.page.csrf }}
      scripts={props.scripts}
    >
      {props.children}
    </Layout>
  );
}


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

export function SignUpPage(props: { csrf: string; values?: { email?: string; name?: string }; errors?: FormErrors; sent?: string }) {
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
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <form method="post" action="/portal/sign-up" novalidate>
          <CsrfInput token={props.csrf} />
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
// Signed in

export function DashboardPage(props: {
  page: PartnerPage;
  activity: DailyActivity[];
  totals: CommissionTotal[];
  clicksAllTime: number;
}) {
  const sum = (k: 'clicks' | 'conversions' | 'commissions') => props.activity.reduce((a, d) => a + d[k], 0);
  return (
    <PortalLayout page={props.page} title="Dashboard" current="/portal">
      <h1>
        Welcome, <span safe>{props.page.partner.name}</span>
      </h1>
      <ul class="cards">
        <li>
          <span class="value">{sum('clicks')}</span>
          <span class="label">Clicks, last 30 days</span>
        </li>
        <li>
          <span class="value">{sum('conversions')}</span>
          <span class="label">Conversions, last 30 days</span>
        </li>
        <li>
          <span class="value">{sum('commissions')}</span>
          <span class="label">Commissions, last 30 days</span>
        </li>
        <li>
          <span class="value">{props.clicksAllTime}</span>
          <span class="label">Clicks, all time</span>
        </li>
      </ul>
      <LineChart
        title="Clicks, conversions and commissions per day"
        days={props.activity.map((d) => d.day)}
        series={[
          { label: 'Clicks', className: 's1', values: props.activity.map((d) => d.clicks) },
          { label: 'Conversions', className: 's2', values: props.activity.map((d) => d.conversions) },
          { label: 'Commissions', className: 's3', values: props.activity.map((d) => d.commissions) },
        ]}
      />
      <h2>Commission totals</h2>
      <CommissionTotals totals={props.totals} empty="No commissions yet. Share your links to earn some." caption="Your commission totals per status and currency, all time" />
    </PortalLayout>
  );
}

export function LinksPage(props: {
  page: PartnerPage;
  links: Link[];
  campaigns: { id: string; name: string }[];
  nextCursor: string | null;
  values?: { campaignId?: string; slug?: string };
  errors?: FormErrors;
  created?: string;
}) {
  const names = new Map(props.campaigns.map((c) => [c.id, c.name]));
  return (
    <PortalLayout page={props.page} title="Links" current="/portal/links" scripts={['/assets/copy.js']}>
      <h1>Your links</h1>
      {!!props.created && <Notice kind="ok" text={`Link created: ${props.created}`} />}
      <h2>New link</h2>
      {props.campaigns.length === 0 ? (
        <p class="empty">You hold no active campaign yet, so you cannot create links.</p>
      ) : (
        <form method="post" action="/portal/links" novalidate>
          <CsrfInput token={props.page.csrf} />
          {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
          <SelectField
            name="campaignId"
            label="Campaign"
            value={props.values?.campaignId}
            error={props.errors?.campaignId}
            options={props.campaigns.map((c) => ({ value: c.id, label: c.name }))}
          />
          <Field
            name="slug"
            label="Custom slug (optional)"
            hint="3-64 letters, digits, _ or -. Leave empty for a random one."
            value={props.values?.slug}
            error={props.errors?.slug}
            autocomplete="off"
          />
          <button type="submit">Create link</button>
        </form>
      )}
      <h2>All links</h2>
      {props.links.length === 0 ? (
        <p class="empty">No links yet.</p>
      ) : (
        <div class="table-wrap">
          <table id="links" class="stack">
            <caption class="vh">Your links, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Campaign</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.links.map((l) => (
                <tr data-slug={l.slug}>
                  <td class="lead fill">
                    <div class="copy">
                      <label class="vh" for={`url-${l.id}`}>
                        Link address
                      </label>
                      <input id={`url-${l.id}`} value={l.url} readonly />
                      <button type="button" class="secondary" data-copy={`#url-${l.id}`}>
                        Copy
                      </button>
                    </div>
                  </td>
                  <td data-label="Campaign">
                    <Trunc text={names.get(l.campaignId) ?? l.campaignId} />
                  </td>
                  <td data-label="Created" safe>
                    {day(l.createdAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OlderLink path="/portal/links" cursor={props.nextCursor} label="Older links" />
    </PortalLayout>
  );
}

export function CommissionsPage(props: { page: PartnerPage; commissions: Commission[]; nextCursor: string | null }) {
  return (
    <PortalLayout page={props.page} title="Commissions" current="/portal/commissions">
      <h1>Commissions</h1>
      {props.commissions.length === 0 ? (
        <p class="empty">No commissions yet.</p>
      ) : (
        <div class="table-wrap">
          <table id="commissions" class="stack">
            <caption class="vh">Your commissions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Date</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col">Status</th>
                <th scope="col">Paid</th>
              </tr>
            </thead>
            <tbody>
              {props.commissions.map((c) => (
                <tr data-id={c.id}>
                  <td class="lead">
                    <Trunc text={c.eventType} />
                  </td>
                  <td data-label="Date" safe>
                    {day(c.createdAt)}
                  </td>
                  <MoneyCell amount={c.amount} currency={c.currency} />
                  <td class="badge-cell" data-label="Status">
                    <Badge {...commissionBadge(c)} />
                    {!!c.reason && <span class="note trunc" title={attr(c.reason)} safe>{c.reason}</span>}
                  </td>
                  <td data-label="Paid" safe>
                    {day(c.paidAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OlderLink path="/portal/commissions" cursor={props.nextCursor} label="Older commissions" />
    </PortalLayout>
  );
}

export function PayoutsPage(props: { page: PartnerPage; payouts: PayoutView[]; nextCursor: string | null }) {
  return (
    <PortalLayout page={props.page} title="Payouts" current="/portal/payouts">
      <h1>Payouts</h1>
      {props.payouts.length === 0 ? (
        <p class="empty">No payouts yet. Approved commissions are paid out on the next payout run.</p>
      ) : (
        <div class="table-wrap">
          <table id="payouts" class="stack">
            <caption class="vh">Your payouts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Commissions
                </th>
                <th scope="col">Status</th>
                <th scope="col">Paid</th>
              </tr>
            </thead>
            <tbody>
              {props.payouts.map((p) => (
                <tr data-id={p.id}>
                  <td class="lead" safe>
                    {day(p.createdAt)}
                  </td>
                  <MoneyCell amount={p.amount} currency={p.currency} />
                  <td class="num" data-label="Commissions">
                    {p.commissionCount}
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...payoutBadge(p)} />
                  </td>
                  <td data-label="Paid" safe>
                    {day(p.paidAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OlderLink path="/portal/payouts" cursor={props.nextCursor} label="Older payouts" />
    </PortalLayout>
  );
}

