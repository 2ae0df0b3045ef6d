// The setup checklist's buttons: create the snippet's publishable key (shown once, on the page this
// answers with), hide the checklist, show it again.
import { Elysia } from 'elysia';
import type { AppContext } from '../../../context';
import { createApiKey } from '../../../modules/auth/keys';
import { setOnboardingDismissed } from '../../../modules/reports/overview';
import { render, seeOther } from '../../render';
import type { AdminKit } from '../kit';
import { loadOverview, PATH } from './data';
import { overviewView } from './page';

export function onboardingRoutes(ctx: AppContext, kit: AdminKit) {
  return new Elysia({ detail: { hide: true } })
    .post('/admin/onboarding/key', ({ request, body }) =>
      kit.form(request, body, PATH, async (page) => {
        const created = await createApiKey(ctx.sql, { name: 'Website snippet', kind: 'publishable' });
        // the key is shown in this answer only: the database keeps its hash
        return render(overviewView(page, await loadOverview(ctx, {}), ctx.config.baseUrl, { createdKey: created.key }), { status: 201 });
      }),
    )
    .post('/admin/onboarding/dismiss', ({ request, body }) =>
      kit.form(request, body, PATH, async () => {
        await setOnboardingDismissed(ctx.sql, true);
        return seeOther(`${PATH}?done=dismissed`);
      }),
    )
    .post('/admin/onboarding/show', ({ request, body }) =>
      kit.form(request, body, PATH, async () => {
        await setOnboardingDismissed(ctx.sql, false);
        return seeOther(`${PATH}#setup`);
      }),
    );
}
