// Admin payouts: run now, list by status, mark a pending payout paid, and the CSV export (the API's
// own /v1/payouts.csv, which the admin session cookie opens). Rules: modules/payouts/service.ts and,
// for the run, workflows/run-payouts.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { partnerNames } from '../../modules/partners/service';
import { payoutProvider } from '../../modules/payouts/provider';
import { listPayouts, markPayoutPaid, PAYOUT_STATUSES, type PayoutStatus, type PayoutView } from '../../modules/payouts/service';
import { runPayouts } from '../../workflows/run-payouts';
import { CsrfInput, SelectField } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { adminActor, AdminLayout, type AdminKit } from './kit';
import { PayoutsTable } from './tables';

const LIST = '/admin/payouts';

type Outcome = { ok?: string; error?: string; rowErrors?: Record<string, string>; references?: Record<string, string> };

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
    .post(
      `${LIST}/:id/mark-paid`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reference = (form.reference ?? '').trim();
          const rowError = async (text: string, status: number) =>
            render(await listView(page, {}, { rowErrors: { [params.id]: text }, references: { [params.id]: form.reference ?? '' } }), { status });
          if (reference.length > 255) return rowError('at most 255 characters', 400);
          try {
            await markPayoutPaid(ctx.sql, { id: params.id, actor: adminActor(page), reference: reference || undefined });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return rowError(error.message, error.status);
          }
          return seeOther(`${LIST}?done=paid`);
        }),
      { params: t.Object({ id: t.String({ maxLength: 64 }) }) },
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
          actions={(p) =>
            p.status === 'pending' ? (
              <div class="actions">
                <form method="post" action={`${LIST}/${encodeURIComponent(p.id)}/mark-paid`} novalidate>
                  <CsrfInput token={props.page.csrf} />
                  <label class="skip" for={`ref-${p.id}`}>
                    Payment reference (optional)
                  </label>
                  <input
                    id={`ref-${p.id}`}
                    name="reference"
                    placeholder="Reference (optional)"
                    value={props.outcome.references?.[p.id]}
                    aria-invalid={props.outcome.rowErrors?.[p.id] ? 'true' : undefined}
                    aria-describedby={props.outcome.rowErrors?.[p.id] ? `ref-${p.id}-error` : undefined}
                  />
                  <button type="submit" class="secondary">
                    Mark paid
                  </button>
                </form>
                {!!props.outcome.rowErrors?.[p.id] && (
                  <p class="error" id={`ref-${p.id}-error`} safe>
                    {props.outcome.rowErrors[p.id]}
                  </p>
                )}
              </div>
            ) : (
              <span safe>{p.providerReference ?? ''}</span>
            )
          }
        />
      )}
      <OlderLink path={LIST} query={{ status: props.status }} cursor={props.nextCursor} label="Older payouts" />
    </AdminLayout>
  );
}
