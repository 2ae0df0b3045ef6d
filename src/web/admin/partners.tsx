// Admin partners: the list with each partner's numbers over a date range (sortable, filtered,
// paged, exported as CSV, bulk invite and bulk revoke), create; the partner's page with its totals,
// links, referred customers, edit form, commissions and payouts; invite again, revoke (confirmed,
// with a reason), reinstate. The rules live in modules/partners/service.ts and
// workflows/revoke-partner.ts; the numbers come from modules/reports/partners.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { formatMinor } from '../../lib/money';
import { listCampaigns } from '../../modules/campaigns/service';
import { listCommissions } from '../../modules/commissions/service';
import { Email, Name } from '../../lib/fields';
import { findPartner, findPartnerByEmail, updatePartner, type Partner } from '../../modules/partners/service';
import { createPartner, reinvitePartner } from '../../workflows/invite-partner';
import { listGroups, movePartnersToGroup, type Group } from '../../modules/groups/service';
import { overrideRecruits, recruitsOf, type Recruit } from '../../modules/reports/rewards';
import { UpdatePartnerBody } from '../../modules/partners/model';
import { listPayouts } from '../../modules/payouts/service';
import {
  linkStats,
  moneyCurrencies,
  partnerCounts,
  partnerMainCurrency,
  partnerMoney,
  partnerStats,
  partnersByIds,
  referredCustomers,
  PARTNER_SORT_KEYS,
  PARTNER_STATUS_FILTERS,
  type CustomerState,
  type LinkStatsRow,
  type PartnerCounts,
  type PartnerMoney,
  type PartnerSortKey,
  type PartnerStatsRow,
  type PartnerStatusFilter,
  type ReferredCustomer,
} from '../../modules/reports/partners';
import { reinstatePartner, revokePartner } from '../../workflows/revoke-partner';
import { partnerFlagHistory } from '../../modules/fraud/review';
import { PartnerFlags } from './review';
import { ApplicationDialogs, ApplicationFacts } from './applications';
import { csvResponse, csvStream } from '../../lib/csv';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CsrfInput, Field, formErrors, formList, schemaErrors, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import { compare, comparePoints, parseRange, RangePicker, rangeQuery, type DateRange } from '../range';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { attr, Badge, EmptyState, formatMoney, formatRate, href, Kpi, MenuButton, menuId, MoneyCell, Pager, parsePage, parseSort, partnerBadge, RowMenu, SortHeader, Trunc, type Sort, type Tone, NumHead } from '../ui';
import { AdminLayout, campaignNames, day, Done, NotFoundPage, refused, type AdminKit } from './kit';
import { CommissionsTable, PayoutsTable } from './tables';
import { CodesSection, loadCodes, type CodesData } from './codes';

const LIST = '/admin/partners';
const PAGE_SIZE = 50;
const CUSTOMERS_PAGE = 25;
const LINKS_SHOWN = 100;
const RECRUITS_SHOWN = 100;
const MAX_BULK = 100;
const DEFAULT_SORT: Sort<PartnerSortKey> = { key: 'created', dir: 'desc' };
const DONE = {
  created: 'Partner created.',
  invited: 'Invite sent.',
  revoked: 'Partner revoked: their sessions ended and their links stopped recording clicks.',
  reinstated: 'Partner reinstated.',
  saved: 'Changes saved.',
};
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
/** The account id as PATCH /partners/:id takes it, without its null (the form sends an empty field). */
const BillingAccountId = t.String({ minLength: 1, maxLength: 255 });
const text = (max: number) => t.Optional(t.String({ maxLength: max }));
/** The list's query: filters, range, currency, sort, page, and the outcome of an action. */
const ListQuery = t.Object({
  q: text(254),
  status: text(20),
  currency: text(10),
  range: text(20),
  from: text(20),
  to: text(20),
  sort: text(20),
  dir: text(10),
  page: text(10),
  done: text(20),
  invited: text(6),
  skipped: text(6),
  revoked: text(6),
  moved: text(6),
  group: text(64),
});
const DetailQuery = t.Object({ range: text(20), from: text(20), to: text(20), currency: text(10), page: text(10), done: text(20) });
/** Query keys a bulk action's `back` field may carry back to the list (nothing else is echoed). */
const LIST_KEYS = ['q', 'status', 'group', 'currency', 'range', 'from', 'to', 'sort', 'dir', 'page'] as const;
/** The create form as typed; `campaignIds` undefined: the form showed no campaign to choose. */
type CreateValues = { name: string; email: string; sendInvite: string; campaignIds?: string[] };
/** The edit form as typed. */
type EditValues = { name: string; billingConnectAccountId: string; campaignIds: string[]; groupId: string; recruiter: string };
const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
const isoDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '');
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Earnings per click in minor units, rounded half up; null without clicks. */
export function epcMinor(commissions: bigint, clicks: number): bigint | null {
  if (clicks <= 0) return null;
  const k = BigInt(clicks);
  return (2n * commissions + k) / (2n * k);
}

const epcText = (commissions: bigint, clicks: number, currency: string) => {
  const epc = epcMinor(commissions, clicks);
  return epc === null ? '–' : formatMoney(epc, currency);
};

type ListState = {
  q: string;
  status?: PartnerStatusFilter;
  /** a group's id, 'none' (in no group), or undefined (any) */
  group?: string;
  groups: Group[];
  range: DateRange;
  currency: string;
  currencies: string[];
  sort: Sort<PartnerSortKey>;
  page: number;
  /** The query that reproduces this view (without the page). */
  query: Record<string, string | undefined>;
};

