// Admin payouts: the list (status filter, sort by date or amount, "1–50 of N"), a payout's page with
// its commissions and clawbacks, and the money actions, each confirmed before it acts (a dialog on
// the page, the confirm page without script; a post without `confirmed=1` answers the confirm page):
// run payouts now (previewing what the run pays: the run's own sums, workflows/run-payouts.ts), mark
// paid (one, or the ticked pending ones), mark failed (its commissions become payable again). The CSV
// export is the API's own /v1/payouts.csv, which the admin session cookie opens.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { FailBody } from '../../modules/payouts/model';
import { findPayoutRow, markPayoutFailed, markPayoutPaid, PAYOUT_STATUSES, type PayoutStatus } from '../../modules/payouts/service';
import {
  anyPayout,
  fingerprint,
  payoutLines,
  payoutPage,
  payoutsByIds,
  previewRun,
  SORTS,
  totalsOf,
  type ClawbackLine,
  type CommissionListed,
  type PayoutListed,
  type RunPreview,
} from '../../modules/reports/money';
import { runPayouts } from '../../workflows/run-payouts';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { formList, schemaErrors, SelectField } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Badge, EmptyState, formatMoney, href, menuId, MoneyCell, Pager, parsePage, parseSort, payoutBadge, Trunc, type Sort, NumHead } from '../ui';
import { BulkTotals, queryList } from './commissions';
import { adminActor, AdminLayout, day, NotFoundPage, type AdminKit } from './kit';
import { CommissionsTable, DialogField, eventHref, payoutHref, PayoutsTable, RowCheck, totalsText } from './tables';

const LIST = '/admin/payouts';
const PAGE_SIZE = 50;
const MAX_BULK = 100;
const DEFAULT_SORT: Sort<'date' | 'amount'> = { key: 'date', dir: 'desc' };
/** Lines of a run preview shown in full; the rest are summed. */
const PREVIEW_LINES = 20;

type Outcome = { ok?: string; error?: string };
type View = Record<string, string | undefined>;

const ListQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  sort: t.Optional(t.String({ maxLength: 20 })),
  dir: t.Optional(t.String({ maxLength: 4 })),
  page: t.Optional(t.String({ maxLength: 8 })),
  created: t.Optional(t.String({ maxLength: 6 })),
  paid: t.Optional(t.String({ maxLength: 6 })),
  skipped: t.Optional(t.String({ maxLength: 6 })),
  done: t.Optional(t.String({ maxLength: 20 })),
});
const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

const readStatus = (s: string | undefined) => ((PAYOUT_STATUSES as readonly string[]).includes(s ?? '') ? (s as PayoutStatus) : undefined);
const viewOf = (query: Record<string, string | undefined>): View => ({
  status: readStatus(query.status),
  sort: (SORTS.payouts as readonly string[]).includes(query.sort ?? '') ? query.sort : undefined,
  dir: query.dir === 'asc' || query.dir === 'desc' ? query.dir : undefined,
  page: /^\d{1,6}$/.test(query.page ?? '') ? query.page : undefined,
});
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "Pay 1,240.00 USD to 12 partners": the run's title, and its button. */
const runTitle = (p: RunPreview) => `Pay ${totalsText(p.totals)} to ${plural(p.partners, 'partner')}`;

const DONE: Record<string, string> = {
  paid: 'Payout marked paid.',
  failed: 'Payout marked failed: its commissions are payable again in the next run.',
};

