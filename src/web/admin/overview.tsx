// Admin overview (GET /admin): the setup checklist until the program is set up, KPI cards for a date
// range against the previous period, one chart of revenue and commissions, the to-do counts and the
// top partners. Numbers come from src/modules/reports/overview.ts; docs/web.md says how they count.
import type { Children } from '@kitajs/html';
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { createApiKey } from '../../modules/auth/keys';
import {
  bucketFor,
  earningsPerClick,
  firstActivity,
  latestEvent,
  moneySeries,
  onboardingState,
  overviewCurrency,
  overviewTotals,
  setOnboardingDismissed,
  todoCounts,
  topPartners,
  type Bucket,
  type LatestEvent,
  type LeaderRow,
  type MoneyPoint,
  type Onboarding,
  type OverviewTotals,
  type Period,
  type TodoCounts,
} from '../../modules/reports/overview';
import { DAY } from '../../lib/time';
import { LineChart } from '../chart';
import { CsrfInput } from '../forms';
import { Notice } from '../layout';
import { compare, comparePoints, parseRange, RangePicker, rangeQuery, rangeStart, type DateRange } from '../range';
import { PAGE_CSP, render, seeOther } from '../render';
import { guardAdmin, type AdminPage } from '../session';
import { drawnToMinor, EmptyState, formatMoney, formatRate, href, Kpi, Trunc, NumHead } from '../ui';
import { AdminLayout, Done, type AdminKit } from './kit';

const PATH = '/admin';
const LATEST = '/admin/overview/latest-event';
const TOP = 10;

/** A query value as one string (a repeated parameter gives its first value). */
function one(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

type Data = {
  range: DateRange;
  currency: string | null;
  current: OverviewTotals;
  previous: OverviewTotals | null;
  series: MoneyPoint[];
  bucket: Bucket;
  leaders: LeaderRow[];
  todo: TodoCounts;
  setup: Onboarding;
  /** Whether anything ever happened: no click and no event yet is an empty program. */
  active: boolean;
  billingConfigured: boolean;
};

export function overviewRoutes(ctx: AppContext, kit: AdminKit) {
  async function load(query: Record<string, unknown>): Promise<Data> {
    const range = parseRange({ range: one(query.range), from: one(query.from), to: one(query.to) });
    const period: Period = { start: rangeStart(range), end: range.end };
    const [currency, first, current, previous, todo, setup] = await Promise.all([
      overviewCurrency(ctx.sql),
      firstActivity(ctx.sql),
      overviewTotals(ctx.sql, period),
      range.previous ? overviewTotals(ctx.sql, range.previous) : Promise.resolve(null),
      todoCounts(ctx.sql),
      onboardingState(ctx.sql),
    ]);
    // "all time" is drawn from the first day anything happened (or just today, before anything did)
    const firstDay = first ? new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate())) : new Date(range.end.getTime() - DAY);
    const drawn: Period = range.start ? period : { start: firstDay, end: range.end };
    const bucket = bucketFor(drawn);
    const [series, leaders] = currency
      ? await Promise.all([moneySeries(ctx.sql, { ...drawn, currency, bucket }), topPartners(ctx.sql, { ...period, currency, limit: TOP })])
      : [[], []];
    return {
      range,
      currency,
      current,
      previous,
      series,
      bucket,
      leaders,
      todo,
      setup,
      active: first !== null,
      billingConfigured: ctx.billingPlugins.some((p) => p.receivesWebhooks),
    };
  }

  const view = (page: AdminPage, data: Data, extra: { createdKey?: string; done?: string } = {}) =>
    (<OverviewPage page={page} data={data} baseUrl={ctx.config.baseUrl} {...extra} />) as string;

  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) => kit.page(request, async (page) => render(view(page, await load(query), { done: one(query.done) }))))
    .get(LATEST, async ({ request }) => {
      // a poll from a page whose session ended stops polling (htmx: 286) instead of swapping in the sign-in page
      if (request.headers.get('hx-request') === 'true' && (await guardAdmin(ctx, request)).kind !== 'admin') return new Response(null, { status: 286 });
      return kit.page(request, async () => fragment((<LatestEventLine event={await latestEvent(ctx.sql)} />) as string));
    })
    .post('/admin/onboarding/key', ({ request, body }) =>
      kit.form(request, body, PATH, async (page) => {
        const created = await createApiKey(ctx.sql, { name: 'Website snippet', kind: 'publishable' });
        // the key is shown in this answer only: the database keeps its hash
        return render(view(page, await load({}), { createdKey: created.key }), { status: 201 });
      }),
    )
    .post('/admin/onboarding/dismiss', ({ request, body }) =>
      kit.form(request, body, PATH, async () => {
        await setOnboardingDismissed(ctx.sql, true);
        return seeOther(`${PATH}?done=dismissed`);
      }),
    )
    .post('/admin/onboarding/show', ({ request, body }) =>
      kit.form(request, body, PATH, async () => {
        await setOnboardingDismissed(ctx.sql, false);
        return seeOther(`${PATH}#setup`);
      }),
    );
}

