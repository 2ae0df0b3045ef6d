// Admin commissions: filter by status, partner and campaign, sort by date or amount, page through
// them ("1–50 of N"), export what the filter shows as CSV; approve one from its row's "⋯" menu;
// reverse one (a confirmation asking the reason), and approve or reverse many at once (ticked rows,
// confirmed with counts and totals per currency). Nothing that moves money happens without
// `confirmed=1`: a post without it answers the confirm page. The state machine lives in
// modules/commissions/lifecycle.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { csvResponse } from '../../lib/csv';
import { approveCommission, canTransition, reverseCommission, type CommissionAction } from '../../modules/commissions/lifecycle';
import { ReverseBody } from '../../modules/commissions/model';
import { COMMISSION_STATUSES, getCommission, type Commission, type CommissionStatus } from '../../modules/commissions/service';
import { findPartnerByEmail } from '../../modules/partners/service';
import {
  anyCommission,
  commissionPage,
  commissionsByIds,
  commissionsCsv,
  SORTS,
  totalsOf,
  type CommissionFilter,
  type CommissionListed,
} from '../../modules/reports/money';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CsrfInput, Field, formList, schemaErrors, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Badge, commissionBadge, EmptyState, formatMoney, href, menuId, Pager, parsePage, parseSort, type Sort, NumHead } from '../ui';
import { adminActor, AdminLayout, campaignNames, NotFoundPage, type AdminKit } from './kit';
import { CommissionsTable, DialogField, eventHref, RowCheck, totalsText } from './tables';
import { overrideRecruits } from '../../modules/reports/rewards';

const LIST = '/admin/commissions';
const PAGE_SIZE = 50;
const MAX_BULK = 100;
const DEFAULT_SORT: Sort<'date' | 'amount'> = { key: 'date', dir: 'desc' };

type Filter = { status?: CommissionStatus; partnerId?: string; partner?: string; campaignId?: string };
/** The outcome of an action, shown above the list. */
type Outcome = { ok?: string; error?: string };
type Bulk = 'approve' | 'reverse';

const FilterQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  partner: t.Optional(t.String({ maxLength: 254 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
  approved: t.Optional(t.String({ maxLength: 6 })),
  reversed: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});

const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

function readFilter(query: Record<string, string | undefined>): Filter {
  const status = (COMMISSION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as CommissionStatus) : undefined;
  return {
    status,
    partnerId: query.partnerId || undefined,
    partner: query.partner?.trim() || undefined,
    campaignId: query.campaignId || undefined,
  };
}

/** The view a link keeps: the filter, and the sort and page when given. */
type View = Record<string, string | undefined>;
const viewOf = (query: Record<string, string | undefined>): View => ({
  ...readFilter(query),
  sort: (SORTS.commissions as readonly string[]).includes(query.sort ?? '') ? query.sort : undefined,
  dir: query.dir === 'asc' || query.dir === 'desc' ? query.dir : undefined,
  page: /^\d{1,6}$/.test(query.page ?? '') ? query.page : undefined,
});
const filterOnly = (view: View): View => ({ status: view.status, partnerId: view.partnerId, partner: view.partner, campaignId: view.campaignId });

/** A repeated query parameter (ticked ids of a GET bulk form), capped in count and length. */
export function queryList(request: Request, name: string, max = MAX_BULK): string[] {
  const values = new URL(request.url).searchParams.getAll(name).filter((v) => v.length > 0 && v.length <= 64);
  return [...new Set(values)].slice(0, max + 1);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Which ticked rows an action applies to, and their totals per currency. */
function bulkPlan(action: Bulk, rows: CommissionListed[], asked: number) {
  const move: CommissionAction = action === 'approve' ? 'approve' : 'reverse';
  const eligible = rows.filter((c) => canTransition(move, c.status));
  const totals = totalsOf(eligible.map((c) => ({ currency: c.currency, amount: c.amountMinor })));
  return { eligible, skipped: asked - eligible.length, totals };
}

export function commissionRoutes(ctx: AppContext, kit: AdminKit) {
  /** The partner filter by email: the partner's id, or the field's error. */
  async function partnerOf(filter: Filter): Promise<{ partnerId?: string; error?: string }> {
    if (!filter.partner) return { partnerId: filter.partnerId };
    const found = await findPartnerByEmail(ctx.sql, filter.partner);
    return found ? { partnerId: found.id } : { error: 'no partner has this email' };
  }

  async function listView(page: AdminPage, query: Record<string, string | undefined>, outcome: Outcome = {}) {
    const view = viewOf(query);
    const filter = readFilter(query);
    const sort = parseSort(query, SORTS.commissions, DEFAULT_SORT);
    const paging = parsePage(query, PAGE_SIZE);
    const who = await partnerOf(filter);
    const errors: FormErrors = who.error ? { partner: who.error } : {};
    const scope: CommissionFilter = { status: filter.status, partnerId: who.partnerId, campaignId: filter.campaignId };
    const [{ rows, total }, campaigns, any] = await Promise.all([
      who.error ? Promise.resolve({ rows: [], total: 0 }) : commissionPage(ctx.sql, { filter: scope, sort, offset: paging.offset, limit: paging.limit }),
      campaignNames(ctx),
      anyCommission(ctx.sql),
    ]);
    const overrides = await overrideRecruits(ctx.sql, rows.filter((c) => c.sourceCommissionId).map((c) => c.id));
    return (
      <CommissionsPage
        page={page}
        rows={rows}
        total={total}
        any={any}
        view={view}
        sort={sort}
        pageNumber={paging.page}
        filterErrors={errors}
        campaigns={campaigns}
        overrides={overrides}
        outcome={outcome}
      />
    ) as string;
  }

  /** The reverse confirm page of one commission; null when no commission has this id. */
  async function reverseView(page: AdminPage, id: string, view: View, input: { reason?: string; error?: string }) {
    const commission = await getCommission(ctx.sql, id).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (!commission) return null;
    const [listed] = await commissionsByIds(ctx.sql, [commission.id]);
    return (<ReversePage page={page} commission={listed!} view={view} reason={input.reason} error={input.error} />) as string;
  }

  async function bulkView(page: AdminPage, action: Bulk, ids: string[], view: View, input: { reason?: string; error?: string } = {}) {
    const rows = await commissionsByIds(ctx.sql, ids.slice(0, MAX_BULK));
    return (<BulkPage page={page} action={action} ids={ids} rows={rows} view={view} reason={input.reason} error={input.error} />) as string;
  }

  const back = (view: View, extra: Record<string, string> = {}) => href(LIST, view, extra);

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const outcome: Outcome = {};
          const n = (text: string | undefined) => Number.parseInt(text ?? '0', 10) || 0;
          const skipped = n(query.skipped) > 0 ? ` ${plural(n(query.skipped), 'ticked row was', 'ticked rows were')} skipped (no longer in a state that allows it).` : '';
          if (query.approved !== undefined) outcome.ok = `Approved ${plural(n(query.approved), 'commission')}.${skipped}`;
          if (query.reversed !== undefined) outcome.ok = `Reversed ${plural(n(query.reversed), 'commission')}.${skipped}`;
          if (query.done === 'reversed') outcome.ok = 'Commission reversed.';
          return render(await listView(page, query, outcome));
        }),
      { query: FilterQuery },
    )
    .get(
      `${LIST}.csv`,
      ({ request, query }) =>
        kit.page(request, async () => {
          const filter = readFilter(query);
          const who = await partnerOf(filter);
          // an unknown partner email matches nothing: the header alone
          const scope: CommissionFilter = { status: filter.status, partnerId: who.error ? 'none' : who.partnerId, campaignId: filter.campaignId };
          return csvResponse(commissionsCsv(ctx.sql, scope), 'commissions.csv');
        }),
      { query: FilterQuery },
    )
    // the bulk form (a GET: the ticked ids in the URL) lands on its confirmation
    .get(
      `${LIST}/bulk`,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const action: Bulk = new URL(request.url).searchParams.get('action') === 'reverse' ? 'reverse' : 'approve';
          return render(await bulkView(page, action, queryList(request, "ids"), viewOf(query as Record<string, string | undefined>)));
        }),
      { query: t.Object({ ...FilterQuery.properties, action: t.Optional(t.String({ maxLength: 10 })), ids: t.Optional(t.Unknown()) }) },
    )
    .post(
      `${LIST}/approve`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return render(await bulkView(page, 'approve', ids, view), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
          let approved = 0;
          for (const id of ids) {
            try {
              await approveCommission(ctx.sql, { id, actor: adminActor(page) });
              approved++;
            } catch (error) {
              // already approved, reversed or gone since the page was drawn: counted, not fatal
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(back(view, { approved: String(approved), skipped: String(ids.length - approved) }));
        }),
      { query: FilterQuery },
    )
    .post(
      `${LIST}/reverse`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          const reason = (form.reason ?? '').trim();
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return render(await bulkView(page, 'reverse', ids, view, { reason }), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
          const problem = reasonProblem(reason);
          if (problem) return render(await bulkView(page, 'reverse', ids, view, { reason: form.reason ?? '', error: problem }), { status: 400 });
          let reversed = 0;
          for (const id of ids) {
            try {
              await reverseCommission(ctx.sql, { id, actor: adminActor(page), reason });
              reversed++;
            } catch (error) {
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(back(view, { reversed: String(reversed), skipped: String(ids.length - reversed) }));
        }),
      { query: FilterQuery },
    )
    .get(
      `${LIST}/:id/reverse`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const view = await reverseView(page, params.id, viewOf(query), {});
          return view ? render(view) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
        }),
      { params: IdParams, query: FilterQuery },
    )
    .post(
      `${LIST}/:id/reverse`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const reason = (form.reason ?? '').trim();
          const again = async (text: string | undefined, status: number) => {
            const html = await reverseView(page, params.id, view, { reason: form.reason ?? '', error: text });
            return html ? render(html, { status }) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
          };
          if (!isConfirmed(form)) return again(undefined, 200);
          const problem = reasonProblem(reason);
          if (problem) return again(problem, 400);
          try {
            await reverseCommission(ctx.sql, { id: params.id, actor: adminActor(page), reason });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(back(view, { done: 'reversed' }));
        }),
      { params: IdParams, query: FilterQuery },
    )
    .post(
      `${LIST}/:id/approve`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page) => {
          const view = viewOf(query);
          try {
            await approveCommission(ctx.sql, { id: params.id, actor: adminActor(page) });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return render(await listView(page, view, { error: `Could not approve the commission: ${error.message}` }), { status: error.status });
          }
          return seeOther(back(view, { approved: '1' }));
        }),
      { params: IdParams, query: FilterQuery },
    );
}

