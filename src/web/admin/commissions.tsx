// Admin commissions: filter by status, partner and campaign; approve, reverse with a reason (on its
// own confirm page), and approve many at once. Row actions sit in each row's "⋯" menu. The state
// machine lives in modules/commissions/lifecycle.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { approveCommission, canTransition, reverseCommission } from '../../modules/commissions/lifecycle';
import { ReverseBody } from '../../modules/commissions/lifecycle-routes';
import { COMMISSION_STATUSES, getCommission, listCommissions, type Commission, type CommissionStatus } from '../../modules/commissions/service';
import { findPartnerByEmail, partnerNames } from '../../modules/partners/service';
import { CsrfInput, Field, formList, schemaErrors, SelectField, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { adminActor, AdminLayout, campaignNames, NotFoundPage, type AdminKit } from './kit';
import { CommissionsTable } from './tables';
import { Badge, commissionBadge, formatMoney } from '../ui';

const LIST = '/admin/commissions';
const MAX_BULK = 100;

type Filter = { status?: CommissionStatus; partnerId?: string; partner?: string; campaignId?: string; cursor?: string };
/** The outcome of an action, shown above the list. */
type Outcome = { ok?: string; error?: string };

const FilterQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  partner: t.Optional(t.String({ maxLength: 254 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  cursor: t.Optional(t.String({ maxLength: 64 })),
  approved: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});

/** The list's query string for a filter, so actions come back to the same view. */
function filterQuery(f: Filter): string {
  const q = new URLSearchParams();
  for (const k of ['status', 'partnerId', 'partner', 'campaignId'] as const) if (f[k]) q.set(k, f[k]!);
  return q.toString();
}

export function commissionRoutes(ctx: AppContext, kit: AdminKit) {
  function readFilter(query: Record<string, string | undefined>): Filter {
    const status = (COMMISSION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as CommissionStatus) : undefined;
    return {
      status,
      partnerId: query.partnerId || undefined,
      partner: query.partner?.trim() || undefined,
      campaignId: query.campaignId || undefined,
      cursor: query.cursor || undefined,
    };
  }

  async function listView(page: AdminPage, filter: Filter, outcome: Outcome = {}) {
    const errors: FormErrors = {};
    let partnerId = filter.partnerId;
    if (filter.partner) {
      const found = await findPartnerByEmail(ctx.sql, filter.partner);
      if (found) partnerId = found.id;
      else errors.partner = 'no partner has this email';
    }
    const p = readPage({ cursor: filter.cursor }, 'commission');
    const rows = errors.partner ? [] : await listCommissions(ctx.sql, { ...p, status: filter.status, partnerId, campaignId: filter.campaignId });
    const { items, nextCursor } = paginate(rows, p.limit);
    const [partners, campaigns] = await Promise.all([partnerNames(ctx.sql, items.map((c) => c.partnerId)), campaignNames(ctx)]);
    return (
      <CommissionsPage
        page={page}
        commissions={items}
        nextCursor={nextCursor}
        filter={filter}
        filterErrors={errors}
        partners={partners}
        campaigns={campaigns}
        outcome={outcome}
      />
    ) as string;
  }

  /** The reverse confirm page of one commission; null when no commission has this id. */
  async function reverseView(page: AdminPage, id: string, filter: Filter, input: { reason?: string; error?: string }) {
    const commission = await getCommission(ctx.sql, id).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (!commission) return null;
    const names = await partnerNames(ctx.sql, [commission.partnerId]);
    const partner = names.get(commission.partnerId) ?? commission.partnerId;
    return (<ReversePage page={page} commission={commission} partner={partner} filter={filter} reason={input.reason} error={input.error} />) as string;
  }

  const back = (filter: Filter, extra = '') => {
    const q = [filterQuery(filter), extra].filter(Boolean).join('&');
    return `${LIST}${q ? `?${q}` : ''}`;
  };

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const outcome: Outcome = {};
          if (query.approved !== undefined) {
            const n = Number.parseInt(query.approved, 10) || 0;
            const skipped = Number.parseInt(query.skipped ?? '0', 10) || 0;
            outcome.ok = `Approved ${n} commission${n === 1 ? '' : 's'}.${skipped > 0 ? ` ${skipped} could not be approved (no longer accrued).` : ''}`;
          }
          if (query.done === 'reversed') outcome.ok = 'Commission reversed.';
          return render(await listView(page, readFilter(query), outcome));
        }),
      { query: FilterQuery },
    )
    .post(
      `${LIST}/approve`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page) => {
          const filter = readFilter(query);
          const ids = formList(body, 'ids');
          if (ids.length === 0) return render(await listView(page, filter, { error: 'Tick at least one commission to approve.' }), { status: 400 });
          if (ids.length > MAX_BULK) return render(await listView(page, filter, { error: `At most ${MAX_BULK} at once.` }), { status: 400 });
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
          return seeOther(back(filter, `approved=${approved}&skipped=${ids.length - approved}`));
        }),
      { query: FilterQuery },
    )
    .get(
      `${LIST}/:id/reverse`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const view = await reverseView(page, params.id, readFilter(query), {});
          return view ? render(view) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }), query: FilterQuery },
    )
    .post(
      `${LIST}/:id/reverse`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const filter = readFilter(query);
          const reason = (form.reason ?? '').trim();
          const problems = schemaErrors(ReverseBody, { reason });
          const again = async (text: string, status: number) => {
            const view = await reverseView(page, params.id, filter, { reason: form.reason ?? '', error: text });
            return view ? render(view, { status }) : render(<NotFoundPage page={page} what="commission" back={LIST} />, { status: 404 });
          };
          if (problems.reason) return again(problems.reason === 'required' ? 'say why (refund, chargeback, fraud...)' : problems.reason, 400);
          try {
            await reverseCommission(ctx.sql, { id: params.id, actor: adminActor(page), reason });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(back(filter, 'done=reversed'));
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }), query: FilterQuery },
    )
    .post(
      `${LIST}/:id/approve`,
      ({ request, body, params, query }) =>
        kit.form(request, body, LIST, async (page) => {
          const filter = readFilter(query);
          try {
            await approveCommission(ctx.sql, { id: params.id, actor: adminActor(page) });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return render(await listView(page, filter, { error: `Could not approve the commission: ${error.message}` }), { status: error.status });
          }
          return seeOther(back(filter, 'approved=1'));
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }), query: FilterQuery },
    );
}

