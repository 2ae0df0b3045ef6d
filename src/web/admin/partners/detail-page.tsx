// Admin partners: one partner's page (facts, performance, links, codes, customers, recruits, the
// edit form, flags, commissions and payouts).
import type { ApplicationQuestion } from '../../../lib/questions';
import type { PayoutMethod } from '../../../modules/payouts/methods';
import { listCommissions } from '../../../modules/commissions/service';
import { type Partner } from '../../../modules/partners/service';
import { type Group } from '../../../modules/groups/service';
import { type Recruit } from '../../../modules/reports/rewards';
import { listPayouts } from '../../../modules/payouts/service';
import { type LinkStatsRow, type PartnerCounts, type PartnerMoney, type ReferredCustomer } from '../../../modules/reports/partners';
import { partnerFlagHistory } from '../../../modules/fraud/review';
import { PartnerFlags } from '../review';
import { ApplicationDialogs, ApplicationFacts } from '../applications';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { CsrfInput, Field, SelectField, type FormErrors } from '../../forms';
import { Notice } from '../../layout';
import { ConvertedMoney, type ConvertedPair } from '../../kit/converted';
import { FunnelView, type Funnel } from '../../kit/funnel';
import { compare, comparePoints, RangePicker, rangeQuery, type DateRange } from '../../range';
import type { AdminPage } from '../../session';
import { attr, Badge, formatMoney, href, Kpi, MoneyCell, Pager, partnerBadge, NumHead } from '../../ui';
import { AdminLayout, can, day, Done } from '../kit';
import { trafficPath } from '../traffic';
import { CommissionsTable, PayoutsTable } from '../tables';
import { CodesSection, type CodesData } from '../codes';
import { HistorySection, type History } from '../kit/audit';
import { CUSTOMERS_PAGE, DONE, type EditValues, LIST, detailPath, epcText, revokeConfirm } from './shared';
import { CustomersTable, LinkStatsTable, MoneyByStatusTable, RecruitsSection } from './detail-tables';
import { CampaignChoices } from './list-page';
import { clickRate, filteredText } from '../../figures';
import type { TaxFormStatus } from '../../../modules/tax/service';
import { TaxFormBadge, taxFormText } from '../kit/tax-form';

export type DetailProps = {
  page: AdminPage;
  partner: Partner;
  range: DateRange;
  currency: string;
  currencies: string[];
  kept: Record<string, string | undefined>;
  counts: PartnerCounts;
  money: PartnerMoney[];
  /** The range's funnel, and with REPORTING_CURRENCY its revenue and commissions converted. */
  funnel: Funnel;
  converted: ConvertedPair;
  links: LinkStatsRow[];
  customers: { rows: ReferredCustomer[]; total: number };
  customerPage: number;
  commissions: Awaited<ReturnType<typeof listCommissions>>;
  payouts: Awaited<ReturnType<typeof listPayouts>>;
  /** How the partner is paid (the admin sees the full email). */
  payoutMethod: PayoutMethod;
  /** The tax form on file: none, valid, or expired (never the TIN beyond its last four). */
  taxForm: TaxFormStatus;
  campaigns: Map<string, string>;
  liveCampaigns: { id: string; name: string }[];
  baseUrl: string;
  done?: string;
  errors?: FormErrors;
  reason?: string;
  edit?: EditValues;
  codes: CodesData;
  flags: Awaited<ReturnType<typeof partnerFlagHistory>>;
  groups: Group[];
  recruits: { recruits: Recruit[]; total: number };
  recruiter: Partner | null;
  overrides: Map<string, { id: string; name: string }>;
  /** The signup questions, whose labels the application's answers show under. */
  questions: ApplicationQuestion[];
  /** The partner's recent audit entries; null for a role that may not read the audit log. */
  history: History | null;
};

