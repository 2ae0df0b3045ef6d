// Request and response schemas of the campaign API.
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';
import { Rules } from './rules';

const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const DestinationUrl = t.String({ minLength: 8, maxLength: 2048, description: 'http(s) address share links land on.' });
// bounded loosely: the service names an unknown code ("DOGE") as unknown, not as too long
const Currency = t.String({ minLength: 1, maxLength: 10, description: 'ISO 4217 code, e.g. USD. Fixed once the campaign has commissions (409).' });
const HoldbackDays = t.Nullable(t.Integer({ minimum: 0, maximum: 3650, description: 'null: HOLDBACK_DAYS.' }));
const StripeCouponId = t.Nullable(
  t.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z0-9_-]+$',
    description: "The Stripe coupon this campaign's promotion codes are created on when STRIPE_SECRET_KEY is set; null: codes are not synced to Stripe.",
  }),
);

const RecruiterPercent = t.Nullable(
  t.Number({
    exclusiveMinimum: 0,
    maximum: 100,
    description: 'Percent (up to 4 decimals) of each commission a recruit accrues in this campaign that its recruiter (referredBy) earns as a recruit_override commission; null: off.',
  }),
);

export const CreateCampaignBody = t.Object({
  name: Name,
  destinationUrl: DestinationUrl,
  currency: Currency,
  holdbackDays: t.Optional(HoldbackDays),
  rules: t.Optional(Rules),
  stripeCouponId: t.Optional(StripeCouponId),
  recruiterPercent: t.Optional(RecruiterPercent),
});

export const UpdateCampaignBody = t.Object({
  name: t.Optional(Name),
  destinationUrl: t.Optional(DestinationUrl),
  currency: t.Optional(Currency),
  holdbackDays: t.Optional(HoldbackDays),
  rules: t.Optional(Rules),
  stripeCouponId: t.Optional(StripeCouponId),
  recruiterPercent: t.Optional(RecruiterPercent),
  archived: t.Optional(t.Boolean({ description: 'true archives, false unarchives.' })),
});

export const ListCampaignsQuery = t.Object({
  archived: QueryEnum(['true', 'false'], { description: 'Only archived (true) or only live (false) campaigns.' }),
  ...PageQuery,
});

export const CampaignParams = t.Object({ id: t.String({ maxLength: 64 }) });

// ---- answers

/** A campaign (program): where its share links land and what it pays. */
export const CampaignRecord = t.Object({
  id: t.String({ examples: ['cmp_01jd8x0000000000000000000a'] }),
  name: t.String(),
  destinationUrl: t.String(),
  currency: t.String({ examples: ['USD'] }),
  // TypeBox's integer: Elysia's t.Integer also admits numeric strings (a request coercion)
  holdbackDays: t.Nullable(Type.Integer({ minimum: 0, description: 'null: HOLDBACK_DAYS applies.' })),
  rules: Rules,
  stripeCouponId: t.Nullable(t.String(), { description: "The Stripe coupon new promotion codes of this campaign are created on; null: none." }),
  recruiterPercent: t.Nullable(t.Number({ description: 'Percent of each recruit commission its recruiter earns (recruit_override); null: off.' })),
  createdAt: Timestamp,
  archivedAt: t.Nullable(Timestamp),
});

export const CampaignList = listOf('campaigns', CampaignRecord);

export const PreviewBody = t.Object({
  rules: Rules,
  days: t.Integer({ minimum: 1, maximum: 365, description: 'How many days back to replay (1-365).' }),
});

const Money = t.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'Decimal string in major units of the campaign currency.', examples: ['12.50'] });
const Comparison = { current: Money, preview: Money, difference: Money };

/** What the draft rules would have paid on the campaign's recent events, next to what they paid. */
export const PreviewAnswer = t.Object({
  currency: t.String({ examples: ['USD'] }),
  days: t.Integer(),
  partners: t.Array(t.Object({ partnerId: t.String(), ...Comparison }), { description: 'Every partner that earned, or would earn, on those events.' }),
  total: t.Object(Comparison),
});

/** The answer of each campaign route: its success schema and the errors it can give. */
export const CampaignResponses = {
  create: { 201: CampaignRecord, ...errors(400, 401, 403, 413) },
  list: { 200: CampaignList, ...errors(400, 401, 403) },
  get: { 200: CampaignRecord, ...errors(400, 401, 403, 404) },
  // 409: a currency change once the campaign has commissions
  update: { 200: CampaignRecord, ...errors(400, 401, 403, 404, 409, 413) },
  preview: { 200: PreviewAnswer, ...errors(400, 401, 403, 404, 413) },
};
