// Approving and reversing flagged commissions, one (each card's buttons) or many (the bulk bar):
// each post lands on the confirmation until it carries `confirmed=1`; a reversal needs a reason.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { approveCommission, reverseCommission } from '../../../modules/commissions/lifecycle';
import { ReverseBody } from '../../../modules/commissions/model';
import { isConfirmed } from '../../confirm';
import { formList, schemaErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { href } from '../../ui';
import { adminActor, type AdminKit } from '../kit';
import { confirmView } from './confirm';
import { MAX_BULK, REVIEW, type Bulk } from './labels';

const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });

function reasonProblem(reason: string): string | null {
  const problems = schemaErrors(ReverseBody, { reason });
  if (!problems.reason) return null;
  return problems.reason === 'required' ? 'say why (self-referral, bot traffic…)' : problems.reason;
}

export function reviewActionRoutes(ctx: AppContext, kit: AdminKit) {
  /** Approves or reverses each id; those no longer waiting are counted as skipped. */
  async function act(page: AdminPage, action: Bulk, ids: string[], reason: string): Promise<Response> {
    let moved = 0;
    for (const id of ids) {
      try {
        if (action === 'approve') await approveCommission(ctx.sql, { id, actor: adminActor(page) });
        else await reverseCommission(ctx.sql, { id, actor: adminActor(page), reason });
        moved++;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    }
    return seeOther(href(REVIEW, {}, { done: action === 'approve' ? 'approved' : 'reversed', n: String(moved), skipped: String(ids.length - moved) }));
  }

  /** The confirmed post of an action (bulk, or one commission by its id). */
  const post = (action: Bulk, one: boolean) => ({ request, body, params }: { request: Request; body: unknown; params?: { id?: string } }) =>
    kit.form(request, body, REVIEW, async (page, form) => {
      const ids = one ? [params!.id!] : formList(body, 'ids');
      const reason = (form.reason ?? '').trim();
      if (!isConfirmed(form) || ids.length === 0 || ids.length > MAX_BULK) {
        return render(await confirmView(ctx, page, action, ids, { reason: form.reason }), { status: ids.length === 0 || ids.length > MAX_BULK ? 400 : 200 });
      }
      if (action === 'reverse') {
        const problem = reasonProblem(reason);
        if (problem) return render(await confirmView(ctx, page, action, ids, { reason: form.reason ?? '', error: problem }), { status: 400 });
      }
      return act(page, action, ids, reason);
    });

  return new Elysia({ detail: { hide: true } })
    .post(`${REVIEW}/approve`, post('approve', false))
    .post(`${REVIEW}/reverse`, post('reverse', false))
    .post(`${REVIEW}/:id/approve`, post('approve', true), { params: IdParams })
    .post(`${REVIEW}/:id/reverse`, post('reverse', true), { params: IdParams });
}