/** The API's own rule for a reversal reason, in the page's words. */
function reasonProblem(reason: string): string | null {
  const problems = schemaErrors(ReverseBody, { reason });
  if (!problems.reason) return null;
  return problems.reason === 'required' ? 'say why (refund, chargeback, fraud...)' : problems.reason;
}

const REVERSE_TEXT = 'The partner is not paid this, and sees the reason. A paid commission is clawed back from the next payout. A reversal cannot be undone.';

function CommissionsPage(props: {
  page: AdminPage;
  rows: CommissionListed[];
  total: number;
  any: boolean;
  view: View;
  sort: Sort<'date' | 'amount'>;
  pageNumber: number;
  filterErrors: FormErrors;
  campaigns: Map<string, string>;
  overrides: Map<string, { id: string; name: string }>;
  outcome: Outcome;
}) {
  const v = props.view;
  const filters = filterOnly(v);
  const filtered = Object.values(filters).some(Boolean);
  const csrf = props.page.csrf;
  const partners = new Map(props.rows.map((c) => [c.partnerId, c.partnerName]));
  const selectable = (c: Commission) => canTransition('approve', c.status) || canTransition('reverse', c.status);
  const action = (path: string) => href(path, v);
  return (
    <AdminLayout page={props.page} title="Commissions" current={LIST}>
      <div class="page-head">
        <h1>Commissions</h1>
        <a class="button secondary" id="csv" href={href(`${LIST}.csv`, filters)} download="commissions.csv">
          Export CSV
        </a>
      </div>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <form method="get" action={LIST} class="row" aria-label="Filter commissions">
        <SelectField
          name="status"
          label="Status"
          value={v.status ?? ''}
          options={[{ value: '', label: 'Any' }, ...COMMISSION_STATUSES.map((s) => ({ value: s, label: commissionBadge({ status: s, createdAt: '' }).label }))]}
        />
        <Field name="partner" label="Partner email" type="email" value={v.partner} error={props.filterErrors.partner} />
        <SelectField
          name="campaignId"
          label="Campaign"
          value={v.campaignId ?? ''}
          options={[{ value: '', label: 'Any' }, ...[...props.campaigns].map(([value, label]) => ({ value, label }))]}
        />
        {!!v.partnerId && <input type="hidden" name="partnerId" value={v.partnerId} />}
        {!!v.sort && <input type="hidden" name="sort" value={v.sort} />}
        {!!v.dir && <input type="hidden" name="dir" value={v.dir} />}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {!!v.partnerId && (
        <p>
          <span safe>{`Partner: ${partners.get(v.partnerId) ?? v.partnerId}`}</span> <a href={href(LIST, { ...filters, partnerId: undefined })}>clear</a>
        </p>
      )}
      {props.rows.length === 0 ? (
        filtered || !props.any ? (
          props.any ? (
            <EmptyState title="No commission matches" text="No commission has this status, partner and campaign." clear={LIST} />
          ) : (
            <EmptyState
              title="No commissions yet"
              text="A commission appears when a referred customer converts on a campaign rule."
              action={{ href: '/admin/campaigns', label: 'Set up a campaign' }}
            />
          )
        ) : (
          <EmptyState title="Nothing on this page" text="There are fewer commissions than this page number." action={{ href: href(LIST, filters), label: 'First page' }} />
        )
      ) : (
        <>
          <form method="get" action={`${LIST}/bulk`} id="bulk" class="bulk" aria-label="Act on the ticked commissions">
            {Object.entries(v).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
            <div class="bulk-bar" data-bulk-bar="bulk">
              <span data-bulk-count>Tick rows to approve or reverse them</span>
              <button type="submit" name="action" value="approve" class="secondary">
                Approve…
              </button>
              <button type="submit" name="action" value="reverse" class="danger">
                Reverse…
              </button>
            </div>
          </form>
          <CommissionsTable
            commissions={props.rows}
            names={{ partners, campaigns: props.campaigns, overrides: props.overrides }}
            caption={`Commissions, ${props.sort.key === 'amount' ? 'by amount' : props.sort.dir === 'asc' ? 'oldest first' : 'newest first'}`}
            sorting={{ sort: props.sort, path: LIST, query: v }}
            selectAll="bulk"
            select={(c) => (selectable(c) ? <RowCheck id={c.id} form="bulk" label={`Select ${formatMoney(c.amount, c.currency)} for ${partners.get(c.partnerId) ?? c.partnerId}`} /> : '')}
            actions={(c) => {
              const approve = canTransition('approve', c.status);
              const reverse = canTransition('reverse', c.status);
              const amount = formatMoney(c.amount, c.currency);
              const partner = partners.get(c.partnerId) ?? c.partnerId;
              return {
                title: `${amount} for ${partner}`,
                items: (
                  <>
                    <a href={eventHref(c.eventId)}>Open the event</a>
                    {approve && (
                      <form method="post" action={action(`${LIST}/${encodeURIComponent(c.id)}/approve`)}>
                        <CsrfInput token={csrf} />
                        <button type="submit">Approve</button>
                      </form>
                    )}
                    {reverse && (
                      <ConfirmTrigger href={action(`${LIST}/${encodeURIComponent(c.id)}/reverse`)} dialog={menuId('rev', c.id)} label="Reverse…" secondary />
                    )}
                  </>
                ),
              };
            }}
          />
          <Pager path={LIST} query={v} page={props.pageNumber} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
          {props.rows
            .filter((c) => canTransition('reverse', c.status))
            .map((c) => {
              const amount = formatMoney(c.amount, c.currency);
              const partner = partners.get(c.partnerId) ?? c.partnerId;
              const id = menuId('rev', c.id);
              return (
                <ConfirmDialog
                  id={id}
                  title={`Reverse ${amount} for ${partner}`}
                  action={action(`${LIST}/${encodeURIComponent(c.id)}/reverse`)}
                  button={`Reverse ${amount}`}
                  csrf={csrf}
                  danger
                >
                  <p>{REVERSE_TEXT}</p>
                  <DialogField id={`${id}-reason`} name="reason" label="Reason" hint="Refund, chargeback, fraud…" required />
                </ConfirmDialog>
              );
            })}
        </>
      )}
    </AdminLayout>
  );
}

/** The confirm page of one reversal: no undo, so it says what happens and asks why. */
function ReversePage(props: { page: AdminPage; commission: CommissionListed; view: View; reason?: string; error?: string }) {
  const c = props.commission;
  const amount = formatMoney(c.amount, c.currency);
  const listHref = href(LIST, props.view);
  return (
    <AdminLayout page={props.page} title="Reverse commission" current={LIST}>
      <p class="back">
        <a href={listHref}>Commissions</a>
      </p>
      {!canTransition('reverse', c.status) ? (
        <section class="confirm-page">
          <h1 safe>{`Reverse ${amount} for ${c.partnerName}`}</h1>
          <Notice kind="error" text="This commission is already reversed." />
          <p>
            <a class="button secondary" href={listHref}>
              Back to the list
            </a>
          </p>
        </section>
      ) : (
        <ConfirmPanel
          title={`Reverse ${amount} for ${c.partnerName}`}
          action={href(`${LIST}/${encodeURIComponent(c.id)}/reverse`, props.view)}
          button={`Reverse ${amount}`}
          csrf={props.page.csrf}
          back={listHref}
          danger
        >
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Badge {...commissionBadge(c)} />
            </dd>
            <dt>Event</dt>
            <dd>
              <a href={eventHref(c.eventId)} safe>
                {c.eventType}
              </a>
            </dd>
            <dt>Campaign</dt>
            <dd safe>{c.campaignName}</dd>
            <dt>Date</dt>
            <dd safe>{c.createdAt.slice(0, 10)}</dd>
          </dl>
          <p>{REVERSE_TEXT}</p>
          <Field name="reason" label="Reason" hint="Refund, chargeback, fraud…" value={props.reason} error={props.error} required />
        </ConfirmPanel>
      )}
    </AdminLayout>
  );
}

/** The confirmation of a bulk approve or reverse: what moves (counts, totals per currency), what is skipped. */
function BulkPage(props: { page: AdminPage; action: Bulk; ids: string[]; rows: CommissionListed[]; view: View; reason?: string; error?: string }) {
  const listHref = href(LIST, props.view);
  const verb = props.action === 'approve' ? 'Approve' : 'Reverse';
  const asked = props.ids.length;
  const plan = bulkPlan(props.action, props.rows, asked);
  const n = plan.eligible.length;
  const partners = new Set(plan.eligible.map((c) => c.partnerId)).size;
  const title = n === 0 ? `${verb} commissions` : `${verb} ${plural(n, 'commission')} (${totalsText(plan.totals)})`;
  const tooMany = asked > MAX_BULK;
  return (
    <AdminLayout page={props.page} title={`${verb} commissions`} current={LIST}>
      <p class="back">
        <a href={listHref}>Commissions</a>
      </p>
      {asked === 0 || tooMany || n === 0 ? (
        <section class="confirm-page">
          <h1 safe>{`${verb} commissions`}</h1>
          <Notice
            kind="error"
            text={
              asked === 0
                ? `Tick at least one commission to ${verb.toLowerCase()}.`
                : tooMany
                  ? `At most ${MAX_BULK} commissions at once.`
                  : `None of the ${plural(asked, 'ticked commission')} can be ${props.action === 'approve' ? 'approved (only pending ones can)' : 'reversed (reversed ones cannot)'}.`
            }
          />
          <p>
            <a class="button secondary" href={listHref}>
              Back to the list
            </a>
          </p>
        </section>
      ) : (
        <ConfirmPanel
          title={title}
          action={href(`${LIST}/${props.action}`, props.view)}
          button={title}
          csrf={props.page.csrf}
          back={listHref}
          fields={{ ids: plan.eligible.map((c) => c.id) }}
          danger={props.action === 'reverse'}
        >
          <p safe>
            {props.action === 'approve'
              ? `${plural(n, 'commission')} for ${plural(partners, 'partner')} become approved: they are paid in the next payout run once each partner's balance reaches the minimum payout.`
              : `${plural(n, 'commission')} for ${plural(partners, 'partner')} are reversed with the reason below. ${REVERSE_TEXT}`}
          </p>
          <BulkTotals totals={plan.totals} />
          {plan.skipped > 0 && (
            <p class="hint" id="bulk-skipped" safe>
              {`${plural(plan.skipped, 'ticked row is', 'ticked rows are')} skipped: ${props.action === 'approve' ? 'no longer pending' : 'already reversed or gone'}.`}
            </p>
          )}
          {props.action === 'reverse' && <Field name="reason" label="Reason (one for all)" hint="Refund, chargeback, fraud…" value={props.reason} error={props.error} required />}
        </ConfirmPanel>
      )}
    </AdminLayout>
  );
}

/** Counts and amounts per currency of what a bulk action moves. */
export function BulkTotals(props: { totals: { currency: string; amount: bigint; count: number }[]; caption?: string }) {
  return (
    <table id="bulk-totals" class="totals">
      <caption class="vh" safe>
        {props.caption ?? 'Totals per currency'}
      </caption>
      <thead>
        <tr>
          <th scope="col">Currency</th>
          <NumHead label="Count" />
          <NumHead label="Amount" />
        </tr>
      </thead>
      <tbody>
        {props.totals.map((t) => (
          <tr>
            <td safe>{t.currency}</td>
            <td class="num">{t.count}</td>
            <td class="num money" safe>
              {formatMoney(t.amount, t.currency)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
