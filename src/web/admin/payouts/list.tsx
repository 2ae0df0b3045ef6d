// The payouts list: filter by status, sort, page, the run panel, the row menus and the bulk bar.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { PAYOUT_STATUSES } from '../../../modules/payouts/service';
import { anyPayout, fingerprint, payoutPage, previewRun, SORTS, type PayoutListed, type RunPreview } from '../../../modules/reports/money';
import { ConfirmDialog, ConfirmTrigger } from '../../confirm';
import { SelectField } from '../../forms';
import { Notice } from '../../layout';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { EmptyState, formatMoney, href, menuId, Pager, parsePage, parseSort, payoutBadge, type Sort } from '../../ui';
import { plural } from '../kit/bulk';
import { AdminLayout, can, type AdminKit } from '../kit';
import { payoutHref, PayoutsTable, RowCheck } from '../tables';
import { DEFAULT_SORT, DONE, handSettled, LIST, ListQuery, PAGE_SIZE, readStatus, runTitle, viewOf, type Outcome, type View } from './view';
import { settleConfirm, SettleBody } from './settle';
import { RunSummary } from './run';
import { DueNow } from './held';

export async function listView(ctx: AppContext, page: AdminPage, query: Record<string, string | undefined>, outcome: Outcome = {}) {
  const view = viewOf(query);
  const sort = parseSort(query, SORTS.payouts, DEFAULT_SORT);
  const paging = parsePage(query, PAGE_SIZE);
  const [{ rows, total }, any, preview] = await Promise.all([
    payoutPage(ctx.sql, { filter: { status: readStatus(query.status) }, sort, offset: paging.offset, limit: paging.limit }),
    anyPayout(ctx.sql),
    previewRun(ctx.sql, ctx.config.minPayout, { stripe: ctx.payoutProvider.stripe !== null }),
  ]);
  return (
    <PayoutsPage
      page={page}
      rows={rows}
      total={total}
      any={any}
      view={view}
      sort={sort}
      pageNumber={paging.page}
      preview={preview}
      minPayout={ctx.config.minPayout}
      outcome={outcome}
      tickable={handSettled(ctx)}
    />
  ) as string;
}

export function listRoutes(ctx: AppContext, kit: AdminKit) {
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
          return render(await listView(ctx, page, query, outcome));
        }),
      { query: ListQuery },
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
  /** Rows the bulk bar can mark paid (handSettled). */
  tickable: (p: { provider: string; status: string }) => boolean;
}) {
  const v = props.view;
  const csrf = props.page.csrf;
  const preview = props.preview;
  const csv = href('/v1/payouts.csv', { status: v.status });
  const partners = new Map(props.rows.map((p) => [p.partnerId, p.partnerName]));
  const due = preview.lines.length > 0;
  // a role without money actions sees the payouts, not the buttons that move money
  const money = can(props.page, 'POST', `${LIST}/run`);
  return (
    <AdminLayout page={props.page} title="Payouts" current={LIST}>
      <div class="page-head">
        <h1>Payouts</h1>
        <div class="actions">
          <a class="button secondary" href={csv} id="csv" download="payouts.csv">
            Export CSV
          </a>
          <a class="button secondary" href="/v1/payouts.csv?format=wise" id="csv-wise" download="payouts-wise.csv">
            Download for Wise
          </a>
          <a class="button secondary" href="/v1/payouts.csv?format=paypal" id="csv-paypal" download="payouts-paypal.csv">
            Download for PayPal
          </a>
          {money && <ConfirmTrigger href={`${LIST}/run`} dialog="run-payouts" label="Run payouts now…" />}
        </div>
      </div>
      {!!props.outcome.ok && <Notice kind="ok" text={props.outcome.ok} />}
      {!!props.outcome.error && <Notice kind="error" text={props.outcome.error} />}
      <DueNow preview={preview} />
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
          {money && (
            <form method="get" action={`${LIST}/bulk`} id="bulk" class="bulk" aria-label="Act on the ticked payouts">
              {Object.entries(v).map(([name, value]) => (value ? <input type="hidden" name={name} value={value} /> : ''))}
              <div class="bulk-bar" data-bulk-bar="bulk">
                <span data-bulk-count>Tick payouts paid by hand to mark them paid</span>
                <button type="submit" class="secondary">
                  Mark paid…
                </button>
              </div>
            </form>
          )}
          <PayoutsTable
            payouts={props.rows}
            names={{ partners }}
            caption={`Payouts, ${props.sort.key === 'amount' ? 'by amount' : props.sort.dir === 'asc' ? 'oldest first' : 'newest first'}`}
            sorting={{ sort: props.sort, path: LIST, query: v }}
            selectAll={money ? 'bulk' : undefined}
            select={(p) => (money && props.tickable(p) ? <RowCheck id={p.id} form="bulk" label={`Select ${formatMoney(p.amount, p.currency)} to ${partners.get(p.partnerId) ?? p.partnerId}`} /> : '')}
            actions={(p) => ({
              title: `${formatMoney(p.amount, p.currency)} to ${partners.get(p.partnerId) ?? p.partnerId}`,
              items: (
                <>
                  <a href={payoutHref(p.id)}>Open the payout</a>
                  {money && p.status === 'pending' && (
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
            .filter((p) => money && p.status === 'pending')
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
      {money && <RunDialog preview={preview} minPayout={props.minPayout} csrf={csrf} />}
    </AdminLayout>
  );
}

/** The run's confirmation: what is due, and a button that says it. */
function RunDialog(props: { preview: Parameters<typeof RunSummary>[0]['preview']; minPayout: Parameters<typeof RunSummary>[0]['minPayout']; csrf: string }) {
  const due = props.preview.lines.length > 0;
  return (
    <ConfirmDialog
      id="run-payouts"
      title={due ? runTitle(props.preview) : 'Run payouts'}
      action={`${LIST}/run`}
      button={due ? runTitle(props.preview) : 'Run anyway'}
      csrf={props.csrf}
      fields={{ expect: fingerprint(props.preview) }}
    >
      <RunSummary preview={props.preview} minPayout={props.minPayout} />
    </ConfirmDialog>
  );
}

