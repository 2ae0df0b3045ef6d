// Admin webhooks, an endpoint's actions: send a test, pause and resume, rotate the signing secret
// and delete for good (both confirmed first: a dialog, or a confirm page without script).
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { deleteEndpoint, rotateSecret, testSend, updateEndpoint, type Endpoint } from '../../../modules/webhooks/service';
import { ConfirmPanel, isConfirmed } from '../../confirm';
import { render, seeOther } from '../../render';
import type { AdminPage } from '../../session';
import { AdminLayout, type AdminKit } from '../kit';
import { detailView } from './detail';
import { LIST, Params, deleteConfirm, detailPath, rotateConfirm, withEndpoint } from './shared';

/** A confirm page (no script, or a direct visit) inside the admin shell. */
const confirmPage = (page: AdminPage, endpoint: Endpoint, confirm: ReturnType<typeof rotateConfirm>) =>
  render(
    <AdminLayout page={page} title="Webhook endpoint" current={LIST}>
      <ConfirmPanel {...confirm} back={detailPath(endpoint.id)} />
    </AdminLayout>,
  );

export function actionRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .post(
      `${LIST}/:id/test`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            await testSend(ctx, endpoint.id, undefined);
            return seeOther(`${detailPath(endpoint.id)}?done=tested`);
          }),
        ),
      { params: Params },
    )
    .post(
      `${LIST}/:id/active`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            const active = form.active === 'true';
            await updateEndpoint(ctx, endpoint.id, { active });
            return seeOther(`${detailPath(endpoint.id)}?done=${active ? 'resumed' : 'paused'}`);
          }),
        ),
      { params: Params },
    )
    .get(
      `${LIST}/:id/rotate-secret`,
      ({ request, params }) => kit.page(request, (page) => withEndpoint(ctx, page, params.id, async (endpoint) => confirmPage(page, endpoint, rotateConfirm(endpoint, page.csrf)))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/rotate-secret`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            if (!isConfirmed(form)) return confirmPage(page, endpoint, rotateConfirm(endpoint, page.csrf));
            const { secret } = await rotateSecret(ctx.sql, endpoint.id);
            // shown on this answer only, like the secret of a new endpoint
            return render(await detailView(ctx, page, endpoint, { rotated: secret }));
          }),
        ),
      { params: Params },
    )
    .get(
      `${LIST}/:id/delete`,
      ({ request, params }) => kit.page(request, (page) => withEndpoint(ctx, page, params.id, async (endpoint) => confirmPage(page, endpoint, deleteConfirm(endpoint, page.csrf)))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/delete`,
      ({ request, body, params }) =>
        kit.form(request, body, detailPath(params.id), (page, form) =>
          withEndpoint(ctx, page, params.id, async (endpoint) => {
            if (!isConfirmed(form)) return confirmPage(page, endpoint, deleteConfirm(endpoint, page.csrf));
            await deleteEndpoint(ctx.sql, endpoint.id, true);
            return seeOther(`${LIST}?done=deleted`);
          }),
        ),
      { params: Params },
    );
}