/** The list's view from its query; anything unknown falls back (no error page for a bad sort). */
function readList(query: Record<string, string | undefined>, currencies: string[], groups: Group[]): ListState {
  const q = (query.q ?? '').trim().slice(0, 254);
  const status = PARTNER_STATUS_FILTERS.find((s) => s === query.status);
  const group = query.group === 'none' ? 'none' : groups.find((g) => g.id === query.group)?.id;
  const range = parseRange(query);
  const currency = currencies.find((c) => c === query.currency) ?? currencies[0] ?? 'USD';
  const sort = parseSort(query, PARTNER_SORT_KEYS, DEFAULT_SORT);
  const { page } = parsePage(query, PAGE_SIZE);
  const sorted = sort.key === DEFAULT_SORT.key && sort.dir === DEFAULT_SORT.dir ? {} : { sort: sort.key, dir: sort.dir };
  return {
    q,
    status,
    group,
    groups,
    range,
    currency,
    currencies,
    sort,
    page,
    query: { q: q || undefined, status, group, currency: currency === currencies[0] ? undefined : currency, ...rangeQuery(range), ...sorted },
  };
}

/** The list's query string kept by a bulk form, read back through the allowed keys only. */
function listBack(back: string | undefined, extra: Record<string, string> = {}): string {
  const given = new URLSearchParams((back ?? '').slice(0, 2000));
  const kept: Record<string, string | undefined> = {};
  for (const key of LIST_KEYS) kept[key] = given.get(key)?.slice(0, 254) || undefined;
  return href(LIST, kept, extra);
}

