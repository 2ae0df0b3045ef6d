// Admin payouts: run now, list by status, mark a pending payout paid (its own confirm page, from the
// row's "⋯" menu), and the CSV export (the API's
// own /v1/payouts.csv, which the admin session cookie opens). Rules: modules/payouts/service.ts and,
// for the run, workflows/run-payouts.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { partnerNames } from '../../modules/partners/service';
import { payoutProvider } from '../../modules/payouts/provider';
import { findPayoutRow, listPayouts, markPayoutPaid, PAYOUT_STATUSES, payoutView, type PayoutStatus, type PayoutView } from '../../modules/payouts/service';
import { runPayouts } from '../../workflows/run-payouts';
import { CsrfInput, Field, SelectField } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { adminActor, AdminLayout, NotFoundPage, type AdminKit } from './kit';
import { Badge, formatMoney, payoutBadge } from '../ui';
import { PayoutsTable } from './tables';

const LIST = '/admin/payouts';

type Outcome = { ok?: string; error?: string };

const ListQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  cursor: t.Optional(t.String({ maxLength: 64 })),
  created: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});

export function payoutRoutes(ctx: AppContext, kit: AdminKit) {
  const readStatus = (s: string | undefined) => ((PAYOUT_STATUSES as readonly string[]).includes(s ?? '') ? (s as PayoutStatus) : undefined);

  async function listView(page: AdminPage, input: { status?: PayoutStatus; cursor?: string }, outcome: Outcome = {}) {
    const p = readPage({ cursor: input.cursor }, 'payout');
    const { items, nextCursor } = paginate(await listPayouts(ctx.sql, { ...p, status: input.status }), p.limit);
    const partners = await partnerNames(ctx.sql, items.map((x) => x.partnerId));
    return (<PayoutsPage page={page} payouts={items} partners={partners} status={input.status} nextCursor={nextCursor} outcome={outcome} />) as string;
  }

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const outcome: Outcome = {};
          if (query.created !== undefined) {
            const n = Number.parseInt(query.created, 10) || 0;
            outcome.ok = n === 0 ? 'Payout run finished: nothing was due.' : `Payout run finished: ${n} payout${n === 1 ? '' : 's'} created.`;
          }
          if (query.done === 'paid') outcome.ok = 'Payout marked paid.';
          return render(await listView(page, { status: readStatus(query.status), cursor: query.cursor }, outcome));
        }),
      { query: ListQuery },
    )
    .post(`${LIST}/run`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page) => {
        const created = await runPayouts(ctx, { actor: adminActor(page), provider: payoutProvider(ctx) });
        if (created === null) return render(await listView(page, {}, { error: 'A payout run is already in progress; try again in a moment.' }), { status: 409 });
        return seeOther(`${LIST}?created=${created.length}`);
      }),
    )
    .get(
      `${LIST}/:id/mark-paid`,
      ({ request, params }) => kit.page(request, async (page) => markPaidView(page, params.id, {}, 200)),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    )
    .post(
      `${LIST}/:id/mark-paid`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reference = (form.reference ?? '').trim();
          const again = (text: string, status: number) => markPaidView(page, params.id, { reference: form.reference ?? '', error: text }, status);
          if (reference.length > 255) return again('at most 255 characters', 400);
          try {
            await markPayoutPaid(ctx.sql, { id: params.id, actor: adminActor(page), reference: reference || undefined });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(`${LIST}?done=paid`);
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
    );

  /** The mark-paid confirm page of one payout, or the 404 page. */
  async function markPaidView(page: AdminPage, id: string, input: { reference?: string; error?: string }, status: number) {
    const row = await findPayoutRow(ctx.sql, id);
    if (!row) return render(<NotFoundPage page={page} what="payout" back={LIST} />, { status: 404 });
    const payout = payoutView(row);
    const partner = (await partnerNames(ctx.sql, [payout.partnerId])).get(payout.partnerId) ?? payout.partnerId;
    return render(<MarkPaidPage page={page} payout={payout} partner={partner} reference={input.reference} error={input.error} />, { status });
  }
}

/** The confirmation of a payment made outside Partnerd (bank transfer): money, so its own page. */
function MarkPaidPage(props: { page: AdminPage; payout: PayoutView; partner: string; reference?: string; error?: string }) {
  const p = props.payout;
  const amount = formatMoney(p.amount, p.currency);
  return (
    <AdminLayout page={props.page} title="Mark payout paid" current={LIST}>
      <p class="back">
        <a href={LIST}>Payouts</a>
      </p>
      <div class="form-width">
        <h1 safe>{`Mark ${amount} paid to ${props.partner}`}</h1>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <Badge {...payoutBadge(p)} />
          </dd>
          <dt>Commissions</dt>
          <dd>{p.commissionCount}</dd>
          <dt>Created</dt>
          <dd safe>{p.createdAt.slice(0, 10)}</dd>
        </dl>
        <p>Use this once the money has reached the partner. Its commissions become paid; this cannot be undone.</p>
        <form method="post" action={`${LIST}/${encodeURIComponent(p.id)}/mark-paid`} novalidate>
          <CsrfInput token={props.page.csrf} />
          <Field name="reference" label="Payment reference (optional)" hint="The bank transfer's reference, for your records" value={props.reference} error={props.error} />
          <div class="actions">
            <a class="button secondary" href={LIST}>
              Cancel
            </a>
            <button type="submit" safe>
              {`Mark ${amount} paid`}
            </button>
          </div>
        </form>
      </div>
    </AdminLayout>
  );
}

function PayoutsPage(props: {
  page: AdminPage;
  payouts: PayoutView[];
  partners: Map<string, string>;
  status?: PayoutStatus;
  nextCursor: string | null;
  outcome: Outcome;
}) {
  const csv = `/v1/payouts.csv${props.status ? `?status=${props.status}` : ''}`;
  return (
    <AdminLayout page={props.page} title="Payouts" current={LIST}>
      <h1>Payouts</h1>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <form method="post" action={`${LIST}/run`}>
        <CsrfInput token={props.page.csrf} />
        <p class="hint">Pays every partner whose approved commissions, less open clawbacks, reach the minimum payout.</p>
        <button type="submit">Run payouts now</button>
      </form>
      <form method="get" action={LIST} class="row" aria-label="Filter payouts">
        <SelectField
          name="status"
          label="Status"
          value={props.status ?? ''}
          options={[{ value: '', label: 'Any' }, ...PAYOUT_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <p>
        <a href={csv} id="csv" download="payouts.csv">
          Download as CSV
        </a>
      </p>
      {props.payouts.length === 0 ? (
        <p class="empty">No payouts yet.</p>
      ) : (
        <PayoutsTable
          payouts={props.payouts}
          names={{ partners: props.partners }}
          caption="Payouts, newest first"
          actions={(p) =>
            p.status === 'pending'
              ? {
                  title: `${formatMoney(p.amount, p.currency)} to ${props.partners.get(p.partnerId) ?? p.partnerId}`,
                  items: <a href={`${LIST}/${encodeURIComponent(p.id)}/mark-paid`}>Mark paid…</a>,
                }
              : null
          }
        />
      )}
      <OlderLink path={LIST} query={{ status: props.status }} cursor={props.nextCursor} label="Older payouts" />
    </AdminLayout>
  );
}