export function payoutRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, query: Record<string, string | undefined>, outcome: Outcome = {}) {
    const view = viewOf(query);
    const sort = parseSort(query, SORTS.payouts, DEFAULT_SORT);
    const paging = parsePage(query, PAGE_SIZE);
    const [{ rows, total }, any, preview] = await Promise.all([
      payoutPage(ctx.sql, { filter: { status: readStatus(query.status) }, sort, offset: paging.offset, limit: paging.limit }),
      anyPayout(ctx.sql),
      previewRun(ctx.sql, ctx.config.minPayout),
    ]);
    return (
      <PayoutsPage page={page} rows={rows} total={total} any={any} view={view} sort={sort} pageNumber={paging.page} preview={preview} minPayout={ctx.config.minPayout} outcome={outcome} />
    ) as string;
  }

  async function runView(page: AdminPage, notice?: string, status = 200) {
    const preview = await previewRun(ctx.sql, ctx.config.minPayout);
    return render(
      <AdminLayout page={page} title="Run payouts" current={LIST}>
        <p class="back">
          <a href={LIST}>Payouts</a>
        </p>
        {!!notice && <Notice kind="error" text={notice} />}
        {preview.lines.length === 0 ? (
          <section class="confirm-page">
            <h1>Run payouts</h1>
            <RunSummary preview={preview} minPayout={ctx.config.minPayout} />
            <p>
              <a class="button secondary" href={LIST}>
                Back to payouts
              </a>
            </p>
          </section>
        ) : (
          <ConfirmPanel title={runTitle(preview)} action={`${LIST}/run`} button={runTitle(preview)} csrf={page.csrf} back={LIST} fields={{ expect: fingerprint(preview) }}>
            <RunSummary preview={preview} minPayout={ctx.config.minPayout} />
          </ConfirmPanel>
        )}
      </AdminLayout>,
      { status },
    );
  }

  /** A payout's confirm page (mark paid or failed), or the 404 page. */
  async function settleView(page: AdminPage, id: string, kind: 'paid' | 'failed', input: { value?: string; error?: string }, status: number) {
    const [payout] = await payoutsByIds(ctx.sql, [id]);
    if (!payout) return render(<NotFoundPage page={page} what="payout" back={LIST} />, { status: 404 });
    return render(
      <AdminLayout page={page} title={kind === 'paid' ? 'Mark payout paid' : 'Mark payout failed'} current={LIST}>
        <p class="back">
          <a href={payoutHref(payout.id)}>Payout</a>
        </p>
        {payout.status === 'pending' ? (
          <ConfirmPanel {...settleConfirm(payout, kind, page.csrf)} back={payoutHref(payout.id)}>
            <PayoutFacts payout={payout} />
            <SettleBody kind={kind} idPrefix="f" value={input.value} error={input.error} />
          </ConfirmPanel>
        ) : (
          <section class="confirm-page">
            <h1 safe>{settleConfirm(payout, kind, page.csrf).title}</h1>
            <Notice kind="error" text={`This payout is already ${payout.status}: only a pending payout can be marked ${kind}.`} />
            <PayoutFacts payout={payout} />
            <p>
              <a class="button secondary" href={payoutHref(payout.id)}>
                Back to the payout
              </a>
            </p>
          </section>
        )}
      </AdminLayout>,
      { status },
    );
  }

  async function bulkView(page: AdminPage, ids: string[], view: View, status = 200) {
    const rows = await payoutsByIds(ctx.sql, ids.slice(0, MAX_BULK));
    const pending = rows.filter((p) => p.status === 'pending');
    const totals = totalsOf(pending.map((p) => ({ currency: p.currency, amount: p.amountMinor })));
    const partners = new Set(pending.map((p) => p.partnerId)).size;
    const skipped = ids.length - pending.length;
    const title = `Mark ${plural(pending.length, 'payout')} paid (${totalsText(totals)})`;
    const listHref = href(LIST, view);
    return render(
      <AdminLayout page={page} title="Mark payouts paid" current={LIST}>
        <p class="back">
          <a href={listHref}>Payouts</a>
        </p>
        {pending.length === 0 || ids.length > MAX_BULK ? (
          <section class="confirm-page">
            <h1>Mark payouts paid</h1>
            <Notice
              kind="error"
              text={ids.length === 0 ? 'Tick at least one pending payout.' : ids.length > MAX_BULK ? `At most ${MAX_BULK} payouts at once.` : 'None of the ticked payouts is pending.'}
            />
            <p>
              <a class="button secondary" href={listHref}>
                Back to payouts
              </a>
            </p>
          </section>
        ) : (
          <ConfirmPanel title={title} action={href(`${LIST}/mark-paid`, view)} button={title} csrf={page.csrf} back={listHref} fields={{ ids: pending.map((p) => p.id) }}>
            <p safe>{`Use this once the money has reached ${plural(partners, 'partner')}. Their commissions become paid; this cannot be undone.`}</p>
            <BulkTotals totals={totals} caption="Payouts to mark paid, per currency" />
            {skipped > 0 && (
              <p class="hint" id="bulk-skipped" safe>
                {`${plural(skipped, 'ticked payout is', 'ticked payouts are')} skipped: no longer pending.`}
              </p>
            )}
          </ConfirmPanel>
        )}
      </AdminLayout>,
      { status },
    );
  }

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) =>
        kit.page(request, async (page) => {
          const outcome: Outcome = {};
          const n = (text: string | undefined) => Number.parseInt(text ?? '0', 10) || 0;
          if (query.created !== undefined) {
            outcome.ok = n(query.created) === 0 ? 'Payout run finished: nothing was due.' : `Payout run finished: ${plural(n(query.created), 'payout')} created.`;
          }
          if (query.paid !== undefined) {
            const skipped = n(query.skipped) > 0 ? ` ${plural(n(query.skipped), 'ticked payout was', 'ticked payouts were')} skipped (no longer pending).` : '';
            outcome.ok = `Marked ${plural(n(query.paid), 'payout')} paid.${skipped}`;
          }
          if (query.done && DONE[query.done]) outcome.ok = DONE[query.done];
          return render(await listView(page, query, outcome));
        }),
      { query: ListQuery },
    )
    .get(`${LIST}/run`, ({ request }) => kit.page(request, (page) => runView(page)))
    .post(`${LIST}/run`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        if (!isConfirmed(form)) return runView(page);
        // what the admin confirmed must still be what a run pays now, or they confirm again
        const preview = await previewRun(ctx.sql, ctx.config.minPayout);
        if (form.expect !== fingerprint(preview)) return runView(page, 'What is due changed since the preview was drawn (a commission was approved, reversed or paid). Check the new amounts and confirm again.', 409);
        const created = await runPayouts(ctx, { actor: adminActor(page), provider: ctx.payoutProvider });
        if (created === null) return runView(page, 'A payout run is already in progress; try again in a moment.', 409);
        return seeOther(`${LIST}?created=${created.length}`);
      }),
    )
    .get(`${LIST}/bulk`, ({ request, query }) => kit.page(request, (page) => bulkView(page, queryList(request, 'ids', MAX_BULK), viewOf(query as View))), {
      query: t.Object({ ...ListQuery.properties, ids: t.Optional(t.Unknown()) }),
    })
    .post(
      `${LIST}/mark-paid`,
      ({ request, body, query }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const view = viewOf(query);
          const ids = formList(body, 'ids');
          if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) return bulkView(page, ids, view, ids.length === 0 || ids.length > MAX_BULK ? 400 : 200);
          let paid = 0;
          for (const id of ids) {
            try {
              await markPayoutPaid(ctx.sql, { id, actor: adminActor(page) });
              paid++;
            } catch (error) {
              // paid, failed or gone since the page was drawn: counted as skipped
              if (!(error instanceof AppError)) throw error;
            }
          }
          return seeOther(href(LIST, view, { paid: String(paid), skipped: String(ids.length - paid) }));
        }),
      { query: ListQuery },
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const row = await findPayoutRow(ctx.sql, params.id);
          const [payout] = row ? await payoutsByIds(ctx.sql, [row.id]) : [];
          if (!row || !payout) return render(<NotFoundPage page={page} what="payout" back={LIST} />, { status: 404 });
          const lines = await payoutLines(ctx.sql, row);
          return render(<PayoutPage page={page} payout={payout} commissions={lines.commissions} clawbacks={lines.clawbacks} done={query.done} />);
        }),
      { params: IdParams, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .get(`${LIST}/:id/mark-paid`, ({ request, params }) => kit.page(request, (page) => settleView(page, params.id, 'paid', {}, 200)), { params: IdParams })
    .post(
      `${LIST}/:id/mark-paid`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reference = (form.reference ?? '').trim();
          const again = (text: string | undefined, status: number) => settleView(page, params.id, 'paid', { value: form.reference ?? '', error: text }, status);
          if (!isConfirmed(form)) return again(undefined, 200);
          if (reference.length > 255) return again('at most 255 characters', 400);
          try {
            await markPayoutPaid(ctx.sql, { id: params.id, actor: adminActor(page), reference: reference || undefined });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(`${payoutHref(params.id)}?done=paid`);
        }),
      { params: IdParams },
    )
    .get(`${LIST}/:id/mark-failed`, ({ request, params }) => kit.page(request, (page) => settleView(page, params.id, 'failed', {}, 200)), { params: IdParams })
    .post(
      `${LIST}/:id/mark-failed`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reason = (form.reason ?? '').trim();
          const again = (text: string | undefined, status: number) => settleView(page, params.id, 'failed', { value: form.reason ?? '', error: text }, status);
          if (!isConfirmed(form)) return again(undefined, 200);
          const problems = schemaErrors(FailBody, { reason });
          if (problems.reason) return again(problems.reason === 'required' ? 'say what went wrong (bounced, wrong account...)' : problems.reason, 400);
          try {
            await markPayoutFailed(ctx.sql, { id: params.id, actor: adminActor(page), reason });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(`${payoutHref(params.id)}?done=failed`);
        }),
      { params: IdParams },
    );
}