function CommissionsPage(props: {
  page: AdminPage;
  commissions: Commission[];
  nextCursor: string | null;
  filter: Filter;
  filterErrors: FormErrors;
  partners: Map<string, string>;
  campaigns: Map<string, string>;
  outcome: Outcome;
}) {
  const f = props.filter;
  const q = filterQuery(f);
  const action = (path: string) => `${path}${q ? `?${q}` : ''}`;
  const csrf = props.page.csrf;
  const approvable = props.commissions.some((c) => canTransition('approve', c.status));
  return (
    <AdminLayout page={props.page} title="Commissions" current={LIST}>
      <h1>Commissions</h1>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <form method="get" action={LIST} class="row" aria-label="Filter commissions">
        <SelectField
          name="status"
          label="Status"
          value={f.status ?? ''}
          options={[{ value: '', label: 'Any' }, ...COMMISSION_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
        <Field name="partner" label="Partner email" type="email" value={f.partner} error={props.filterErrors.partner} />
        <SelectField
          name="campaignId"
          label="Campaign"
          value={f.campaignId ?? ''}
          options={[{ value: '', label: 'Any' }, ...[...props.campaigns].map(([value, label]) => ({ value, label }))]}
        />
        {!!f.partnerId && <input type="hidden" name="partnerId" value={f.partnerId} />}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {!!f.partnerId && (
        <p>
          <span safe>{`Partner: ${props.partners.get(f.partnerId) ?? f.partnerId}`}</span> <a href={LIST}>clear</a>
        </p>
      )}
      {props.commissions.length === 0 ? (
        <p class="empty">No commission matches.</p>
      ) : (
        <>
          <form method="post" action={action(`${LIST}/approve`)} id="bulk" class="bulk">
            <CsrfInput token={csrf} />
            {approvable && <button type="submit">Approve selected</button>}
          </form>
          <CommissionsTable
            commissions={props.commissions}
            names={{ partners: props.partners, campaigns: props.campaigns }}
            caption="Commissions, newest first"
            select={(c) =>
              canTransition('approve', c.status) ? (
                <label class="check">
                  <input type="checkbox" name="ids" value={c.id} form="bulk" />
                  <span class="vh">Select</span>
                </label>
              ) : (
                ''
              )
            }
            actions={(c) => {
              const approve = canTransition('approve', c.status);
              const reverse = canTransition('reverse', c.status);
              if (!approve && !reverse) return null;
              const amount = formatMoney(c.amount, c.currency);
              return {
                title: `${amount} for ${props.partners.get(c.partnerId) ?? c.partnerId}`,
                items: (
                  <>
                    {approve && (
                      <form method="post" action={action(`${LIST}/${encodeURIComponent(c.id)}/approve`)}>
                        <CsrfInput token={csrf} />
                        <button type="submit">Approve</button>
                      </form>
                    )}
                    {reverse && <a href={action(`${LIST}/${encodeURIComponent(c.id)}/reverse`)}>Reverse…</a>}
                  </>
                ),
              };
            }}
          />
        </>
      )}
      <OlderLink path={LIST} query={Object.fromEntries(new URLSearchParams(q))} cursor={props.nextCursor} label="Older commissions" />
    </AdminLayout>
  );
}

/** The confirmation of a reversal: no undo, so it says what happens and asks why. */
function ReversePage(props: { page: AdminPage; commission: Commission; partner: string; filter: Filter; reason?: string; error?: string }) {
  const c = props.commission;
  const q = filterQuery(props.filter);
  const amount = formatMoney(c.amount, c.currency);
  const listHref = `${LIST}${q ? `?${q}` : ''}`;
  return (
    <AdminLayout page={props.page} title="Reverse commission" current={LIST}>
      <p class="back">
        <a href={listHref}>Commissions</a>
      </p>
      <div class="form-width">
        <h1 safe>{`Reverse ${amount} for ${props.partner}`}</h1>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Badge {...commissionBadge(c)} />
          </dd>
          <dt>Event</dt>
          <dd safe>{c.eventType}</dd>
          <dt>Date</dt>
          <dd safe>{c.createdAt.slice(0, 10)}</dd>
        </dl>
        <p>
          The partner is not paid this commission, and sees the reason. A reversal cannot be undone.
        </p>
        <form method="post" action={`${LIST}/${encodeURIComponent(c.id)}/reverse${q ? `?${q}` : ''}`} novalidate>
          <CsrfInput token={props.page.csrf} />
          <Field name="reason" label="Reason" hint="Refund, chargeback, fraud…" value={props.reason} error={props.error} required />
          <div class="actions">
            <a class="button secondary" href={listHref}>
              Cancel
            </a>
            <button type="submit" class="danger" safe>
              {`Reverse ${amount}`}
            </button>
          </div>
        </form>
      </div>
    </AdminLayout>
  );
}
