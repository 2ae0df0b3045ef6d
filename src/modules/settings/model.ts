// Request and response schemas of the program-wide settings API.
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { errors, Timestamp } from '../../lib/http';

// t.Union of literals, not t.UnionEnum: Elysia fills an absent optional UnionEnum with its first
// value; and the document generator drops null from the enum of a t.Nullable(t.UnionEnum(...))
const Model = t.Union([t.Literal('last_click'), t.Literal('linear'), t.Literal('position')]);

export const UpdateSettingsBody = t.Object(
  {
    attributionModel: t.Optional(Model),
    attributionWindowDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650 })),
    partnerSignup: t.Optional(
      t.Union([t.Literal('open'), t.Literal('closed'), t.Literal('review'), t.Null()], {
        description: 'open: partners sign themselves up; review: self-signups wait as applications an admin approves; null: follow PARTNER_SIGNUP.',
      }),
    ),
  },
  { additionalProperties: false },
);

// ---- answers

/** The stored settings (the one row of the settings table). */
export const StoredSettings = t.Object({
  attributionModel: Model,
  // TypeBox's integer: Elysia's t.Integer also admits numeric strings (a request coercion)
  attributionWindowDays: Type.Integer({ minimum: 1, maximum: 3650, description: 'Clicks older than this many days do not count.' }),
  partnerSignup: t.Union([t.Literal('open'), t.Literal('closed'), t.Literal('review'), t.Null()], { description: 'null: PARTNER_SIGNUP applies.' }),
  updatedAt: Timestamp,
});

/** What GET and PATCH /settings answer: the stored settings and what applies now. */
export const SettingsRecord = t.Composite([
  StoredSettings,
  t.Object({
    partnerSignupEffective: t.Union([t.Literal('open'), t.Literal('closed'), t.Literal('review')], { description: 'What applies now: partnerSignup, or PARTNER_SIGNUP when it is null.' }),
  }),
]);

export const SettingsResponses = {
  get: { 200: SettingsRecord, ...errors(401, 403) },
  update: { 200: SettingsRecord, ...errors(400, 401, 403, 413) },
};