export function partnerRoutes(ctx: AppContext, kit: AdminKit) {
  /** Every group, for the filter, the column and the move choices (a program has a handful). */
  const allGroups = async () => (await listGroups(ctx.sql, { limit: 200 })).slice(0, 200);

  async function listView(page: AdminPage, query: Record<string, string | undefined>, input: { values?: CreateValues; errors?: FormErrors; outcome?: { ok?: string; error?: string } } = {}) {
    const [currencies, groups] = await Promise.all([moneyCurrencies(ctx.sql), allGroups()]);
    const state = readList(query, currencies, groups);
    const [stats, campaigns] = await Promise.all([
      partnerStats(ctx.sql, {
        search: state.q || undefined,
        status: state.status,
        group: state.group,
        span: state.range,
        currency: state.currency,
        sort: state.sort,
        limit: PAGE_SIZE,
        offset: (state.page - 1) * PAGE_SIZE,
      }),
      listCampaigns(ctx.sql, { limit: 500, archived: false }),
    ]);
    return (
      <PartnersPage
        page={page}
        state={state}
        rows={stats.rows}
        total={stats.total}
        campaigns={campaigns.slice(0, 500).map((c) => ({ id: c.id, name: c.name }))}
        values={input.values}
        errors={input.errors}
        done={query.done}
        outcome={input.outcome ?? bulkOutcome(query)}
      />
    ) as string;
  }

  async function detailView(
    page: AdminPage,
    partner: Partner,
    query: Record<string, string | undefined>,
    input: { errors?: FormErrors; reason?: string; edit?: EditValues; openRevoke?: boolean } = {},
  ) {
    const range = parseRange(query);
    const [currencies, own] = await Promise.all([moneyCurrencies(ctx.sql), partnerMainCurrency(ctx.sql, partner.id)]);
    const currency = currencies.find((c) => c === query.currency) ?? own ?? currencies[0] ?? 'USD';
    const { page: customerPage, offset } = parsePage(query, CUSTOMERS_PAGE);
    const p = { limit: 50 };
    const [counts, money, links, customers, commissions, payouts, names, live, codes, flags, groups, recruits, recruiter] = await Promise.all([
      partnerCounts(ctx.sql, { partnerId: partner.id, span: range, previous: range.previous }),
      partnerMoney(ctx.sql, { partnerId: partner.id, span: range }),
      linkStats(ctx.sql, { partnerId: partner.id, span: range, currency, limit: LINKS_SHOWN }),
      referredCustomers(ctx.sql, { partnerId: partner.id, currency, limit: CUSTOMERS_PAGE, offset }),
      listCommissions(ctx.sql, { ...p, partnerId: partner.id }),
      listPayouts(ctx.sql, { ...p, partnerId: partner.id }),
      campaignNames(ctx),
      listCampaigns(ctx.sql, { limit: 500, archived: false }),
      loadCodes(ctx, { partnerId: partner.id }),
      partnerFlagHistory(ctx.sql, partner.id),
      allGroups(),
      recruitsOf(ctx.sql, { recruiterId: partner.id, limit: RECRUITS_SHOWN }),
      partner.referredBy ? findPartner(ctx.sql, partner.referredBy) : Promise.resolve(null),
    ]);
    const overrides = await overrideRecruits(ctx.sql, commissions.filter((c) => c.sourceCommissionId).map((c) => c.id));
    const kept = { ...rangeQuery(range), currency: query.currency && currency === query.currency ? currency : undefined };
    return (
      <PartnerDetailPage
        page={page}
        partner={partner}
        range={range}
        currency={currency}
        currencies={currencies}
        kept={kept}
        counts={counts}
        money={money}
        links={links}
        customers={customers}
        customerPage={customerPage}
        commissions={commissions.slice(0, p.limit)}
        payouts={payouts.slice(0, p.limit)}
        campaigns={names}
        liveCampaigns={live.slice(0, 500).map((c) => ({ id: c.id, name: c.name }))}
        baseUrl={ctx.config.baseUrl}
        done={query.done}
        errors={input.errors}
        reason={input.reason}
        edit={input.edit}
        codes={codes}
        flags={flags}
        groups={groups}
        recruits={recruits}
        recruiter={recruiter}
        overrides={overrides}
      />
    ) as string;
  }

  /** The revoke confirmation of one partner as a page (no script, or a refused post). */
  function revokePage(page: AdminPage, partner: Partner, input: { reason?: string; error?: string } = {}) {
    return (
      <AdminLayout page={page} title={`Revoke ${partner.name}`} current={LIST}>
        <p class="back">
          <a href={detailPath(partner.id)} safe>
            {partner.name}
          </a>
        </p>
        <ConfirmPanel {...revokeConfirm(page, partner, input)} back={detailPath(partner.id)} />
      </AdminLayout>
    ) as string;
  }

  /** An action on one partner: a missing partner is a 404 page, a refused one shows beside its form. */
  function partnerAction(name: string, act: (page: AdminPage, partner: Partner, form: Record<string, string>) => Promise<Response>) {
    return ({ request, body, params }: { request: Request; body: unknown; params: { id: string } }) =>
      kit.form(request, body, detailPath(params.id), async (page, form) => {
        const partner = await findPartner(ctx.sql, params.id);
        if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
        try {
          return await act(page, partner, form);
        } catch (error) {
          const errors = formErrors(error, ['reason']);
          if (!errors) throw error;
          if (errors._form) errors[name] = errors._form;
          const fresh = (await findPartner(ctx.sql, partner.id))!;
          return render(await detailView(page, fresh, {}, { errors, reason: form.reason }), { status: (error as AppError).status });
        }
      });
  }

  /** The bulk revoke confirmation: who, why, and the typed phrase. */
  async function bulkRevokeView(page: AdminPage, ids: string[], back: string, input: { reason?: string; errors?: FormErrors } = {}) {
    const found = await partnersByIds(ctx.sql, ids);
    const targets = found.filter((p) => p.status !== 'revoked');
    return (
      <AdminLayout page={page} title="Revoke partners" current={LIST}>
        <p class="back">
          <a href={listBack(back)}>Partners</a>
        </p>
        {targets.length === 0 ? (
          <div class="confirm-page">
            <h1>Revoke partners</h1>
            <Notice kind="error" text={ids.length === 0 ? 'Tick the partners to revoke first.' : 'None of the ticked partners can be revoked: they are revoked already.'} />
            <p>
              <a class="button secondary" href={listBack(back)}>
                Back to partners
              </a>
            </p>
          </div>
        ) : (
          <BulkRevokePanel page={page} targets={targets} skipped={found.length - targets.length} back={back} reason={input.reason} errors={input.errors} />
        )}
      </AdminLayout>
    ) as string;
  }

  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request, query }) => kit.page(request, async (page) => render(await listView(page, query))), { query: ListQuery })
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, async () => {
          const state = readList(query, await moneyCurrencies(ctx.sql), await allGroups());
          let offset = 0;
          const stream = csvStream<PartnerStatsRow>({
            header: CSV_HEADER,
            pageSize: 500,
            page: async (_after, limit) => {
              const { rows } = await partnerStats(ctx.sql, { search: state.q || undefined, status: state.status, group: state.group, span: state.range, currency: state.currency, sort: state.sort, limit, offset });
              offset += rows.length;
              return rows;
            },
            cells: (r) => [
              r.id,
              r.name,
              r.email,
              r.status,
              r.createdAt.toISOString(),
              r.activatedAt?.toISOString() ?? '',
              r.revokedAt?.toISOString() ?? '',
              r.billingConnectAccountId ?? '',
              state.range.start?.toISOString() ?? '',
              state.range.end.toISOString(),
              r.clicks,
              r.conversions,
              state.currency,
              formatMinor(r.revenue, state.currency),
              formatMinor(r.commissions, state.currency),
            ],
          });
          return csvResponse(stream, 'partners.csv');
        }),
      { query: ListQuery },
    )
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const values: CreateValues = {
          name: (form.name ?? '').trim(),
          email: (form.email ?? '').trim(),
          sendInvite: form.sendInvite === 'on' ? 'on' : '',
          campaignIds: form.campaignsShown === '1' ? formList(body, 'campaignIds') : undefined,
        };
        const errors = schemaErrors(t.Object({ email: Email, name: Name }), { email: values.email, name: values.name });
        if (Object.keys(errors).length > 0) return render(await listView(page, {}, { values, errors }), { status: 400 });
        try {
          const partner = await createPartner(ctx, { email: values.email, name: values.name, sendInvite: values.sendInvite === 'on', campaignIds: values.campaignIds });
          return seeOther(`${detailPath(partner.id)}?done=created`);
        } catch (error) {
          const problems = formErrors(error, ['email', 'name', 'campaignIds']);
          if (!problems) throw error;
          // the one conflict here is an email already taken: say it beside the email field
          if (problems._form && error instanceof AppError && error.code === 'conflict') {
            problems.email = problems._form;
            delete problems._form;
          }
          return render(await listView(page, {}, { values, errors: problems }), { status: (error as AppError).status });
        }
      }),
    )
    .post(`${LIST}/bulk-invite`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        if (ids.length === 0 || ids.length > MAX_BULK) {
          const error = ids.length === 0 ? 'Tick the partners to invite again first.' : `At most ${MAX_BULK} partners at once.`;
          return render(await listView(page, Object.fromEntries(new URLSearchParams(listBack(form.back).split('?')[1] ?? '')), { outcome: { error } }), { status: 400 });
        }
        let sent = 0;
        for (const id of ids) {
          try {
            await reinvitePartner(ctx, id);
            sent++;
          } catch (error) {
            // active, revoked or gone since the page was drawn: counted as skipped
            if (!(error instanceof AppError)) throw error;
          }
        }
        return seeOther(listBack(form.back, { invited: String(sent), skipped: String(ids.length - sent) }));
      }),
    )
    .post(`${LIST}/bulk-move`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        const back = form.back ?? '';
        const groups = await allGroups();
        const target = (form.groupId ?? '') === '' ? null : (groups.find((g) => g.id === form.groupId) ?? undefined);
        const refuse = async (error: string) =>
          render(await listView(page, Object.fromEntries(new URLSearchParams(listBack(back).split('?')[1] ?? '')), { outcome: { error } }), { status: 400 });
        if (ids.length === 0) return refuse('Tick the partners to move first.');
        if (ids.length > MAX_BULK) return refuse(`At most ${MAX_BULK} partners at once.`);
        if (target === undefined) return refuse('Choose the group to move them to: that group no longer exists.');
        const found = await partnersByIds(ctx.sql, ids);
        // nothing moves without the confirmation: the bulk bar's post answers the confirm page
        if (!isConfirmed(form)) return render(<BulkMovePage page={page} targets={found} group={target} back={back} />);
        const moved = await movePartnersToGroup(ctx.sql, found.map((p) => p.id), target?.id ?? null);
        return seeOther(listBack(back, { moved: String(moved) }));
      }),
    )
    .get(`${LIST}/bulk-revoke`, ({ request }) => kit.page(request, async (page) => render(await bulkRevokeView(page, [], ''))))
    .post(`${LIST}/bulk-revoke`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const ids = formList(body, 'ids');
        const back = form.back ?? '';
        if (ids.length > MAX_BULK) return render(await listView(page, {}, { outcome: { error: `At most ${MAX_BULK} partners at once.` } }), { status: 400 });
        // nothing happens without the confirmation: the first post (the bulk bar) answers the confirm page
        if (!isConfirmed(form)) return render(await bulkRevokeView(page, ids, back));
        const targets = (await partnersByIds(ctx.sql, ids)).filter((p) => p.status !== 'revoked');
        const reason = (form.reason ?? '').trim();
        const errors: FormErrors = {};
        if (reason === '') errors.reason = 'say why, the partners are shown this reason';
        else if (reason.length > 1000) errors.reason = 'at most 1000 characters';
        if ((form.phrase ?? '').trim() !== revokePhrase(targets.length)) errors.phrase = `type ${revokePhrase(targets.length)} to confirm`;
        if (targets.length === 0 || Object.keys(errors).length > 0) return render(await bulkRevokeView(page, ids, back, { reason: form.reason, errors }), { status: 400 });
        let revoked = 0;
        for (const p of targets) {
          await revokePartner(ctx, p.id, { reason, revokeKeys: false });
          revoked++;
        }
        return seeOther(listBack(back, { revoked: String(revoked) }));
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          return render(await detailView(page, partner, query));
        }),
      { params: Params, query: DetailQuery },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), async (page, form) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          const edit: EditValues = {
            name: (form.name ?? '').trim(),
            billingConnectAccountId: (form.billingConnectAccountId ?? '').trim(),
            campaignIds: formList(body, 'campaignIds'),
            groupId: (form.groupId ?? '').trim(),
            recruiter: (form.recruiter ?? '').trim(),
          };
          const input = { name: edit.name, billingConnectAccountId: edit.billingConnectAccountId === '' ? null : edit.billingConnectAccountId };
          // the API's own field rules (an empty account id clears it, so it is checked only when given)
          const errors = schemaErrors(t.Object({ name: UpdatePartnerBody.properties.name }), { name: input.name });
          if (input.billingConnectAccountId !== null)
            Object.assign(errors, schemaErrors(t.Object({ billingConnectAccountId: BillingAccountId }), { billingConnectAccountId: input.billingConnectAccountId }));
          // the recruiter is named by email (or id): empty clears it
          let referredBy: string | null = null;
          if (edit.recruiter !== '') {
            const found = edit.recruiter.includes('@') ? await findPartnerByEmail(ctx.sql, edit.recruiter.slice(0, 254)) : await findPartner(ctx.sql, edit.recruiter.slice(0, 64));
            if (found) referredBy = found.id;
            else errors.recruiter = 'no partner has this email or id';
          }
          if (Object.keys(errors).length > 0) return render(await detailView(page, partner, {}, { errors, edit }), { status: 400 });
          try {
            await updatePartner(ctx.sql, partner.id, {
              ...input,
              campaignIds: form.campaignsShown === '1' ? edit.campaignIds : undefined,
              groupId: form.groupShown === '1' ? edit.groupId || null : undefined,
              referredBy,
            });
          } catch (error) {
            const problems = formErrors(error, ['name', 'billingConnectAccountId', 'campaignIds', 'groupId', 'referredBy']);
            if (problems?.referredBy) {
              problems.recruiter = problems.referredBy;
              delete problems.referredBy;
            }
            if (!problems) throw error;
            return render(await detailView(page, partner, {}, { errors: problems, edit }), { status: (error as AppError).status });
          }
          return seeOther(`${detailPath(partner.id)}?done=saved`);
        }),
      { params: Params },
    )
    .post(
      `${LIST}/:id/invite`,
      partnerAction('invite', async (_page, partner) => {
        await reinvitePartner(ctx, partner.id);
        return seeOther(`${detailPath(partner.id)}?done=invited`);
      }),
      { params: Params },
    )
    .get(
      `${LIST}/:id/revoke`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          if (partner.status === 'revoked') return seeOther(detailPath(partner.id));
          return render(revokePage(page, partner, { reason: query.reason }));
        }),
      { params: Params, query: t.Object({ reason: t.Optional(t.String({ maxLength: 1000 })) }) },
    )
    .post(
      `${LIST}/:id/revoke`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), async (page, form) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          // nothing happens without the confirmation (the dialog's or the confirm page's button)
          if (!isConfirmed(form)) return render(revokePage(page, partner, { reason: form.reason }));
          const reason = (form.reason ?? '').trim();
          const error = reason === '' ? 'say why, the partner is shown this reason' : reason.length > 1000 ? 'at most 1000 characters' : null;
          if (error) return render(revokePage(page, partner, { reason: form.reason, error }), { status: 400 });
          try {
            await revokePartner(ctx, partner.id, { reason, revokeKeys: false });
          } catch (e) {
            return refused(e, detailPath(partner.id));
          }
          return seeOther(`${detailPath(partner.id)}?done=revoked`);
        }),
      { params: Params },
    )
    .post(
      `${LIST}/:id/reinstate`,
      partnerAction('reinstate', async (_page, partner) => {
        await reinstatePartner(ctx, partner.id);
        return seeOther(`${detailPath(partner.id)}?done=reinstated`);
      }),
      { params: Params },
    );
}

