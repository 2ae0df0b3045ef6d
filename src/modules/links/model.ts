// Request schemas of the links, clicks and identify API.
import { t } from 'elysia';
import { PageQuery } from '../../lib/http';

const Id = t.String({ minLength: 1, maxLength: 64 });

export const CreateLinkBody = t.Object({
  campaignId: Id,
  partnerId: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'Required unless the caller is a partner (who may only name itself).' })),
  slug: t.Optional(t.String({ maxLength: 200, description: '3-64 characters of A-Z a-z 0-9 _ -; generated when omitted.' })),
});

export const ListLinksQuery = t.Object({
  partnerId: t.Optional(t.String({ maxLength: 64 })),
  campaignId: t.Optional(t.String({ maxLength: 64 })),
  ...PageQuery,
});

export const RecordClickBody = t.Object({
  slug: t.String({ minLength: 1, maxLength: 200 }),
  userAgent: t.Optional(t.String({ maxLength: 2048, description: "The visitor's; defaults to this request's." })),
  referrer: t.Optional(t.String({ maxLength: 2048, description: "The visitor's; defaults to this request's Referer." })),
  ip: t.Optional(t.String({ maxLength: 100, description: "The visitor's address (stored only hashed); defaults to this request's." })),
});

export const IdentifyBody = t.Object({
  userId: t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'The id the operator later sends with events.' }),
  clickIds: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: 'clk_ ids the browser collected; may be empty or omitted.' })),
});