/** The confirmation of settling one payout: title, where it posts, the button. */
function settleConfirm(p: PayoutListed, kind: 'paid' | 'failed', csrf: string) {
  const amount = formatMoney(p.amount, p.currency);
  return kind === 'paid'
    ? { title: `Mark ${amount} paid to ${p.partnerName}`, action: `${payoutHref(p.id)}/mark-paid`, button: `Mark ${amount} paid`, csrf }
    : { title: `Mark ${amount} to ${p.partnerName} failed`, action: `${payoutHref(p.id)}/mark-failed`, button: `Mark ${amount} failed`, csrf, danger: true };
}

/** What settling does, and the field it asks (a reference for paid, the reason for failed). */
function SettleBody(props: { kind: 'paid' | 'failed'; idPrefix: string; value?: string; error?: string }) {
  return props.kind === 'paid' ? (
    <>
      <p>Use this once the money has reached the partner. Its commissions become paid; this cannot be undone.</p>
      <DialogField id={`${props.idPrefix}-reference`} name="reference" label="Payment reference (optional)" hint="The bank transfer's reference, for your records" value={props.value} error={props.error} />
    </>
  ) : (
    <>
      <p>The money did not reach the partner. Its commissions become approved again and are paid in the next payout run; clawbacks it netted reopen. This cannot be undone.</p>
      <DialogField id={`${props.idPrefix}-reason`} name="reason" label="What went wrong" hint="Bounced, wrong account…" value={props.value} error={props.error} required />
    </>
  );
}

