// QR codes of share links: GET /v1/links/:id/qr.svg and qr.png (served unprefixed and under /v1).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../context';
import { invalidField, notFound } from '../lib/errors';
import { ErrorResponse, QueryEnum } from '../lib/http';
import type { Principal } from '../modules/auth/scopes';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { linkForQr, QR_SIZE, qrColor, renderQr, type QrFormat } from '../modules/links/qr';
import { getSettings } from '../modules/settings/service';

const QrQuery = t.Object({
  size: t.Optional(t.String({ maxLength: 10, description: `Width and height in px, ${QR_SIZE.min}-${QR_SIZE.max} (default ${QR_SIZE.default}).` })),
  color: QueryEnum(['black', 'brand'], { description: "`brand`: the program's colour (darkened until it scans); default black." }),
  download: t.Optional(t.String({ maxLength: 10, description: 'Present: answered as an attachment to save.' })),
});
const LinkParams = t.Object({ id: t.String({ maxLength: 64 }) });

const MEDIA: Record<QrFormat, string> = { svg: 'image/svg+xml', png: 'image/png' };

function qrAnswers(format: QrFormat) {
  const error = { description: ErrorResponse.description, content: { 'application/json': { schema: ErrorResponse } } };
  return {
    200: { description: `The QR code of the link's share URL as ${format.toUpperCase()}.`, content: { [MEDIA[format]]: { schema: { type: 'string' as const, ...(format === 'png' ? { format: 'binary' } : {}) } } } },
    ...Object.fromEntries([400, 401, 403, 404, 500].map((status) => [status, error])),
  };
}

function readSize(value: string | undefined): number {
  if (value === undefined) return QR_SIZE.default;
  const size = Number(value);
  if (!/^[0-9]{1,4}$/.test(value) || size < QR_SIZE.min || size > QR_SIZE.max) {
    throw invalidField('size', `must be an integer from ${QR_SIZE.min} to ${QR_SIZE.max}`, 'invalid_query');
  }
  return size;
}

export function linkQrRoutes(ctx: AppContext) {
  const qr = async (format: QrFormat, { params, query, principal }: { params: { id: string }; query: typeof QrQuery.static; principal: Principal }) => {
    const size = readSize(query.size);
    const link = await linkForQr(ctx.sql, ctx.config.baseUrl, params.id);
    if (!link) throw notFound('link');
    requirePartner(principal, link.partnerId);
    const dark = query.color === 'brand' ? qrColor((await getSettings(ctx.sql)).brandColor) : '#000000';
    const body = await renderQr(link.url, format, size, dark);
    const kind = query.download !== undefined ? 'attachment' : 'inline';
    return new Response(body, {
      headers: {
        'content-type': format === 'svg' ? 'image/svg+xml; charset=utf-8' : 'image/png',
        'content-disposition': `${kind}; filename="${link.slug}-qr.${format}"`,
        'cache-control': 'private, max-age=3600',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      },
    });
  };
  // there is no links:read scope: links are partner data, read with partners:read
  const rule = { scope: 'partners:read', partner: true } as const;
  return new Elysia({ tags: ['Links and clicks'] })
    .use(authPlugin(ctx))
    .get('/links/:id/qr.svg', (c) => qr('svg', c), { auth: rule, params: LinkParams, query: QrQuery, detail: { summary: "A link's QR code as SVG", responses: qrAnswers('svg') } })
    .get('/links/:id/qr.png', (c) => qr('png', c), { auth: rule, params: LinkParams, query: QrQuery, detail: { summary: "A link's QR code as PNG", responses: qrAnswers('png') } });
}
