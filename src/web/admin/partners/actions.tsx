// Admin partners: what changes one partner: the edit form's post, invite again, revoke (confirmed,
// with a reason) and reinstate.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../../context';
import { AppError } from '../../../lib/errors';
import { findPartner, findPartnerByEmail, updatePartner, type Partner } from '../../../modules/partners/service';
import { reinvitePartner } from '../../../workflows/invite-partner';
import { UpdatePartnerBody } from '../../../modules/partners/model';
import { reinstatePartner, revokePartner } from '../../../workflows/revoke-partner';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { formErrors, formList, schemaErrors } from '../../forms';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { AdminLayout, NotFoundPage, refused, type AdminKit } from '../kit';
import { BillingAccountId, type EditValues, LIST, Params, detailPath, revokeConfirm } from './shared';
import { detailView } from './detail';

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
function partnerAction(ctx: AppContext, kit: AdminKit, name: string, act: (page: AdminPage, partner: Partner, form: Record<string, string>) => Promise<Response>) {
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
        return render(await detailView(ctx, page, fresh, {}, { errors, reason: form.reason }), { status: (error as AppError).status });
      }
    });
}

export function editRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
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
          if (Object.keys(errors).length > 0) return render(await detailView(ctx, page, partner, {}, { errors, edit }), { status: 400 });
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
            return render(await detailView(ctx, page, partner, {}, { errors: problems, edit }), { status: (error as AppError).status });
          }
          return seeOther(`${detailPath(partner.id)}?done=saved`);
        }),
      { params: Params },
    );
}

export function statusRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .post(
      `${LIST}/:id/invite`,
      partnerAction(ctx, kit, 'invite', async (_page, partner) => {
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
      partnerAction(ctx, kit, 'reinstate', async (_page, partner) => {
        await reinstatePartner(ctx, partner.id);
        return seeOther(`${detailPath(partner.id)}?done=reinstated`);
      }),
      { params: Params },
    );
}