const CSV_HEADER = [
  'id',
  'name',
  'email',
  'status',
  'createdAt',
  'activatedAt',
  'revokedAt',
  'billingConnectAccountId',
  'rangeStart',
  'rangeEnd',
  'clicks',
  'conversions',
  'currency',
  'revenue',
  'commissions',
] as const;

/** The outcome of a bulk action, from counts in the query (numbers only, nothing echoed). */
function bulkOutcome(query: Record<string, string | undefined>): { ok?: string } {
  const n = (v: string | undefined) => (/^\d{1,6}$/.test(v ?? '') ? Number(v) : null);
  const invited = n(query.invited);
  const skipped = n(query.skipped) ?? 0;
  const revoked = n(query.revoked);
  const moved = n(query.moved);
  if (moved !== null) return { ok: `Moved ${plural(moved, 'partner')}.` };
  if (invited !== null) {
    return { ok: `Invite sent to ${plural(invited, 'partner')}.${skipped > 0 ? ` ${plural(skipped, 'partner')} skipped: only invited partners who have not signed in get one.` : ''}` };
  }
  if (revoked !== null) return { ok: `Revoked ${plural(revoked, 'partner')}: their sessions ended and their links stopped recording clicks.` };
  return {};
}

const revokePhrase = (n: number) => `REVOKE ${n}`;

