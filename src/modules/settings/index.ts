// GET/PATCH /settings: attribution model and window, partner self-signup (admin only).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { authPlugin } from '../auth/plugin';
import { getSettings, updateSettings } from './service';

// t.Union of literals, not t.UnionEnum: Elysia fills an absent optional UnionEnum with its first value
export const UpdateSettingsBody = t.Object(
  {
    attributionModel: t.Optional(t.Union([t.Literal('last_click'), t.Literal('linear'), t.Literal('position')])),
    attributionWindowDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650 })),
    partnerSignup: t.Optional(t.Union([t.Literal('open'), t.Literal('closed'), t.Null()], { description: 'null: follow PARTNER_SIGNUP.' })),
  },
  { additionalProperties: false },
);

export function settingsRoutes(ctx: AppContext) {
  const withDefault = async (settings: Awaited<ReturnType<typeof getSettings>>) => ({
    ...settings,
    /** What applies now, PARTNER_SIGNUP filling a null. */
    partnerSignupEffective: settings.partnerSignup ?? ctx.config.partnerSignup,
  });
  return new Elysia({ tags: ['Settings'] } as never)
    .use(authPlugin(ctx))
    .get('/settings', async () => withDefault(await getSettings(ctx.sql)), {
      auth: 'admin',
      detail: { summary: 'Program-wide settings' },
    })
    .patch('/settings', async ({ body }) => withDefault(await updateSettings(ctx.sql, body)), {
      auth: 'admin',
      body: UpdateSettingsBody,
      detail: { summary: 'Change program-wide settings' },
    });
}
