// One payout's actions: mark it paid (with a reference) or failed (with a reason).
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { FailBody } from '../../../modules/payouts/model';
import { markPayoutFailed, markPayoutPaid } from '../../../modules/payouts/service';
import { payoutsByIds } from '../../../modules/reports/money';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { schemaErrors } from '../../forms';
import { Notice } from '../../layout';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href } from '../../ui';
import { adminActor, AdminLayout, NotFoundPage, type AdminKit } from '../kit';
import { payoutHref } from '../tables';
import { IdParams, LIST } from './view';
import { PayoutFacts, settleConfirm, SettleBody } from './settle';

/** A payout's confirm page (mark paid or failed), or the 404 page. */
async function settleView(ctx: AppContext, page: AdminPage, id: string, kind: 'paid' | 'failed', input: { value?: string; error?: string }, status: number) {
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

export function actionRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .get(`${LIST}/:id/mark-paid`, ({ request, params }) => kit.page(request, (page) => settleView(ctx, page, params.id, 'paid', {}, 200)), { params: IdParams })
    .post(
      `${LIST}/:id/mark-paid`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reference = (form.reference ?? '').trim();
          const again = (text: string | undefined, status: number) => settleView(ctx, page, params.id, 'paid', { value: form.reference ?? '', error: text }, status);
          if (!isConfirmed(form)) return again(undefined, 200);
          if (reference.length > 255) return again('at most 255 characters', 400);
          try {
            await markPayoutPaid(ctx.sql, { id: params.id, actor: adminActor(page), reference: reference || undefined, invoicePrefix: ctx.config.invoicePrefix });
          } catch (error) {
            if (!(error instanceof AppError) || error.status >= 500) throw error;
            return again(error.message, error.status);
          }
          return seeOther(`${payoutHref(params.id)}?done=paid`);
        }),
      { params: IdParams },
    )
    .get(`${LIST}/:id/mark-failed`, ({ request, params }) => kit.page(request, (page) => settleView(ctx, page, params.id, 'failed', {}, 200)), { params: IdParams })
    .post(
      `${LIST}/:id/mark-failed`,
      ({ request, body, params }) =>
        kit.form(request, body, LIST, async (page, form) => {
          const reason = (form.reason ?? '').trim();
          const again = (text: string | undefined, status: number) => settleView(ctx, page, params.id, 'failed', { value: form.reason ?? '', error: text }, status);
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