function revokeConfirm(page: AdminPage, partner: Partner, input: { reason?: string; error?: string }) {
  return {
    title: `Revoke ${partner.name}`,
    action: `${detailPath(partner.id)}/revoke`,
    button: `Revoke ${partner.name}`,
    csrf: page.csrf,
    danger: true,
    children: (
      <>
        <p>Their sessions end at once and their links stop recording clicks. Commissions already earned stay. You can reinstate them later.</p>
        <Field name="reason" label="Reason" hint="The partner is shown this reason." value={input.reason} error={input.error} required />
      </>
    ),
  };
}

function BulkRevokePanel(props: { page: AdminPage; targets: { id: string; name: string; email: string }[]; skipped: number; back: string; reason?: string; errors?: FormErrors }) {
  const n = props.targets.length;
  const phrase = revokePhrase(n);
  return (
    <ConfirmPanel
      title={`Revoke ${plural(n, 'partner')}`}
      action={`${LIST}/bulk-revoke`}
      button={`Revoke ${plural(n, 'partner')}`}
      csrf={props.page.csrf}
      danger
      fields={{ ids: props.targets.map((p) => p.id), back: props.back }}
      back={listBack(props.back)}
    >
      <p>
        Their sessions end at once and their links stop recording clicks. Commissions already earned stay. Each can be reinstated later from their page.
        {props.skipped > 0 ? ` ${plural(props.skipped, 'ticked partner is', 'ticked partners are')} revoked already and left as they are.` : ''}
      </p>
      <ul class="bulk-list" id="bulk-targets">
        {props.targets.map((p) => (
          <li>
            <Trunc text={p.name} />{' '}
            <span class="muted trunc" title={attr(p.email)} safe>
              {p.email}
            </span>
          </li>
        ))}
      </ul>
      <Field name="reason" label="Reason" hint="Every partner above is shown this reason." value={props.reason} error={props.errors?.reason} required />
      <Field name="phrase" label={`Type ${phrase} to confirm`} value="" error={props.errors?.phrase} required autocomplete="off" />
    </ConfirmPanel>
  );
}

/** The bulk move's confirmation: who moves to which group (or out of every group). */
function BulkMovePage(props: { page: AdminPage; targets: { id: string; name: string; email: string; groupId?: string | null }[]; group: Group | null; back: string }) {
  const n = props.targets.length;
  const where = props.group ? props.group.name : 'no group';
  const what = props.group
    ? `From their next commission on, these partners earn under the rules of ${props.group.name} where it has a rule for the event (a commission snapshot still wins). Commissions already earned do not change.`
    : "These partners leave their group: from their next commission on, they earn under each campaign's own rules. Commissions already earned do not change.";
  return (
    <AdminLayout page={props.page} title="Move partners" current={LIST}>
      <p class="back">
        <a href={listBack(props.back)}>Partners</a>
      </p>
      <ConfirmPanel
        title={`Move ${plural(n, 'partner')} to ${where}`}
        action={`${LIST}/bulk-move`}
        button={`Move ${plural(n, 'partner')}`}
        csrf={props.page.csrf}
        fields={{ ids: props.targets.map((p) => p.id), back: props.back, groupId: props.group?.id ?? '' }}
        back={listBack(props.back)}
      >
        <p safe>{what}</p>
        <ul class="bulk-list" id="bulk-targets">
          {props.targets.map((p) => (
            <li>
              <Trunc text={p.name} />{' '}
              <span class="muted trunc" title={attr(p.email)} safe>
                {p.email}
              </span>
            </li>
          ))}
        </ul>
      </ConfirmPanel>
    </AdminLayout>
  );
}

// ---------------------------------------------------------------------------------------------
// The list

