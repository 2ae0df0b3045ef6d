// Request and response schemas of the links, clicks and identify API.
import { t } from 'elysia';
import { errors, listOf, PageQuery, Timestamp } from '../../lib/http';

const Id = t.String({ minLength: 1, maxLength: 64 });

export const CreateLinkBody = t.Object({
  campaignId: Id,
  partnerId: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'Required unless the caller is a partner (who may only name itself).' })),
  slug: t.Optional(t.String({ maxLength: 200, description: '3-64 characters of A-Z a-z 0-9 _ -; generated when omitted.' })),
  destinationUrl: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "A deep link: where this link lands instead of the campaign's destination. An absolute http(s) URL on the same host as the campaign's destinationUrl (UTM parameters belong in its query).",
    }),
  ),
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
  ip: t.Optional(t.String({ maxLength: 100, description: "The visitor's IPv4 or IPv6 address (stored only hashed, and as its country); secret keys only. Defaults to this request's (or the trusted proxy's X-Forwarded-For entry); a publishable key may not set it." })),
  sub: t.Optional(
    t.String({
      pattern: '^[A-Za-z0-9_.~-]{1,64}$',
      description: "The partner's sub-ID (the share link's `?sub=`): 1-64 letters, digits, _ - . or ~, reported as a breakdown of the partner's channels.",
    }),
  ),
});

export const IdentifyBody = t.Object({
  userId: t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'The id the operator later sends with events.' }),
  clickIds: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: 'clk_ ids the browser collected; may be empty or omitted.' })),
});

// ---- answers

/** A share link: `url` is what the partner shares (`<BASE_URL>/r/<slug>`). */
export const LinkRecord = t.Object({
  id: t.String({ examples: ['lnk_01jd8x0000000000000000000a'] }),
  slug: t.String({ examples: ['spring-sale'] }),
  url: t.String({ examples: ['https://partners.example.com/r/spring-sale'] }),
  partnerId: t.String(),
  campaignId: t.String(),
  destinationUrl: t.Nullable(t.String({ examples: ['https://shop.example/pricing?utm_source=newsletter'] }), {
    description: "The link's own landing page (a deep link); null: the campaign's destinationUrl.",
  }),
  createdAt: Timestamp,
});

export const LinkList = listOf('links', LinkRecord);

export const RecordedClick = t.Object({
  clickId: t.Nullable(t.String({ examples: ['clk_01jd8x0000000000000000000a'] }), { description: 'null when the partner is revoked: no click is recorded.' }),
  destinationUrl: t.String({ description: "Where to send the visitor: the link's destination (its deep link, else the campaign's) with pp_click (none for a revoked partner)." }),
});

export const Identified = t.Object({
  userId: t.String(),
  clickIds: t.Array(t.String(), { description: 'The click ids joined to the user, duplicates removed.' }),
});

/** The answer of each route: its success schema and the errors it can give. */
export const LinkResponses = {
  create: { 201: LinkRecord, ...errors(400, 401, 403, 404, 409, 413) },
  list: { 200: LinkList, ...errors(400, 401, 403) },
  click: { 201: RecordedClick, ...errors(400, 401, 403, 404, 413) },
  identify: { 200: Identified, ...errors(400, 401, 403, 413) },
};
