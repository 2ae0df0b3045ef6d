// Request and response schemas of the resources API (DESIGN.md "Partner enablement").
import { t } from 'elysia';
import { ErrorResponse, errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';

/** The largest file a resource may hold: 10 MiB. */
export const MAX_RESOURCE_BYTES = 10 * 1024 * 1024;

/** The file types a resource may be, told by their content (file-type), never by name. SVG is refused: it can carry script. */
export const RESOURCE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'application/zip'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const RESOURCE_KINDS = ['file', 'text', 'link'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

const Title = t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'What partners see the resource as.', examples: ['Spring banner 728x90'] });
const CampaignId = t.String({ minLength: 1, maxLength: 64, description: 'Only partners of this campaign see it; omitted: everyone.' });

/** The JSON form of POST /v1/resources: a text (approved copy) or a link. */
export const TextOrLinkBody = t.Union([
  t.Object(
    {
      kind: t.Literal('text'),
      title: Title,
      body: t.String({ minLength: 1, maxLength: 20000, pattern: '\\S', description: 'The copy; `{{link}}` becomes each partner\'s own link when a partner reads it.' }),
      campaignId: t.Optional(CampaignId),
    },
    { additionalProperties: false },
  ),
  t.Object(
    {
      kind: t.Literal('link'),
      title: Title,
      url: t.String({ minLength: 8, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$', description: 'An http(s) address (a press kit, a brand page).' }),
      campaignId: t.Optional(CampaignId),
    },
    { additionalProperties: false },
  ),
]);
export type TextOrLinkInput = typeof TextOrLinkBody.static;

/** The multipart form of POST /v1/resources: one file. */
export const FileUploadBody = t.Object({
  file: t.String({ format: 'binary', description: 'png, jpeg, gif, webp, pdf or zip, at most 10 MiB; the type is read from the content.' }),
  title: t.Optional(t.String({ maxLength: 200, description: 'Default: the file name.' })),
  campaignId: t.Optional(CampaignId),
});

export const ListResourcesQuery = t.Object({
  campaignId: t.Optional(t.String({ maxLength: 64, description: 'Only this campaign\'s resources (and none for everyone).' })),
  kind: QueryEnum(RESOURCE_KINDS),
  ...PageQuery,
});

export const ResourceParams = t.Object({ id: t.String({ maxLength: 64 }) });

// ---- answers

export const ResourceRecord = t.Object({
  id: t.String({ examples: ['rsc_01jd8x0000000000000000000a'] }),
  kind: t.UnionEnum(RESOURCE_KINDS),
  title: t.String(),
  campaignId: t.Nullable(t.String(), { description: 'null: for every partner.' }),
  body: t.Nullable(t.String(), { description: "A text's copy; for a partner, `{{link}}` is already their own link." }),
  url: t.Nullable(t.String(), { description: "A link's address." }),
  file: t.Nullable(
    t.Object({
      name: t.String({ examples: ['banner.png'] }),
      contentType: t.UnionEnum(RESOURCE_TYPES),
      size: t.Integer({ description: 'Bytes.' }),
      url: t.String({ description: 'Where to download it (GET, same credentials).', examples: ['/v1/resources/rsc_01jd8x0000000000000000000a/file'] }),
    }),
    { description: "A file's name, type, size and download address." },
  ),
  createdAt: Timestamp,
});
export type ResourceRecord = typeof ResourceRecord.static;

export const ResourceList = listOf('resources', ResourceRecord);

const errorAnswer = { description: ErrorResponse.description, content: { 'application/json': { schema: ErrorResponse } } };

/**
 * POST /v1/resources takes JSON or a multipart upload; the generator sees neither (the route parses
 * its own body), so its request body is written out here.
 */
export const CreateResourceRequest = {
  required: true,
  content: {
    'multipart/form-data': { schema: FileUploadBody },
    'application/json': { schema: TextOrLinkBody },
  },
};

/** The download's answers, written out: the route answers a stream, which the generator cannot see. */
export const FileAnswer = {
  200: {
    description: 'The file, streamed, with its content type, an ETag (its SHA-256) and caching headers.',
    content: Object.fromEntries(RESOURCE_TYPES.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }])),
    headers: {
      etag: { description: 'The SHA-256 of the file, quoted.', schema: { type: 'string' as const } },
      'cache-control': { description: 'private, max-age=86400: a resource file never changes.', schema: { type: 'string' as const } },
    },
  },
  304: { description: 'If-None-Match named the ETag: unchanged.' },
  ...Object.fromEntries([400, 401, 403, 404, 500, 502, 503].map((status) => [status, errorAnswer])),
};

export const ResourceResponses = {
  // 502: S3-compatible storage (S3_URL) refused or failed
  create: { 201: ResourceRecord, ...errors(400, 401, 403, 404, 413, 415, 502) },
  list: { 200: ResourceList, ...errors(400, 401, 403) },
  remove: { 200: ResourceRecord, ...errors(400, 401, 403, 404, 502) },
};
