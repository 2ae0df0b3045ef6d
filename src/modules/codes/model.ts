// Request and response schemas of the promotion code API.
import { t } from 'elysia';
import { errors, listOf, PageQuery, Timestamp } from '../../lib/http';

const Id = t.String({ minLength: 1, maxLength: 64 });

export const CreateCodeBody = t.Object({
  // the characters and length are checked in service.ts (codeProblem), which says what is wrong in words
  code: t.String({ maxLength: 200, description: '3-40 characters of A-Z a-z 0-9 _ -; unique ignoring case; stored as typed.', examples: ['PODCAST20'] }),
  partnerId: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'Required unless the caller is a partner (who may only name itself).' })),
  campaignId: Id,
});

export const UpdateCodeBody = t.Object({
  archived: t.Boolean({ description: 'true archives the code (it stops crediting), false brings it back.' }),
});

export const ListCodesQuery = t.Object({
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  ...PageQuery,
});

export const CodeParams = t.Object({ id: t.String({ maxLength: 64 }) });

// ---- answers

/** A promotion code: customers type it at checkout and its partner is credited, no click needed. */
export const CodeRecord = t.Object({
  id: t.String({ examples: ['pcd_01jd8x0000000000000000000a'] }),
  code: t.String({ examples: ['PODCAST20'], description: 'As typed when created; matched ignoring case.' }),
  partnerId: t.String(),
  campaignId: t.String(),
  stripePromotionCodeId: t.Nullable(t.String({ examples: ['promo_1Q2w3E4r5T6y7U8i'] }), {
    description: "The matching Stripe promotion code, when the code was synced to Stripe (STRIPE_SECRET_KEY and the campaign's stripeCouponId).",
  }),
  createdAt: Timestamp,
  archivedAt: t.Nullable(Timestamp, { description: 'Set while the code is archived: it credits nobody.' }),
});

export const CodeList = listOf('codes', CodeRecord);

export const CodeResponses = {
  create: { 201: CodeRecord, ...errors(400, 401, 403, 404, 409, 413, 502) },
  list: { 200: CodeList, ...errors(400, 401, 403) },
  get: { 200: CodeRecord, ...errors(400, 401, 403, 404) },
  update: { 200: CodeRecord, ...errors(400, 401, 403, 404, 413, 502) },
};