/** A piece of a page for htmx to swap in: the page headers, no doctype. */
function fragment(html: string): Response {
  return new Response(html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
  });
}

// ---------------------------------------------------------------------------------------------
// The page

function OverviewPage(props: { page: AdminPage; data: Data; baseUrl: string; createdKey?: string; done?: string }) {
  const d = props.data;
  const steps = setupSteps(d, props.createdKey);
  const doneCount = steps.filter((s) => s.done).length;
  const showSetup = d.setup.dismissedAt === null && doneCount < steps.length;
  const next = steps.find((s) => !s.done);
  return (
    <AdminLayout page={props.page} title="Overview" current={PATH} scripts={['/assets/copy.js', '/assets/htmx.js']}>
      <div class="page-head overview-head">
        <h1>Overview</h1>
        {d.active ? <RangePicker action={PATH} range={d.range} /> : ''}
      </div>
      <Done texts={{ dismissed: 'Setup checklist hidden. "Show the setup checklist" at the bottom of this page brings it back.' }} done={props.done} />
      {props.createdKey ? <Notice kind="ok" text="Publishable key created. It is filled into the snippet below and shown only now: copy the snippet to your site." /> : ''}
      {showSetup || props.createdKey ? <SetupChecklist steps={steps} doneCount={doneCount} csrf={props.page.csrf} baseUrl={props.baseUrl} data={d} createdKey={props.createdKey} /> : ''}
      {d.active ? (
        <Dashboard data={d} />
      ) : (
        <>
          <EmptyState
            title="No activity yet"
            text="Clicks, sales and commissions show here once a partner's link is visited."
            action={next?.action ?? { href: '/admin/partners', label: 'Invite a partner' }}
          />
          {Object.values(d.todo).some((n) => n > 0) ? <Todo todo={d.todo} /> : ''}
        </>
      )}
      {d.setup.dismissedAt !== null && doneCount < steps.length ? (
        <form method="post" action="/admin/onboarding/show" class="setup-again">
          <CsrfInput token={props.page.csrf} />
          <button type="submit" class="link">
            Show the setup checklist
          </button>
          <span class="caption" safe>{`${doneCount} of ${steps.length} steps done`}</span>
        </form>
      ) : (
        ''
      )}
    </AdminLayout>
  );
}

