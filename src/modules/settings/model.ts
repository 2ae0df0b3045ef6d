// Request and response schemas of the program-wide settings API.
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { errors, Timestamp } from '../../lib/http';
import { ApplicationQuestionsField, ApplicationQuestionsSchema } from '../../lib/questions';

// t.Union of literals, not t.UnionEnum: Elysia fills an absent optional UnionEnum with its first
// value; and the document generator drops null from the enum of a t.Nullable(t.UnionEnum(...))
const Model = t.Union([t.Literal('last_click'), t.Literal('linear'), t.Literal('position')]);

// Branding (DESIGN.md "Partner communications"): every email and the partner-facing pages show it.
const ProgramName = t.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'The program\'s name, as emails and pages show it.', examples: ['Acme partners'] });
const LogoUrl = t.String({ maxLength: 2000, pattern: '^https://[^\\s]+$', description: 'An https address of the logo image.', examples: ['https://acme.example/logo.png'] });
const BrandColor = t.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'The accent colour, `#rrggbb` (stored in lower case).', examples: ['#0f766e'] });
const SupportEmail = t.String({ format: 'email', maxLength: 254, description: 'Where partners write with questions; shown in every email.' });

// Tax forms and self-billing invoices (docs/tax.md)
const TaxForms = t.Union([t.Literal('off'), t.Literal('collect'), t.Literal('require')], {
  description: 'off: no tax forms; collect: the portal asks partners for one; require: payouts of partners without a valid form are held. collect and require need ENCRYPTION_KEY.',
});
const LegalName = t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: "The program's legal (company) name, printed on self-billing invoices." });
const LegalAddress = t.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: "The program's postal address, as lines, printed on self-billing invoices." });
export const VatId = t.String({ pattern: '^[A-Z]{2}[A-Za-z0-9+*.]{2,13}$', description: 'A VAT id, its country prefix first (`DE123456789`).', examples: ['DE123456789'] });

export const UpdateSettingsBody = t.Object(
  {
    attributionModel: t.Optional(Model),
    attributionWindowDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650 })),
    programName: t.Optional(ProgramName),
    logoUrl: t.Optional(t.Union([LogoUrl, t.Null()], { description: 'An https address of the logo image; null: the name stands alone.' })),
    brandColor: t.Optional(t.Union([BrandColor, t.Null()], { description: '`#rrggbb`; null: the built-in accent.' })),
    supportEmail: t.Optional(t.Union([SupportEmail, t.Null()], { description: 'null: emails name no support address.' })),
    partnerSignup: t.Optional(
      t.Union([t.Literal('open'), t.Literal('closed'), t.Literal('review'), t.Null()], {
        description: 'open: partners sign themselves up; review: self-signups wait as applications an admin approves; null: follow PARTNER_SIGNUP.',
      }),
    ),
    applicationQuestions: t.Optional(ApplicationQuestionsField),
    taxForms: t.Optional(TaxForms),
    legalName: t.Optional(t.Union([LegalName, t.Null()])),
    legalAddress: t.Optional(t.Union([LegalAddress, t.Null()])),
    vatId: t.Optional(t.Union([VatId, t.Null()])),
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
  programName: ProgramName,
  logoUrl: t.Union([LogoUrl, t.Null()]),
  brandColor: t.Union([BrandColor, t.Null()]),
  supportEmail: t.Union([SupportEmail, t.Null()]),
  applicationQuestions: ApplicationQuestionsSchema,
  taxForms: TaxForms,
  legalName: t.Union([LegalName, t.Null()]),
  legalAddress: t.Union([LegalAddress, t.Null()]),
  vatId: t.Union([VatId, t.Null()]),
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
