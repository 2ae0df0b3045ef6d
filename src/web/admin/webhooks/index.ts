// Admin webhooks: endpoints with their health (create with the signing secret shown once), an
// endpoint's page (edit, send a test, pause and resume, rotate the secret and delete for good, both
// confirmed first), the delivery log, and one delivery's page with the exact body that was sent.
// One file per verb; the rules live in modules/webhooks/service.ts, health and bodies in
// modules/reports/campaigns.ts.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import type { AdminKit } from '../kit';
import { actionRoutes } from './actions';
import { deliveryRoutes } from './deliveries';
import { detailRoutes } from './detail';
import { listRoutes } from './list';

export { healthBadge } from './parts';

export function webhookRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .use(listRoutes(ctx, kit))
    .use(detailRoutes(ctx, kit))
    .use(actionRoutes(ctx, kit))
    .use(deliveryRoutes(ctx, kit));
}
