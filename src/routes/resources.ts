// API routes of partner resources (served unprefixed and under /v1): upload a file (multipart) or
// write a text or link, list, download, delete. Mounted outside the JSON-only parser of the other
// API routes (app.ts): this instance reads multipart uploads too.
import { Value } from '@sinclair/typebox/value';
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { AppError, invalidField, notFound, type FieldProblem } from '../lib/errors';
import { paginate, readPage } from '../lib/http';
import { isJsonMediaType, parseJsonObject } from '../lib/json-body';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin, ownPartnerId } from '../modules/auth/plugin';
import { CreateResourceRequest, FileAnswer, ListResourcesQuery, ResourceParams, ResourceResponses, TextOrLinkBody, type TextOrLinkInput } from '../modules/resources/model';
import { createFileResource, createTextOrLink, deleteResource, findFile, listResources, partnerLinks } from '../modules/resources/service';

/** The body parser of this instance: a multipart form as FormData, else the JSON API's one parser. */
async function parseResourceBody(context: { request: Request; contentType?: string }): Promise<unknown> {
  const media = (context.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (media === 'multipart/form-data') {
    try {
      return await context.request.formData();
    } catch {
      throw new AppError('invalid_body', 'the multipart/form-data body cannot be read');
    }
  }
  if (media !== '' && !isJsonMediaType(media)) {
    throw new AppError('unsupported_media_type', 'send a file as multipart/form-data, or a text or link as application/json');
  }
  return parseJsonObject(context);
}

/** A text or link body, checked against its schema: a 400 naming each wrong field. */
function textOrLink(body: unknown): TextOrLinkInput {
  const value = body as Record<string, unknown>;
  if (value.kind !== 'text' && value.kind !== 'link') {
    throw invalidField('kind', value.kind === 'file' ? 'a file is uploaded as multipart/form-data (field "file")' : 'must be "text" or "link" (or upload a file as multipart/form-data)');
  }
  const schema = TextOrLinkBody.anyOf[value.kind === 'text' ? 0 : 1];
  const problems = new Map<string, string>();
  for (const error of Value.Errors(schema, value)) {
    const field = error.path.replace(/^\//, '') || '(body)';
    if (!problems.has(field)) problems.set(field, error.schema.pattern === '\\S' || (typeof error.value === 'string' && error.value.trim() === '') ? 'must not be empty' : error.message);
  }
  if (problems.size > 0) {
    const details: FieldProblem[] = [...problems].map(([field, message]) => ({ field, message }));
    throw new AppError('invalid_body', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  }
  return value as TextOrLinkInput;
}

/** The fields of a multipart upload: the file, and an optional title and campaign. */
async function fileUpload(form: FormData) {
  const file = form.get('file');
  if (!(file instanceof Blob)) throw invalidField('file', 'required: the file, as a multipart/form-data field');
  const fileName = file instanceof File ? file.name : 'file';
  const given = form.get('title');
  if (given !== null && typeof given !== 'string') throw invalidField('title', 'must be text');
  if (given !== null && given.trim() === '') throw invalidField('title', 'must not be empty');
  const title = (given ?? fileName).trim().slice(0, 200) || 'file';
  const campaign = form.get('campaignId');
  if (campaign !== null && (typeof campaign !== 'string' || campaign.length === 0 || campaign.length > 64)) throw invalidField('campaignId', 'must be a campaign id');
  return { file, fileName, title, campaignId: campaign ?? undefined };
}

/** How a download names its file: shown in place for images, saved for the rest. */
function disposition(contentType: string, fileName: string, download: boolean): string {
  const kind = download || !contentType.startsWith('image/') ? 'attachment' : 'inline';
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/[\\"]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function resourceRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Resources'] })
    .use(authPlugin(ctx))
    .onParse(parseResourceBody)
    .onBeforeHandle(rejectUnstorable)
    .post(
      '/resources',
      async ({ body, set }) => {
        set.status = 201;
        if (body instanceof FormData) {
          const upload = await fileUpload(body);
          const bytes = new Uint8Array(await upload.file.arrayBuffer());
          return createFileResource(ctx.sql, ctx.resourceStores, { bytes, fileName: upload.fileName, title: upload.title, campaignId: upload.campaignId });
        }
        return createTextOrLink(ctx.sql, textOrLink(body));
      },
      {
        auth: 'campaigns:write',
        response: ResourceResponses.create,
        detail: {
          summary: 'Add a resource: upload a file (multipart) or write a text or link (JSON)',
          description:
            'A file (multipart/form-data field `file`, at most 10 MiB) must be png, jpeg, gif, webp, pdf or zip by its content (SVG is refused: 415); larger is a 413. A text\'s `{{link}}` becomes each partner\'s own link when they read it. With `campaignId` only that campaign\'s partners see it; without, everyone.',
          requestBody: CreateResourceRequest,
        },
      },
    )
    .get(
      '/resources',
      async ({ query, principal }) => {
        const page = readPage(query, 'resource');
        const partnerId = ownPartnerId(principal);
        const links = partnerId !== undefined ? await partnerLinks(ctx.sql, ctx.config.baseUrl, partnerId) : undefined;
        const rows = await listResources(ctx.sql, { ...page, campaignId: query.campaignId, kind: query.kind, partnerId }, links);
        const { items, nextCursor } = paginate(rows, page.limit);
        return { resources: items, nextCursor };
      },
      // partners see what is for everyone and for their campaigns, their link filled in
      { auth: { scope: 'campaigns:read', partner: true }, query: ListResourcesQuery, response: ResourceResponses.list, detail: { summary: 'List resources, newest first' } },
    )
    .get(
      '/resources/:id/file',
      async ({ params, principal, request }) => {
        const file = await findFile(ctx.sql, params.id, ownPartnerId(principal));
        if (!file) throw notFound('resource file');
        const etag = `"${file.sha256}"`;
        const headers: Record<string, string> = {
          etag,
          'cache-control': 'private, max-age=86400',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
        };
        const match = request.headers.get('if-none-match');
        if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
          return new Response(null, { status: 304, headers });
        }
        const stream = await ctx.resourceStores.of(file.storage)?.open(file.key, file.size);
        if (!stream) throw new AppError('unavailable', 'the file is not in the resource store');
        const download = new URL(request.url).searchParams.has('download');
        return new Response(stream, {
          headers: { ...headers, 'content-type': file.contentType, 'content-disposition': disposition(file.contentType, file.fileName, download) },
        });
      },
      // a Response (a stream) passes by the answer schemas: its answers are written out by hand
      { auth: { scope: 'campaigns:read', partner: true }, params: ResourceParams, detail: { summary: "Download a resource's file", responses: FileAnswer } },
    )
    .delete(
      '/resources/:id',
      ({ params }) => deleteResource(ctx.sql, ctx.resourceStores, params.id),
      { auth: 'campaigns:write', params: ResourceParams, response: ResourceResponses.remove, detail: { summary: 'Delete a resource and its file' } },
    );
}