/** What the sections of the page work out from its props. */
function derive(props: DetailProps) {
  const p = props.partner;
  const group = p.groupId ? props.groups.find((g) => g.id === p.groupId) : undefined;
  const path = detailPath(p.id);
  const id = encodeURIComponent(p.id);
  const names = { campaigns: props.campaigns, partners: new Map([[p.id, p.name]]), overrides: props.overrides };
  const cur = props.currency;
  const c = props.counts;
  const inCurrency = props.money.find((m) => m.currency === cur);
  const earned = inCurrency ? inCurrency.accrued + inCurrency.approved + inCurrency.paid : 0n;
  const versus = props.range.previousLabel || undefined;
  const rateBp = (conv: number, clicks: number) => (clicks > 0 ? (conv * 10000) / clicks : 0);
  const live = new Set(props.liveCampaigns.map((x) => x.id));
  const archivedHeld = p.campaignIds.filter((x) => !live.has(x));
  const edit = props.edit ?? {
    name: p.name,
    billingConnectAccountId: p.billingConnectAccountId ?? '',
    campaignIds: p.campaignIds,
    groupId: p.groupId ?? '',
    recruiter: props.recruiter?.email ?? p.referredBy ?? '',
  };
  const errors = props.errors ?? {};
  const editErrors = ['name', 'billingConnectAccountId', 'campaignIds', 'groupId', 'recruiter'].some((k) => errors[k]) || (!!props.edit && !!errors._form);
  return { p, group, path, id, names, cur, c, inCurrency, earned, versus, rateBp, live, archivedHeld, edit, errors, editErrors };
}

export function PartnerDetailPage(props: DetailProps) {
  const { p, path, id, names, cur } = derive(props);
  return (
    <AdminLayout page={props.page} title={p.name} current={LIST} scripts={['/assets/copy.js']}>
      <DetailHead {...props} />

      <Performance {...props} />

      <h2>Links</h2>
      <p>
        <a href={trafficPath({ partnerId: p.id }, props.range)} id="partner-traffic" safe>
          {`Traffic of ${p.name} by sub-ID, country, device, browser and referrer`}
        </a>
      </p>
      {props.links.length === 0 ? (
        <p class="empty">No links yet.</p>
      ) : (
        <LinkStatsTable
          links={props.links}
          baseUrl={props.baseUrl}
          currency={cur}
          campaigns={props.campaigns}
          caption={`Links of ${p.name} with their numbers for ${props.range.label.toLowerCase()}`}
        />
      )}

      <CodesSection page={props.page} from={{ kind: 'partner', id: p.id }} data={props.codes} done={props.done} />

      <h2>Referred customers</h2>
      <p class="caption" safe>
        {`Every customer this partner brought, all time, latest conversion first. Revenue and commissions in ${cur} over the customer's lifetime.`}
      </p>
      {props.customers.rows.length === 0 ? (
        <p class="empty">{props.customers.total > 0 ? 'No customers on this page.' : 'No referred customers yet.'}</p>
      ) : (
        <>
          <CustomersTable customers={props.customers.rows} currency={cur} caption={`Customers ${p.name} brought`} />
          <Pager path={path} query={props.kept} page={props.customerPage} size={CUSTOMERS_PAGE} total={props.customers.total} shown={props.customers.rows.length} />
        </>
      )}

      <RecruitsSection recruits={props.recruits} name={p.name} />

      {can(props.page, 'POST', `${LIST}/:id`) && <EditForm {...props} />}

      <PartnerFlags partnerId={p.id} revoked={p.status === 'revoked'} mayRevoke={can(props.page, 'POST', `${LIST}/:id/revoke`)} history={props.flags} />

      <h2>Commissions</h2>
      <p>
        <a href={`/admin/commissions?partnerId=${id}`}>Approve or reverse this partner's commissions</a>
      </p>
      {props.commissions.length === 0 ? (
        <p class="empty">No commissions yet.</p>
      ) : (
        <CommissionsTable commissions={props.commissions} names={names} onePartner caption={`Commissions of ${p.name}, newest first`} />
      )}
      <h2>Payouts</h2>
      {props.payouts.length === 0 ? <p class="empty">No payouts yet.</p> : <PayoutsTable payouts={props.payouts} names={names} onePartner caption={`Payouts to ${p.name}, newest first`} />}
      <HistorySection history={props.history} what="partner" />
      {p.status !== 'revoked' && <ConfirmDialog id="revoke-dialog" {...revokeConfirm(props.page, p, { reason: props.reason })} />}
    </AdminLayout>
  );
}