function Dashboard(props: { data: Data }) {
  const d = props.data;
  const cur = d.currency;
  const now = d.current;
  const before = d.previous;
  const money = (t: OverviewTotals | null) => (cur && t ? (t.money.find((m) => m.currency === cur) ?? { currency: cur, revenue: 0n, commissions: 0n }) : null);
  const m = money(now);
  const pm = money(before);
  const versus = d.range.previousLabel;
  const rate = (t: OverviewTotals) => (t.clicks > 0 ? (t.conversions * 10_000) / t.clicks : null);
  const rateChange = (() => {
    if (!before) return undefined;
    const a = rate(now);
    const b = rate(before);
    if (a === null && b === null) return { text: 'no change', good: null };
    if (b === null) return { text: 'new', good: null };
    return comparePoints(a ?? 0, b);
  })();
  const others = now.money.filter((x) => x.currency !== cur && (x.revenue !== 0n || x.commissions !== 0n));
  const keep = rangeQuery(d.range);
  return (
    <>
      <ul class="cards kpis" id="kpis">
        <Kpi id="kpi-clicks" label="Clicks" value={count(now.clicks)} change={before ? compare(now.clicks, before.clicks) : undefined} versus={versus} href="#leaders" />
        <Kpi id="kpi-conversions" label="Conversions" value={count(now.conversions)} change={before ? compare(now.conversions, before.conversions) : undefined} versus={versus} href="#leaders" />
        <Kpi id="kpi-rate" label="Conversion rate" value={formatRate(now.conversions, now.clicks)} change={rateChange} versus={versus} />
        {m ? (
          <>
            <Kpi id="kpi-revenue" label="Attributed revenue" value={formatMoney(m.revenue, m.currency)} change={pm ? compare(m.revenue, pm.revenue) : undefined} versus={versus} href="#money-chart" />
            <Kpi id="kpi-commissions" label="Commissions earned" value={formatMoney(m.commissions, m.currency)} change={pm ? compare(m.commissions, pm.commissions) : undefined} versus={versus} href="/admin/commissions" />
          </>
        ) : (
          ''
        )}
        <Kpi id="kpi-partners" label="New partners" value={count(now.newPartners)} change={before ? compare(now.newPartners, before.newPartners) : undefined} versus={versus} href="/admin/partners" />
      </ul>
      {cur ? (
        <p class="caption money-note" id="money-note" safe>
          {`Money in ${cur}, the main currency (the one most commissions are in).${others.length > 0 ? ` Also in this period: ${others.map((o) => `${formatMoney(o.revenue, o.currency)} revenue and ${formatMoney(o.commissions, o.currency)} commissions`).join('; ')}.` : ''} Sales count on the day they happened; reversed commissions are left out.`}
        </p>
      ) : (
        ''
      )}
      <div class="overview-grid">
        <section class="overview-chart" aria-labelledby="chart-title">
          <h2 id="chart-title">
            {cur ? <span safe>{`Revenue and commissions per ${d.bucket} (${cur})`}</span> : 'Revenue and commissions'}
          </h2>
          <div id="money-chart">
            {d.bucket !== 'day' ? <p class="caption bucket-note" safe>{`Each point is a ${d.bucket} (${d.bucket === 'week' ? 'weeks start on Monday' : 'calendar months'}, UTC), labelled by its first day.`}</p> : ''}
            {cur ? (
              <LineChart
                title={`Attributed revenue and commissions earned per ${d.bucket} in ${cur}, ${d.range.label}`}
                days={d.series.map((p) => p.bucket)}
                series={[
                  { label: 'Revenue', className: 's1', values: d.series.map((p) => p.revenue) },
                  { label: 'Commissions', className: 's3', values: d.series.map((p) => p.commissions) },
                ]}
                format={(v) => formatMoney(drawnToMinor(v, cur), cur)}
              />
            ) : (
              <p class="empty">No money yet: the chart starts with the first sale.</p>
            )}
          </div>
        </section>
        <Todo todo={d.todo} />
      </div>
      <h2 id="leaders-title">Top partners</h2>
      <Leaders rows={d.leaders} currency={cur} range={d.range} keep={keep} />
    </>
  );
}

const count = (n: number) => n.toLocaleString('en-US');