function PayoutFacts(props: { payout: PayoutListed }) {
  const p = props.payout;
  return (
    <dl class="facts">
      <dt>Partner</dt>
      <dd>
        <a href={`/admin/partners/${encodeURIComponent(p.partnerId)}`} safe>
          {p.partnerName}
        </a>
      </dd>
      <dt>Status</dt>
      <dd>
        <Badge {...payoutBadge(p)} id="payout-status" />
      </dd>
      <dt>Amount</dt>
      <dd class="money" safe>
        {formatMoney(p.amount, p.currency)}
      </dd>
      <dt>Commissions</dt>
      <dd safe>{`${p.commissionCount} (${formatMoney(p.commissionsAmount, p.currency)})`}</dd>
      {p.clawbackCount > 0 && (
        <>
          <dt>Clawbacks netted</dt>
          <dd safe>{`${p.clawbackCount} (-${formatMoney(p.clawbacksAmount, p.currency)})`}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd safe>{day(p.createdAt)}</dd>
      {!!p.paidAt && (
        <>
          <dt>Paid</dt>
          <dd safe>{day(p.paidAt)}</dd>
        </>
      )}
      {!!p.providerReference && (
        <>
          <dt>Reference</dt>
          <dd safe>{p.providerReference}</dd>
        </>
      )}
      {!!p.failedAt && (
        <>
          <dt>Failed</dt>
          <dd safe>{`${day(p.failedAt)}: ${p.failureReason ?? ''}`}</dd>
        </>
      )}
    </dl>
  );
}

/** What a run would pay: partners, commissions, totals per currency, cut-off, and the lines. */
function RunSummary(props: { preview: RunPreview; minPayout: string }) {
  const p = props.preview;
  const more = p.lines.slice(PREVIEW_LINES);
  const cutoff = `${p.cutoff.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return (
    <div class="run-preview">
      {p.lines.length === 0 ? (
        <p id="run-nothing">Nothing is due: no partner's approved commissions, less open clawbacks, reach the minimum payout.</p>
      ) : (
        <dl class="facts" id="run-facts">
          <dt>Partners</dt>
          <dd id="run-partners">{p.partners}</dd>
          <dt>Commissions</dt>
          <dd id="run-commissions">{p.commissions}</dd>
          {p.clawbacks > 0 && (
            <>
              <dt>Clawbacks netted</dt>
              <dd>{p.clawbacks}</dd>
            </>
          )}
          <dt>Total</dt>
          <dd id="run-total" class="money" safe>
            {totalsText(p.totals)}
          </dd>
          <dt>Cut-off</dt>
          <dd safe>{`Commissions approved up to ${cutoff}`}</dd>
          <dt>Minimum payout</dt>
          <dd safe>{`${props.minPayout} in each currency`}</dd>
        </dl>
      )}
      {p.lines.length > 0 && (
        <div class="table-wrap">
          <table id="run-lines" class="stack">
            <caption class="vh">What each partner is paid</caption>
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <NumHead label="Commissions" />
                <NumHead label="Amount" />
              </tr>
            </thead>
            <tbody>
              {p.lines.slice(0, PREVIEW_LINES).map((l) => (
                <tr data-line={`${l.partnerId}:${l.currency}`}>
                  <td class="lead">
                    <Trunc text={l.partnerName} />
                  </td>
                  <td class="num" data-label="Commissions" safe>
                    {l.clawbackCount > 0 ? `${l.commissionCount} − ${l.clawbackCount} clawback${l.clawbackCount === 1 ? '' : 's'}` : String(l.commissionCount)}
                  </td>
                  <MoneyCell amount={l.amount} currency={l.currency} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more.length > 0 && (
        <p class="hint" safe>
          {`…and ${plural(more.length, 'more payout')}: ${totalsText(totalsOf(more.map((l) => ({ currency: l.currency, amount: l.amount }))))}.`}
        </p>
      )}
      {p.belowMinimum.partners > 0 && (
        <p class="hint" id="run-waiting" safe>
          {`${plural(p.belowMinimum.partners, 'partner')} below the minimum wait for a later run (${totalsText(p.belowMinimum.totals)}).`}
        </p>
      )}
    </div>
  );
}

function PayoutsPage(props: {
  page: AdminPage;
  rows: PayoutListed[];
  total: number;
  any: boolean;
  view: View;
  sort: Sort<'date' | 'amount'>;
  pageNumber: number;
  preview: RunPreview;
  minPayout: string;
  outcome: Outcome;
}) {
  const v = props.view;
  const csrf = props.page.csrf;
  const preview = props.preview;
  const csv = href('/v1/payouts.csv', { status: v.status });
  const partners = new Map(props.rows.map((p) => [p.partnerId, p.partnerName]));
  const due = preview.lines.length > 0;
  return (
    <AdminLayout page={props.page} title="Payouts" current={LIST}>
      <div class="page-head">
        <h1>Payouts</h1>
        <div class="actions">
          <a class="button secondary" href={csv} id="csv" download="payouts.csv">
            Export CSV
          </a>
          <ConfirmTrigger href={`${LIST}/run`} dialog="run-payouts" label="Run payouts now…" />
        </div>
      </div>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <p class="hint" id="next-run">
        {due ? `Due now: ${totalsText(preview.totals)} to ${plural(preview.partners, 'partner')} (${plural(preview.commissions, 'commission')}).` : 'Nothing is due now.'}
      </p>
      <form method="get" action={LIST} class="row" aria-label="Filter payouts">
        <SelectField name="status" label="Status" value={v.status ?? ''} options={[{ value: '', label: 'Any' }, ...PAYOUT_STATUSES.map((s) => ({ value: s, label: payoutBadge({ status: s }).label }))]} />
        {!!v.sort && <input type="hidden" name="sort" value={v.sort} />}
        {!!v.dir && <input type="hidden" name="dir" value={v.dir} />}
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {props.rows.length === 0 ? (
        v.status && props.any ? (
          <EmptyState title="No payout matches" text="No payout has this status." clear={LIST} />
        ) : props.any ? (
          <EmptyState title="Nothing on this page" text="There are fewer payouts than this page number." action={{ href: LIST, label: 'First page' }} />
        ) : (
          <EmptyState title="No payouts yet" text="A payout run pays every partner whose approved commissions reach the minimum payout." />
        )
      ) : (
        <>
          <form method="get" action={`${LIST}/bulk`} id="bulk" class="bulk" aria-label="Act on the ticked payouts">
            {Object.entries(v).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
            <div class="bulk-bar" data-bulk-bar="bulk">
              <span data-bulk-count>Tick pending payouts to mark them paid</span>
              <button type="submit" class="secondary">
                Mark paid…
              </button>
            </div>
          </form>
          <PayoutsTable
            payouts={props.rows}
            names={{ partners }}
            caption={`Payouts, ${props.sort.key === 'amount' ? 'by amount' : props.sort.dir === 'asc' ? 'oldest first' : 'newest first'}`}
            sorting={{ sort: props.sort, path: LIST, query: v }}
            selectAll="bulk"
            select={(p) => (p.status === 'pending' ? <RowCheck id={p.id} form="bulk" label={`Select ${formatMoney(p.amount, p.currency)} to ${partners.get(p.partnerId) ?? p.partnerId}`} /> : '')}
            actions={(p) => ({
              title: `${formatMoney(p.amount, p.currency)} to ${partners.get(p.partnerId) ?? p.partnerId}`,
              items: (
                <>
                  <a href={payoutHref(p.id)}>Open the payout</a>
                  {p.status === 'pending' && (
                    <>
                      <ConfirmTrigger href={`${payoutHref(p.id)}/mark-paid`} dialog={menuId('paid', p.id)} label="Mark paid…" secondary />
                      <ConfirmTrigger href={`${payoutHref(p.id)}/mark-failed`} dialog={menuId('fail', p.id)} label="Mark failed…" secondary />
                    </>
                  )}
                </>
              ),
            })}
          />
          <Pager path={LIST} query={v} page={props.pageNumber} size={PAGE_SIZE} total={props.total} shown={props.rows.length} />
          {props.rows
            .filter((p) => p.status === 'pending')
            .map((p) => (
              <>
                <ConfirmDialog id={menuId('paid', p.id)} {...settleConfirm(p, 'paid', csrf)}>
                  <SettleBody kind="paid" idPrefix={menuId('paid', p.id)} />
                </ConfirmDialog>
                <ConfirmDialog id={menuId('fail', p.id)} {...settleConfirm(p, 'failed', csrf)}>
                  <SettleBody kind="failed" idPrefix={menuId('fail', p.id)} />
                </ConfirmDialog>
              </>
            ))}
        </>
      )}
      <ConfirmDialog
        id="run-payouts"
        title={due ? runTitle(preview) : 'Run payouts'}
        action={`${LIST}/run`}
        button={due ? runTitle(preview) : 'Run anyway'}
        csrf={csrf}
        fields={{ expect: fingerprint(preview) }}
      >
        <RunSummary preview={preview} minPayout={props.minPayout} />
      </ConfirmDialog>
    </AdminLayout>
  );
}

/** One payout: facts, the badge with what comes next, its commissions and clawbacks, its actions. */
function PayoutPage(props: { page: AdminPage; payout: PayoutListed; commissions: CommissionListed[]; clawbacks: ClawbackLine[]; done?: string }) {
  const p = props.payout;
  const badge = payoutBadge(p);
  const partners = new Map([[p.partnerId, p.partnerName]]);
  const campaigns = new Map(props.commissions.map((c) => [c.campaignId, c.campaignName]));
  return (
    <AdminLayout page={props.page} title="Payout" current={LIST}>
      <p class="back">
        <a href={LIST}>Payouts</a>
      </p>
      <div class="page-head">
        <h1 safe>{`${formatMoney(p.amount, p.currency)} to ${p.partnerName}`}</h1>
        {p.status === 'pending' && (
          <div class="actions">
            <ConfirmTrigger href={`${payoutHref(p.id)}/mark-failed`} dialog="fail-payout" label="Mark failed…" secondary />
            <ConfirmTrigger href={`${payoutHref(p.id)}/mark-paid`} dialog="paid-payout" label="Mark paid…" />
          </div>
        )}
      </div>
      {!!props.done && !!DONE[props.done] && <Notice kind="ok" text={DONE[props.done]!} />}
      <p class="hint" id="payout-next" safe>
        {badge.title}
      </p>
      <PayoutFacts payout={p} />
      <h2>{p.status === 'failed' ? 'Commissions it held (released when it failed)' : 'Commissions'}</h2>
      {props.commissions.length === 0 ? (
        <p class="empty">No commissions.</p>
      ) : (
        <CommissionsTable commissions={props.commissions} names={{ partners, campaigns }} caption="Commissions in this payout" onePartner />
      )}
      {props.clawbacks.length > 0 && (
        <>
          <h2>Clawbacks netted</h2>
          <div class="table-wrap">
            <table id="clawbacks" class="stack">
              <caption class="vh">Clawbacks netted in this payout</caption>
              <thead>
                <tr>
                  <th scope="col">Reversed commission</th>
                  <th scope="col">Reason</th>
                  <NumHead label="Amount" />
                </tr>
              </thead>
              <tbody>
                {props.clawbacks.map((k) => (
                  <tr>
                    <td class="lead">{k.eventId ? <Trunc text={k.commissionId} href={eventHref(k.eventId)} /> : <Trunc text={k.commissionId} />}</td>
                    <td data-label="Reason">
                      <Trunc text={k.reason} />
                    </td>
                    <MoneyCell amount={-k.amount} currency={p.currency} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {p.status === 'pending' && (
        <>
          <ConfirmDialog id="paid-payout" {...settleConfirm(p, 'paid', props.page.csrf)}>
            <SettleBody kind="paid" idPrefix="paid-payout" />
          </ConfirmDialog>
          <ConfirmDialog id="fail-payout" {...settleConfirm(p, 'failed', props.page.csrf)}>
            <SettleBody kind="failed" idPrefix="fail-payout" />
          </ConfirmDialog>
        </>
      )}
    </AdminLayout>
  );
}
