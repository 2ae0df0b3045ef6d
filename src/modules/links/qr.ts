// QR codes of share links (the `qrcode` package): SVG and PNG, 128-1024 px, black or the program's
// colour (darkened until it keeps 4.5:1 contrast on white, so scanners still read it).
import QRCode from 'qrcode';
import type { Sql } from '../../db';
import { contrast, darkenUntil, parseHex, toHex, WHITE } from '../../lib/color';

export const QR_SIZE = { min: 128, max: 1024, default: 256 } as const;

export type QrFormat = 'svg' | 'png';

/** The share link a QR code is of, and whose it is; null when there is no such link. */
export async function linkForQr(sql: Sql, baseUrl: string, id: string): Promise<{ url: string; slug: string; partnerId: string } | null> {
  const [row] = await sql<{ slug: string; partner_id: string }[]>`select slug, partner_id from links where id = ${id}`;
  return row ? { url: `${baseUrl}/r/${row.slug}`, slug: row.slug, partnerId: row.partner_id } : null;
}

/** The dark colour of the code: `#000000`, or the brand colour made dark enough to scan. */
export function qrColor(brandColor: string | null): string {
  if (!brandColor) return '#000000';
  const rgb = parseHex(brandColor);
  return toHex(contrast(rgb, WHITE) >= 4.5 ? rgb : darkenUntil(rgb, [WHITE], 4.5));
}

/** The code of `text` as SVG (a string) or PNG (bytes), `size` px square with a quiet zone. */
export async function renderQr(text: string, format: QrFormat, size: number, dark: string): Promise<string | Uint8Array<ArrayBuffer>> {
  const options = { errorCorrectionLevel: 'M' as const, margin: 2, width: size, color: { dark: `${dark}ff`, light: '#ffffffff' } };
  if (format === 'svg') return QRCode.toString(text, { ...options, type: 'svg' });
  return new Uint8Array(await QRCode.toBuffer(text, { ...options, type: 'png' }));
}