/** The partner's name, status and actions, and the facts about it. */
function DetailHead(props: DetailProps) {
  const { p, group, path, id, errors } = derive(props);
  const partnerWrites = can(props.page, 'POST', `${LIST}/:id/revoke`);
  return (
    <>
      <p class="back">
        <a href={href(LIST, props.kept)}>All partners</a>
      </p>
      <div class="page-head">
        <div class="partner-title">
          <h1 class="trunc" title={attr(p.name)} safe>
            {p.name}
          </h1>
          <Badge {...partnerBadge(p)} id="partner-status" />
        </div>
        <div class="actions">
          <a class="button secondary" href={`/admin/commissions?partnerId=${id}`}>
            Commissions
          </a>
          {partnerWrites && p.status === 'pending' && (
            <form method="post" action={`${path}/invite`} class="inline">
              <CsrfInput token={props.page.csrf} />
              <button type="submit" class="secondary">
                Send the invite again
              </button>
            </form>
          )}
          {!partnerWrites ? (
            ''
          ) : p.status === 'revoked' ? (
            <form method="post" action={`${path}/reinstate`} class="inline">
              <CsrfInput token={props.page.csrf} />
              <button type="submit">Reinstate</button>
            </form>
          ) : (
            <ConfirmTrigger href={`${path}/revoke`} dialog="revoke-dialog" label="Revoke partner…" danger />
          )}
        </div>
      </div>
      <Done texts={DONE} done={props.done} />
      {!!errors.invite && <Notice kind="error" text={errors.invite} />}
      {!!errors.reinstate && <Notice kind="error" text={errors.reinstate} />}
      {!!errors.reason && <Notice kind="error" text={`Not revoked: ${errors.reason}`} />}
      <dl class="facts">
        <dt>Email</dt>
        <dd safe>{p.email}</dd>
        {!!p.revokeReason && (
          <>
            <dt>Revoke reason</dt>
            <dd class="reason" safe>
              {p.revokeReason}
            </dd>
          </>
        )}
        <dt>Campaigns</dt>
        <dd safe>{p.campaignIds.map((x) => props.campaigns.get(x) ?? x).join(', ') || 'none'}</dd>
        <dt>Group</dt>
        <dd id="partner-group">
          {group ? <a href={`/admin/groups/${encodeURIComponent(group.id)}`} safe>{group.name}</a> : "none (each campaign's rules)"}
        </dd>
        <dt>Recruited by</dt>
        <dd id="partner-recruiter">
          {props.recruiter ? (
            <a href={detailPath(props.recruiter.id)} safe>
              {props.recruiter.name}
            </a>
          ) : (
            'nobody'
          )}
        </dd>
        <dt>Payout email</dt>
        <dd safe>{p.payoutEmail ?? 'none (the sign-in email)'}</dd>
        <dt>Paid by</dt>
        <dd id="payout-method" safe>
          {methodText(props.payoutMethod)}
        </dd>
        <dt>Tax form</dt>
        <dd id="partner-tax-form"><TaxFormBadge status={props.taxForm} /> <span safe>{taxFormText(props.taxForm)}</span></dd>
        <dt>Billing Connect account</dt>
        <dd safe>{p.billingConnectAccountId ?? 'none'}</dd>
        <dt>Created</dt>
        <dd safe>{day(p.createdAt)}</dd>
        {!!p.activatedAt && (
          <>
            <dt>Signed in first</dt>
            <dd safe>{day(p.activatedAt)}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code safe>{p.id}</code>
        </dd>
      </dl>
      <ApplicationFacts partner={p} questions={props.questions} decide={can(props.page, 'POST', '/admin/applications/:id/approve')} />
      <ApplicationDialogs page={props.page} partner={p} />
    </>
  );
}

/** The numbers over the range: the cards and the money by status. */
function Performance(props: DetailProps) {
  const { path, id, cur, c, inCurrency, earned, versus, rateBp } = derive(props);
  return (
    <>
      <h2>Performance</h2>
      <div class="tools-row">
        {props.currencies.length > 1 && (
          <form method="get" action={path} class="range" aria-label="Currency">
            {Object.entries(rangeQuery(props.range)).map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
            <SelectField name="currency" label="Money in" value={cur} options={props.currencies.map((x) => ({ value: x, label: x }))} />
            <button type="submit" class="secondary">
              Show
            </button>
          </form>
        )}
        <RangePicker action={path} range={props.range} keep={{ currency: props.kept.currency }} />
      </div>
      <ul class="cards wide-cards" id="kpis">
        <Kpi label="Clicks" value={c.clicks.toLocaleString('en-US')} note={filteredText(c.filteredClicks)} change={c.previous ? compare(c.clicks, c.previous.clicks) : undefined} versus={versus} />
        <Kpi label="Conversions" value={c.conversions.toLocaleString('en-US')} change={c.previous ? compare(c.conversions, c.previous.conversions) : undefined} versus={versus} />
        <Kpi
          label="Conversion rate"
          value={clickRate(c)}
          change={c.previous && c.clicks > 0 && c.previous.clicks > 0 ? comparePoints(rateBp(c.convertedClicks, c.clicks), rateBp(c.previous.convertedClicks, c.previous.clicks)) : undefined}
          versus={versus}
        />
        <Kpi label="Revenue" value={formatMoney(inCurrency?.revenue ?? 0n, cur)} />
        <Kpi label="Commissions" value={formatMoney(earned, cur)} href={`/admin/commissions?partnerId=${id}`} />
        <Kpi label="Earnings per click" value={epcText(earned, c.clicks, cur)} />
      </ul>
      <p class="caption" safe>
        {`${props.range.label}. Commissions and EPC leave reversed commissions out; revenue is what the customers this partner brought paid.`}
      </p>
      <FunnelView funnel={props.funnel} rangeLabel={props.range.label} converted={props.converted?.revenue} level={3} />

      <h3 class="sub">Money by status</h3>
      <MoneyByStatusTable money={props.money} rangeLabel={props.range.label} />
      <ConvertedMoney converted={props.converted} money={props.money.map((m) => ({ ...m, commissions: m.accrued + m.approved + m.paid }))} owed="the partner is" />
    </>
  );
}

/** The edit form (name, billing account, campaigns, group, recruiter). */
function EditForm(props: DetailProps) {
  const { path, archivedHeld, edit, errors, editErrors } = derive(props);
  return (
    <>
      <h2 id="edit">Edit partner</h2>
      <form method="post" action={path} novalidate class="form-width" id="edit-form">
        <CsrfInput token={props.page.csrf} />
        {editErrors && <Notice kind="error" text={errors._form ?? 'Nothing was saved: fix the fields marked below.'} />}
        <Field name="name" label="Name" value={edit.name} error={errors.name} required />
        <Field
          name="billingConnectAccountId"
          label="Billing Connect account id"
          hint="The account payouts are transferred to (e.g. Stripe's acct_…). Leave empty for payouts settled by hand."
          value={edit.billingConnectAccountId}
          error={errors.billingConnectAccountId}
        />
        {props.liveCampaigns.length > 0 ? (
          <CampaignChoices
            campaigns={props.liveCampaigns}
            ticked={new Set(edit.campaignIds)}
            error={errors.campaignIds}
            legend="Campaigns the partner may promote"
            hint={archivedHeld.length > 0 ? `Also holds archived ${archivedHeld.map((x) => props.campaigns.get(x) ?? x).join(', ')}: saving drops archived campaigns from the partner.` : undefined}
          />
        ) : (
          <p class="hint">No live campaign to grant.</p>
        )}
        <input type="hidden" name="groupShown" value="1" />
        <SelectField
          name="groupId"
          label="Group"
          value={edit.groupId}
          error={errors.groupId}
          options={[{ value: '', label: "No group (each campaign's rules)" }, ...props.groups.map((g) => ({ value: g.id, label: g.name }))]}
        />
        <Field
          name="recruiter"
          label="Recruited by (optional)"
          hint="The email (or id) of the partner who recruited this one: it earns the campaigns' recruiter percent of this partner's commissions. Empty: nobody."
          value={edit.recruiter}
          error={errors.recruiter}
        />
        <button type="submit">Save changes</button>
      </form>
    </>
  );
}

/** The partner's payout method, its readiness and hold, in a line. */
function methodText(m: PayoutMethod): string {
  if (!m.type) return 'Not chosen (paid by hand)';
  const label = { stripe: 'Stripe', paypal: 'PayPal', wise: 'Wise', manual: 'By hand' }[m.type];
  const to = m.email ?? m.stripeAccountId;
  const ready = m.ready ? 'ready' : 'not ready (Stripe onboarding not finished)';
  const held = m.heldUntil ? `; held until ${m.heldUntil.slice(0, 16).replace('T', ' ')} UTC (changed ${m.changedAt?.slice(0, 10)})` : '';
  return `${label}${to ? ` (${to})` : ''}, ${ready}${held}`;
}