function Leaders(props: { rows: LeaderRow[]; currency: string | null; range: DateRange; keep: Record<string, string> }) {
  if (props.rows.length === 0 || !props.currency) {
    return props.range.key === 'all' ? (
      <EmptyState title="No partner activity yet" text="Partners show here with their first click or sale." action={{ href: '/admin/partners', label: 'Invite a partner' }} />
    ) : (
      <EmptyState title="No partner activity in this period" text="No partner had a click or a sale in this date range." action={{ href: href(PATH, {}, { range: 'all' }), label: 'Show all time' }} />
    );
  }
  const cur = props.currency;
  return (
    <div class="table-wrap" id="leaders">
      <table class="stack leaders">
        <caption class="vh" safe>{`Top ${TOP} partners by commissions earned, ${props.range.label}, money in ${cur}`}</caption>
        <thead>
          <tr>
            <th scope="col">Partner</th>
            <NumHead label="Clicks" />
            <NumHead label="Conversions" />
            <NumHead label="Revenue" />
            <NumHead label="Commissions" />
            <NumHead label="EPC" title="Earnings per click: commissions divided by clicks" />
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => {
            const epc = earningsPerClick(r.commissions, r.clicks);
            return (
              <tr data-id={r.partnerId}>
                <td class="lead">
                  <Trunc text={r.name || r.email} href={`/admin/partners/${encodeURIComponent(r.partnerId)}`} />
                </td>
                <td class="num" data-label="Clicks" safe>
                  {count(r.clicks)}
                </td>
                <td class="num" data-label="Conversions" safe>
                  {count(r.conversions)}
                </td>
                <td class="num" data-label="Revenue" safe>
                  {formatMoney(r.revenue, cur)}
                </td>
                <td class="num money" data-label="Commissions" safe>
                  {formatMoney(r.commissions, cur)}
                </td>
                <td class="num" data-label="EPC" safe>
                  {epc === null ? '–' : formatMoney(epc, cur)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Todo(props: { todo: TodoCounts }) {
  const t = props.todo;
  const items = [
    { id: 'todo-payouts', n: t.payoutsPending, one: 'payout to confirm', many: 'payouts to confirm', href: '/admin/payouts?status=pending' },
    { id: 'todo-invites', n: t.invitesPending, one: 'invite pending', many: 'invites pending', href: '/admin/partners?status=invited' },
    { id: 'todo-commissions', n: t.commissionsAccrued, one: 'commission waiting for approval', many: 'commissions waiting for approval', href: '/admin/commissions?status=accrued' },
    { id: 'todo-webhooks', n: t.webhooksFailing, one: 'webhook endpoint failing', many: 'webhook endpoints failing', href: '/admin/webhooks' },
  ];
  const open = items.filter((i) => i.n > 0);
  return (
    <section class="todo" id="todo" aria-labelledby="todo-title">
      <h2 id="todo-title">To do</h2>
      {open.length === 0 ? (
        <p class="todo-clear">Nothing waits for you.</p>
      ) : (
        <ul>
          {open.map((i) => (
            <li id={i.id}>
              <a href={i.href}>
                <span class="todo-n" safe>
                  {count(i.n)}
                </span>
                <span safe>{` ${i.n === 1 ? i.one : i.many}`}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// The setup checklist

type Step = { key: string; title: string; done: boolean; action?: { href: string; label: string } };

function setupSteps(d: Data, createdKey?: string): Step[] {
  const s = d.setup;
  return [
    { key: 'campaign', title: 'Create a campaign', done: s.campaign, action: { href: '/admin/campaigns', label: 'Create a campaign' } },
    { key: 'key', title: 'Create a publishable key', done: s.publishableKey || !!createdKey, action: { href: '/admin/api-keys', label: 'Create a publishable key' } },
    { key: 'snippet', title: 'Install the snippet', done: s.identified },
    { key: 'click', title: 'See the first click and a test event', done: s.click && s.latestEvent !== null },
    { key: 'billing', title: 'Connect a billing provider', done: d.billingConfigured || s.providerEvent },
    { key: 'partner', title: 'Invite a partner', done: s.partner, action: { href: '/admin/partners', label: 'Invite a partner' } },
  ];
}

function SetupChecklist(props: { steps: Step[]; doneCount: number; csrf: string; baseUrl: string; data: Data; createdKey?: string }) {
  const total = props.steps.length;
  const step = (key: string) => props.steps.find((s) => s.key === key)!;
  return (
    <section class="setup" id="setup" aria-labelledby="setup-title">
      <div class="setup-head">
        <div>
          <h2 id="setup-title">Set up your program</h2>
          <p class="setup-count" id="setup-count" safe>{`${props.doneCount} of ${total} done`}</p>
        </div>
        <progress max={total} value={props.doneCount} aria-labelledby="setup-count"></progress>
        <form method="post" action="/admin/onboarding/dismiss" class="setup-dismiss">
          <CsrfInput token={props.csrf} />
          <button type="submit" class="secondary">
            Dismiss
          </button>
        </form>
      </div>
      <ol class="steps">
        <StepItem step={step('campaign')} text="What partners promote, where their links lead and what they earn." />
        <StepItem step={step('key')} text="The browser snippet sends it when it identifies a user; it can do nothing else.">
          {!step('key').done ? (
            <form method="post" action="/admin/onboarding/key" class="step-form">
              <CsrfInput token={props.csrf} />
              <button type="submit">Create a publishable key for the snippet</button>
            </form>
          ) : (
            ''
          )}
        </StepItem>
        <StepItem step={step('snippet')} text="Ticked once your site has identified a user.">
          <Snippet baseUrl={props.baseUrl} createdKey={props.createdKey} hasKey={props.data.setup.publishableKey} currency={props.data.currency ?? 'USD'} />
        </StepItem>
        <StepItem step={step('click')} text="Follow a partner's link, sign up on your site, then send an event with the server call above.">
          <p class="step-facts">
            <span>{props.data.setup.click ? 'First click: seen.' : 'First click: not yet.'}</span>
          </p>
          <LatestEventLine event={props.data.setup.latestEvent} />
        </StepItem>
        <StepItem step={step('billing')} text="Sales, refunds and disputes then arrive from the provider without code.">
          <p class="step-facts">
            Stripe, Paddle Billing or Lemon Squeezy: <a href="/admin/settings#billing">Settings</a> shows the address to paste into each and the secret to set.
            Ticked when a provider is configured or its first event arrived.
          </p>
        </StepItem>
        <StepItem step={step('partner')} text="Partners get an emailed sign-in link to their portal, where they make share links." />
      </ol>
    </section>
  );
}

function StepItem(props: { step: Step; text: string; children?: Children }) {
  const s = props.step;
  return (
    <li class={s.done ? 'step done' : 'step'} id={`step-${s.key}`} data-done={s.done ? 'true' : 'false'}>
      <span class="step-mark" aria-hidden="true">
        {s.done ? '✓' : ''}
      </span>
      <div class="step-body">
        <p class="step-title">
          <strong safe>{s.title}</strong>
          <span class="vh">{s.done ? ' (done)' : ' (to do)'}</span>
        </p>
        {s.done ? (
          ''
        ) : (
          <>
            <p class="step-text" safe>
              {props.text}
            </p>
            {props.children ?? ''}
            {s.action && s.key !== 'key' ? (
              <a class="button secondary" href={s.action.href} safe>
                {s.action.label}
              </a>
            ) : (
              ''
            )}
          </>
        )}
      </div>
    </li>
  );
}

/** The browser snippet and the server call, ready to copy; the real key when this answer created it. */
function Snippet(props: { baseUrl: string; createdKey?: string; hasKey: boolean; currency: string }) {
  const key = props.createdKey ?? 'pk_…';
  const browser = [
    `<script src="${props.baseUrl}/client.js" data-key="${key}"></script>`,
    '<script>',
    '  // once the user has signed up or signed in:',
    '  partnerd.identify(user.id);',
    '</script>',
  ].join('\n');
  const server = [
    `curl -X POST ${props.baseUrl}/v1/events \\`,
    `  -H "Authorization: Bearer sk_… (a key with events:write)" \\`,
    '  -H "Content-Type: application/json" \\',
    `  -d '{"userId": "user_123", "type": "invoice_paid", "amount": 4900, "currency": "${props.currency}"}'`,
  ].join('\n');
  return (
    <div class="snippets">
      <label for="snippet-browser">On every page of your site</label>
      <textarea id="snippet-browser" class="code" rows="5" readonly spellcheck="false" safe>
        {browser}
      </textarea>
      <p class="snippet-tools">
        <button type="button" class="secondary" data-copy="#snippet-browser">
          Copy
        </button>
        <span class="hint">
          {props.createdKey
            ? 'Your new publishable key is filled in. It is not shown again.'
            : props.hasKey
              ? 'Replace pk_… with your publishable key: keys are shown once, when created. Lost it? Create another on the API keys page.'
              : 'Create a publishable key (step 2) and it is filled in here.'}
        </span>
      </p>
      <label for="snippet-server">From your server, when a customer pays (amount in cents)</label>
      <textarea id="snippet-server" class="code" rows="4" readonly spellcheck="false" safe>
        {server}
      </textarea>
      <p class="snippet-tools">
        <button type="button" class="secondary" data-copy="#snippet-server">
          Copy
        </button>
        <span class="hint">
          Needs a secret key with the events:write scope, from the <a href="/admin/api-keys">API keys</a> page.
        </span>
      </p>
    </div>
  );
}

/** The newest event received; htmx asks for it again every 3 s (a reload does the same without script). */
function LatestEventLine(props: { event: LatestEvent | null }) {
  const e = props.event;
  const text = e
    ? `Latest event: ${e.type} for ${e.userId}${e.amount !== null && e.currency ? `, ${formatMoney(e.amount, e.currency)}` : ''}, ${e.status.replace(/_/g, ' ')}, received ${e.createdAt.toISOString().slice(0, 19).replace('T', ' ')} UTC.`
    : 'No event received yet.';
  return (
    <p class="step-facts latest-event" id="latest-event" role="status" hx-get={LATEST} hx-trigger="every 3s" hx-swap="outerHTML" safe>
      {text}
    </p>
  );
}
