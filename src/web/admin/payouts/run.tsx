// A payout run: the preview of what is due (who, how much, what waits) and its confirmation.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { fingerprint, previewRun, totalsOf, type RunPreview } from '../../../modules/reports/money';
import { runPayouts } from '../../../workflows/run-payouts';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { Notice } from '../../layout';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href, MoneyCell, Trunc, NumHead } from '../../ui';
import { plural } from '../kit/bulk';
import { adminActor, AdminLayout, type AdminKit } from '../kit';
import { totalsText } from '../tables';
import { LIST, PREVIEW_LINES, RAIL_LABELS, runTitle } from './view';

/** What a run would pay: partners, commissions, totals per currency, cut-off, and the lines. */
export function RunSummary(props: { preview: RunPreview; minPayout: string }) {
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
                <th scope="col">Rail</th>
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
                  <td data-label="Rail" safe>
                    {RAIL_LABELS[l.rail]}
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
      {p.byRail.length > 0 && (
        <p class="hint" id="run-rails" safe>
          {`By rail: ${p.byRail.map((r) => `${RAIL_LABELS[r.rail]} ${plural(r.count, 'payout')}, ${totalsText([r])}`).join('; ')}.`}
        </p>
      )}
      {p.held.length > 0 && (
        <div id="run-held">
          <p class="hint" safe>{`${plural(p.held.length, 'payout')} held (the partner's payout method, or a missing tax form), left for a later run:`}</p>
          <ul>
            {p.held.map((h) => (
              <li data-held={h.partnerId} safe>
                {`${h.partnerName}: ${totalsText([{ currency: h.currency, amount: h.amount }])} — ${h.reason}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {p.belowMinimum.partners > 0 && (
        <p class="hint" id="run-waiting" safe>
          {`${plural(p.belowMinimum.partners, 'partner')} below the minimum wait for a later run (${totalsText(p.belowMinimum.totals)}).`}
        </p>
      )}
    </div>
  );
}

async function runView(ctx: AppContext, page: AdminPage, notice?: string, status = 200) {
  const preview = await previewRun(ctx.sql, ctx.config.minPayout, { stripe: ctx.payoutProvider.stripe !== null });
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

/** The run page and the run itself, confirmed against the preview's fingerprint. */
export function runRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(`${LIST}/run`, ({ request }) => kit.page(request, (page) => runView(ctx, page)))
    .post(`${LIST}/run`, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        if (!isConfirmed(form)) return runView(ctx, page);
        // what the admin confirmed must still be what a run pays now, or they confirm again
        const preview = await previewRun(ctx.sql, ctx.config.minPayout, { stripe: ctx.payoutProvider.stripe !== null });
        if (form.expect !== fingerprint(preview)) return runView(ctx, page, 'What is due changed since the preview was drawn (a commission was approved, reversed or paid). Check the new amounts and confirm again.', 409);
        const created = await runPayouts(ctx, { actor: adminActor(page) });
        if (created === null) return runView(ctx, page, 'A payout run is already in progress; try again in a moment.', 409);
        return seeOther(`${LIST}?created=${created.length}`);
      }),
    );
}