function PartnersPage(props: {
  page: AdminPage;
  state: ListState;
  rows: PartnerStatsRow[];
  total: number;
  campaigns: { id: string; name: string }[];
  values?: CreateValues;
  errors?: FormErrors;
  done?: string;
  outcome: { ok?: string; error?: string };
}) {
  const s = props.state;
  const sendInvite = props.values ? props.values.sendInvite === 'on' : true;
  // every live campaign is ticked until the admin says otherwise
  const ticked = new Set(props.values?.campaignIds ?? props.campaigns.map((c) => c.id));
  const filtered = !!s.q || !!s.status || !!s.group;
  const pageQuery = { ...s.query, page: s.page > 1 ? String(s.page) : undefined };
  const back = new URLSearchParams(Object.entries(pageQuery).filter((e): e is [string, string] => !!e[1])).toString();
  const others = s.currencies.filter((c) => c !== s.currency);
  const header = (label: string, column: PartnerSortKey, num = false) => <SortHeader label={label} column={column} sort={s.sort} path={LIST} query={s.query} num={num} />;
  const detail = (id: string) => href(detailPath(id), { ...rangeQuery(s.range), currency: s.query.currency });
  return (
    <AdminLayout page={props.page} title="Partners" current={LIST}>
      <div class="page-head">
        <h1>Partners</h1>
        <div class="actions">
          <a class="button secondary" href={href(`${LIST}.csv`, s.query)} id="export">
            Export CSV
          </a>
          <a class="button" href="#new">
            New partner
          </a>
        </div>
      </div>
      <Done texts={DONE} done={props.done} />
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <div class="tools-row">
        <form method="get" action={LIST} role="search" class="row partner-filter" aria-label="Filter partners">
          <Field name="q" label="Search by email or name" type="search" value={s.q} />
          <SelectField
            name="status"
            label="Status"
            value={s.status ?? ''}
            options={[
              { value: '', label: 'Any' },
              { value: 'invited', label: 'Invited' },
              { value: 'active', label: 'Active' },
              { value: 'revoked', label: 'Revoked' },
            ]}
          />
          {s.groups.length > 0 && (
            <SelectField
              name="group"
              label="Group"
              value={s.group ?? ''}
              options={[{ value: '', label: 'Any' }, { value: 'none', label: 'No group' }, ...s.groups.map((g) => ({ value: g.id, label: g.name }))]}
            />
          )}
          {s.currencies.length > 1 && <SelectField name="currency" label="Money in" value={s.currency} options={s.currencies.map((c) => ({ value: c, label: c }))} />}
          {Object.entries({ ...rangeQuery(s.range), sort: s.query.sort, dir: s.query.dir }).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        <RangePicker action={LIST} range={s.range} keep={{ q: s.query.q, status: s.query.status, group: s.query.group, currency: s.query.currency, sort: s.query.sort, dir: s.query.dir }} />
      </div>
      <p class="caption" id="money-note" safe>
        {`Numbers for ${s.range.label.toLowerCase()}. Revenue, commissions and EPC in ${s.currency}; commissions leave reversed ones out.${
          others.length > 0 ? ` Money in ${others.join(', ')} is shown when you choose that currency.` : ''
        }`}
      </p>
      {props.rows.length === 0 ? (
        props.total > 0 ? (
          <EmptyState title="No partners on this page" text="The list is shorter than this page number." clear={href(LIST, s.query)} />
        ) : filtered ? (
          <EmptyState title="No partner matches" text="No partner matches the search and filters." clear={href(LIST, { ...rangeQuery(s.range), currency: s.query.currency })} />
        ) : (
          <EmptyState title="No partners yet" text="Invite your first partner: they get a sign-in link to the portal." action={{ href: '#new', label: 'New partner' }} />
        )
      ) : (
        <>
          <form method="post" action={`${LIST}/bulk-invite`} id="bulk" class="bulk">
            <CsrfInput token={props.page.csrf} />
            <input type="hidden" name="back" value={back} />
          </form>
          <div class="bulk-bar" data-bulk-bar="bulk" id="bulk-bar">
            <span data-bulk-count>Tick partners for bulk actions</span>
            <button type="submit" form="bulk" formaction={`${LIST}/bulk-invite`} class="secondary">
              Send invite again
            </button>
            {s.groups.length > 0 && (
              <span class="bulk-move">
                <label for="bulk-group" class="vh">
                  Group to move the ticked partners to
                </label>
                <select id="bulk-group" name="groupId" form="bulk">
                  {s.groups.map((g) => (
                    <option value={g.id} safe>
                      {g.name}
                    </option>
                  ))}
                  <option value="">No group (leave their group)</option>
                </select>
                <button type="submit" form="bulk" formaction={`${LIST}/bulk-move`} class="secondary">
                  Move to group…
                </button>
              </span>
            )}
            <button type="submit" form="bulk" formaction={`${LIST}/bulk-revoke`} class="danger">
              Revoke…
            </button>
          </div>
          <PartnersTable rows={props.rows} state={s} header={header} detail={detail} csrf={props.page.csrf} />
          <Pager path={LIST} query={s.query} page={s.page} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
        </>
      )}
      <h2 id="new">New partner</h2>
      <form method="post" action={LIST} novalidate class="narrow">
        <CsrfInput token={props.page.csrf} />
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <Field name="name" label="Name" value={props.values?.name} error={props.errors?.name} required />
        <Field name="email" label="Email" type="email" value={props.values?.email} error={props.errors?.email} required />
        <div class="field check">
          <label>
            <input type="checkbox" name="sendInvite" checked={sendInvite} /> Email an invite (a sign-in link to the portal)
          </label>
        </div>
        {props.campaigns.length > 0 && <CampaignChoices campaigns={props.campaigns} ticked={ticked} error={props.errors?.campaignIds} legend="Campaigns the partner may promote" />}
        <button type="submit">Create partner</button>
      </form>
    </AdminLayout>
  );
}

function PartnersTable(props: {
  rows: PartnerStatsRow[];
  state: ListState;
  header: (label: string, column: PartnerSortKey, num?: boolean) => JSX.Element;
  detail: (id: string) => string;
  csrf: string;
}) {
  const cur = props.state.currency;
  return (
    <>
      <div class="table-wrap">
        <table id="partners" class="stack partners-table">
          <caption class="vh" safe>
            {`Partners with their numbers for ${props.state.range.label.toLowerCase()}`}
          </caption>
          <thead>
            <tr>
              <th scope="col" class="pick">
                <input type="checkbox" data-select-all="ids" form="bulk" aria-label="Select every partner on this page" />
              </th>
              {props.header('Name', 'name')}
              <th scope="col">Email</th>
              {props.header('Status', 'status')}
              {props.state.groups.length > 0 && <th scope="col">Group</th>}
              {props.header('Clicks', 'clicks', true)}
              {props.header('Conversions', 'conversions', true)}
              {props.header('Rate', 'rate', true)}
              {props.header('Revenue', 'revenue', true)}
              {props.header('Commissions', 'commissions', true)}
              {props.header('EPC', 'epc', true)}
              {props.header('Created', 'created')}
              <th scope="col" class="act">
                <span class="vh">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((p) => (
              <tr data-id={p.id} class="linked">
                <td class="pick" data-label="Select">
                  <label class="check">
                    <input type="checkbox" name="ids" value={p.id} form="bulk" />
                    <span class="vh" safe>{`Select ${p.name}`}</span>
                  </label>
                </td>
                <td class="lead">
                  <Trunc text={p.name} href={props.detail(p.id)} />
                </td>
                <td data-label="Email" class="email">
                  <Trunc text={p.email} />
                </td>
                <td class="badge-cell" data-label="Status">
                  <Badge {...partnerBadge(p)} />
                </td>
                {props.state.groups.length > 0 && (
                  <td data-label="Group" class="group-cell" data-stat="group">
                    {p.groupId ? <Trunc text={props.state.groups.find((g) => g.id === p.groupId)?.name ?? p.groupId} /> : <span class="muted">–</span>}
                  </td>
                )}
                <td class="num" data-label="Clicks" safe>
                  {p.clicks.toLocaleString('en-US')}
                </td>
                <td class="num" data-label="Conversions" safe>
                  {p.conversions.toLocaleString('en-US')}
                </td>
                <td class="num" data-label="Conversion rate" safe>
                  {formatRate(p.conversions, p.clicks)}
                </td>
                <MoneyCell amount={p.revenue} currency={cur} label="Revenue" />
                <td class="num figure" data-label="Commissions" safe>
                  {formatMoney(p.commissions, cur)}
                </td>
                <td class="num figure" data-label="EPC" safe>
                  {epcText(p.commissions, p.clicks, cur)}
                </td>
                <td data-label="Created" safe>
                  {isoDay(p.createdAt)}
                </td>
                <MenuButton menu={menuId('pm', p.id)} label={`Actions for ${p.name}`} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.rows.map((p) => (
        <RowMenu id={menuId('pm', p.id)} title={p.name}>
          <a href={props.detail(p.id)}>Open</a>
          <a href={`/admin/commissions?partnerId=${encodeURIComponent(p.id)}`}>Commissions</a>
          {p.status === 'pending' && (
            <form method="post" action={`${detailPath(p.id)}/invite`}>
              <CsrfInput token={props.csrf} />
              <button type="submit">Send invite again</button>
            </form>
          )}
          {p.status === 'revoked' ? (
            <form method="post" action={`${detailPath(p.id)}/reinstate`}>
              <CsrfInput token={props.csrf} />
              <button type="submit">Reinstate</button>
            </form>
          ) : (
            <a href={`${detailPath(p.id)}/revoke`} class="danger-link">
              Revoke…
            </a>
          )}
        </RowMenu>
      ))}
    </>
  );
}

function CampaignChoices(props: { campaigns: { id: string; name: string }[]; ticked: Set<string>; error?: string; legend: string; hint?: string }) {
  return (
    <fieldset class={props.error ? 'choices invalid' : 'choices'} aria-describedby={props.error ? 'campaignIds-error' : undefined}>
      <legend safe>{props.legend}</legend>
      <input type="hidden" name="campaignsShown" value="1" />
      {props.campaigns.map((c) => (
        <label class="check">
          <input type="checkbox" name="campaignIds" value={c.id} checked={props.ticked.has(c.id)} /> <span safe>{c.name}</span>
        </label>
      ))}
      {!!props.hint && (
        <p class="hint" safe>
          {props.hint}
        </p>
      )}
      {!!props.error && (
        <p class="error" id="campaignIds-error" safe>
          {props.error}
        </p>
      )}
    </fieldset>
  );
}

// ---------------------------------------------------------------------------------------------
// One partner

const CUSTOMER_STATES: Record<CustomerState, { tone: Tone; label: string; title: string }> = {
  active: { tone: 'green', label: 'Active', title: 'Active customer: commissions earned, none refunded' },
  refunded: { tone: 'amber', label: 'Refunded', title: 'Some payments were refunded or charged back: those commissions are reversed' },
  reversed: { tone: 'red', label: 'Reversed', title: 'Every commission for this customer was reversed' },
  no_commission: { tone: 'grey', label: 'No commission', title: 'Converted, but no commission rule paid for these events' },
};

function PartnerDetailPage(props: {
  page: AdminPage;
  partner: Partner;
  range: DateRange;
  currency: string;
  currencies: string[];
  kept: Record<string, string | undefined>;
  counts: PartnerCounts;
  money: PartnerMoney[];
  links: LinkStatsRow[];
  customers: { rows: ReferredCustomer[]; total: number };
  customerPage: number;
  commissions: Awaited<ReturnType<typeof listCommissions>>;
  payouts: Awaited<ReturnType<typeof listPayouts>>;
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
}) {
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
  return (
    <AdminLayout page={props.page} title={p.name} current={LIST} scripts={['/assets/copy.js']}>
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
          {p.status === 'pending' && (
            <form method="post" action={`${path}/invite`} class="inline">
              <CsrfInput token={props.page.csrf} />
              <button type="submit" class="secondary">
                Send the invite again
              </button>
            </form>
          )}
          {p.status === 'revoked' ? (
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
      <ApplicationFacts partner={p} />
      <ApplicationDialogs page={props.page} partner={p} />

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
        <Kpi label="Clicks" value={c.clicks.toLocaleString('en-US')} change={c.previous ? compare(c.clicks, c.previous.clicks) : undefined} versus={versus} />
        <Kpi label="Conversions" value={c.conversions.toLocaleString('en-US')} change={c.previous ? compare(c.conversions, c.previous.conversions) : undefined} versus={versus} />
        <Kpi
          label="Conversion rate"
          value={formatRate(c.conversions, c.clicks)}
          change={c.previous && c.clicks > 0 && c.previous.clicks > 0 ? comparePoints(rateBp(c.conversions, c.clicks), rateBp(c.previous.conversions, c.previous.clicks)) : undefined}
          versus={versus}
        />
        <Kpi label="Revenue" value={formatMoney(inCurrency?.revenue ?? 0n, cur)} />
        <Kpi label="Commissions" value={formatMoney(earned, cur)} href={`/admin/commissions?partnerId=${id}`} />
        <Kpi label="Earnings per click" value={epcText(earned, c.clicks, cur)} />
      </ul>
      <p class="caption" safe>
        {`${props.range.label}. Commissions and EPC leave reversed commissions out; revenue is what the customers this partner brought paid.`}
      </p>

      <h3 class="sub">Money by status</h3>
      {props.money.length === 0 ? (
        <p class="empty">No revenue or commissions in this period.</p>
      ) : (
        <div class="table-wrap">
          <table id="money" class="stack">
            <caption class="vh" safe>
              {`Revenue and commissions by status per currency, ${props.range.label.toLowerCase()}`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Currency</th>
                <NumHead label="Revenue" />
                <NumHead label="Pending" />
                <NumHead label="Approved" />
                <NumHead label="Paid" />
                <NumHead label="Reversed" />
              </tr>
            </thead>
            <tbody>
              {props.money.map((m) => (
                <tr data-currency={m.currency}>
                  <td class="lead" safe>
                    {m.currency}
                  </td>
                  <MoneyCell amount={m.revenue} currency={m.currency} label="Revenue" />
                  <td class="num figure" data-label="Pending" safe>
                    {formatMoney(m.accrued, m.currency)}
                  </td>
                  <td class="num figure" data-label="Approved" safe>
                    {formatMoney(m.approved, m.currency)}
                  </td>
                  <td class="num figure" data-label="Paid" safe>
                    {formatMoney(m.paid, m.currency)}
                  </td>
                  <td class="num figure" data-label="Reversed" safe>
                    {formatMoney(m.reversed, m.currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2>Links</h2>
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

      <PartnerFlags partnerId={p.id} revoked={p.status === 'revoked'} history={props.flags} />

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
      {p.status !== 'revoked' && <ConfirmDialog id="revoke-dialog" {...revokeConfirm(props.page, p, { reason: props.reason })} />}
    </AdminLayout>
  );
}

function LinkStatsTable(props: { links: LinkStatsRow[]; baseUrl: string; currency: string; campaigns: Map<string, string>; caption: string }) {
  const cur = props.currency;
  return (
    <div class="table-wrap">
      <table id="links" class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Link</th>
            <th scope="col">Campaign</th>
            <NumHead label="Clicks" />
            <NumHead label="Conversions" />
            <NumHead label="Revenue" />
            <NumHead label="Commissions" />
            <NumHead label="EPC" />
          </tr>
        </thead>
        <tbody>
          {props.links.map((l) => {
            const url = `${props.baseUrl}/r/${l.slug}`;
            const path = `/r/${l.slug}`;
            return (
              <tr data-slug={l.slug}>
                <td class="lead link-cell">
                  <span class="copy">
                    <input id={`url-${l.id}`} class="vh" value={url} readonly tabindex="-1" aria-hidden="true" data-link-url />
                    <a class="trunc" href={url} title={attr(url)} safe>
                      {path}
                    </a>
                    <button type="button" class="secondary small" data-copy={`#url-${l.id}`} aria-label={attr(`Copy ${url}`)}>
                      Copy
                    </button>
                  </span>
                </td>
                <td data-label="Campaign">
                  <Trunc text={props.campaigns.get(l.campaignId) ?? l.campaignId} />
                </td>
                <td class="num" data-label="Clicks" safe>
                  {l.clicks.toLocaleString('en-US')}
                </td>
                <td class="num" data-label="Conversions" safe>
                  {l.conversions.toLocaleString('en-US')}
                </td>
                <MoneyCell amount={l.revenue} currency={cur} label="Revenue" />
                <td class="num figure" data-label="Commissions" safe>
                  {formatMoney(l.commissions, cur)}
                </td>
                <td class="num figure" data-label="EPC" safe>
                  {epcText(l.commissions, l.clicks, cur)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function CustomersTable(props: { customers: ReferredCustomer[]; currency: string; caption: string }) {
  const cur = props.currency;
  return (
    <div class="table-wrap">
      <table id="customers" class="stack">
        <caption class="vh" safe>
          {props.caption}
        </caption>
        <thead>
          <tr>
            <th scope="col">Customer</th>
            <th scope="col">Status</th>
            <th scope="col">First conversion</th>
            <th scope="col">Last conversion</th>
            <NumHead label="Conversions" />
            <NumHead label="Revenue" />
            <NumHead label="Commissions" />
          </tr>
        </thead>
        <tbody>
          {props.customers.map((u) => (
            <tr data-user={u.userId}>
              <td class="lead">
                <Trunc text={u.userId} />
              </td>
              <td class="badge-cell" data-label="Status">
                <Badge {...CUSTOMER_STATES[u.state]} />
              </td>
              <td data-label="First conversion" class="date" safe>
                {isoDay(u.firstAt)}
              </td>
              <td data-label="Last conversion" class="date" safe>
                {isoDay(u.lastAt)}
              </td>
              <td class="num" data-label="Conversions" safe>
                {u.conversions.toLocaleString('en-US')}
              </td>
              <MoneyCell amount={u.revenue} currency={cur} label="Revenue" />
              <td class="num figure" data-label="Commissions" safe>
                {formatMoney(u.commissions, cur)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The partners this one recruited, with the override commissions it earned on each. */
function RecruitsSection(props: { recruits: { recruits: Recruit[]; total: number }; name: string }) {
  const r = props.recruits;
  return (
    <section aria-labelledby="recruits-title" id="recruits">
      <h2 id="recruits-title">Recruits</h2>
      <p class="caption">Partners this one recruited. It earns each campaign's recruiter percent of their commissions, as its own "recruit override" commissions; reversed ones are left out.</p>
      {r.recruits.length === 0 ? (
        <p class="empty">No recruits yet.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table id="recruits-table" class="stack">
              <caption class="vh" safe>
                {`Partners ${props.name} recruited, newest first`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Recruit</th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                  <NumHead label="Override earnings" />
                </tr>
              </thead>
              <tbody>
                {r.recruits.map((x) => (
                  <tr data-id={x.id}>
                    <td class="lead fill">
                      <Trunc text={x.name} href={detailPath(x.id)} />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...partnerBadge(x)} />
                    </td>
                    <td data-label="Joined" class="date" safe>
                      {isoDay(x.createdAt)}
                    </td>
                    <td class="num money" data-label="Override earnings" data-stat="earnings" safe>
                      {x.earnings.length === 0 ? 'nothing yet' : x.earnings.map((e) => formatMoney(e.amount, e.currency)).join(' + ')}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {r.total > r.recruits.length && <p class="hint" safe>{`The newest ${r.recruits.length} of ${r.total.toLocaleString('en-US')} recruits.`}</p>}
        </>
      )}
    </section>
  );
}
