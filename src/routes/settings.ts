// GET/PATCH /settings: attribution model and window, partner self-signup (admin only).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import { SettingsResponses, UpdateSettingsBody } from '../modules/settings/model';
import { getSettings, updateSettings, type Settings } from '../modules/settings/service';

export function settingsRoutes(ctx: AppContext) {
  const withDefault = (settings: Settings) => ({
    ...settings,
    /** What applies now, PARTNER_SIGNUP filling a null. */
    partnerSignupEffective: settings.partnerSignup ?? ctx.config.partnerSignup,
  });
  return new Elysia({ tags: ['Settings'] })
    .use(authPlugin(ctx))
    .get('/settings', async () => withDefault(await getSettings(ctx.sql)), {
      auth: 'admin',
      response: SettingsResponses.get,
      detail: { summary: 'Program-wide settings' },
    })
    .patch('/settings', async ({ body }) => withDefault(await updateSettings(ctx.sql, body, { encryption: ctx.config.encryption !== null })), {
      auth: 'admin',
      body: UpdateSettingsBody,
      response: SettingsResponses.update,
      detail: { summary: 'Change program-wide settings' },
    });
}
