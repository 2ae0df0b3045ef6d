// One source, two parts: a template describes its body as blocks, and this file writes them both as
// HTML (escaped, inline styles: mail clients ignore stylesheets) and as plain text.

/** The program's branding as every email shows it. */
export type Brand = {
  programName: string;
  logoUrl: string | null;
  /** `#rrggbb`, or null for the built-in accent. */
  brandColor: string | null;
  supportEmail: string | null;
  baseUrl: string;
};

export type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'p'; text: string }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'facts'; items: [label: string, value: string][] }
  | { kind: 'table'; head: string[]; rows: string[][]; numeric?: number[] };

export const heading = (text: string): Block => ({ kind: 'heading', text });
export const p = (text: string): Block => ({ kind: 'p', text });
export const button = (label: string, url: string): Block => ({ kind: 'button', label, url });
export const facts = (items: [string, string][]): Block => ({ kind: 'facts', items });
export const table = (head: string[], rows: string[][], numeric: number[] = []): Block => ({ kind: 'table', head, rows, numeric });

export type Rendered = { subject: string; text: string; html: string };

/** What the footer offers: the unsubscribe link of the email's kind, when it has one. */
export type Footer = { unsubscribeUrl?: string; unsubscribeLabel?: string };

export const DEFAULT_ACCENT = '#1d4ed8';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Relative luminance (WCAG) of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Black or white, whichever reads better on `background` (the brand colour may be light or dark). */
export function textOn(background: string): '#ffffff' | '#111111' {
  const l = luminance(background);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.05) ? '#ffffff' : '#111111';
}

export function renderEmail(subject: string, blocks: Block[], brand: Brand, footer: Footer = {}): Rendered {
  return { subject, text: renderText(blocks, brand, footer), html: renderHtml(subject, blocks, brand, footer) };
}

function renderText(blocks: Block[], brand: Brand, footer: Footer): string {
  const parts = [brand.programName];
  for (const block of blocks) {
    switch (block.kind) {
      case 'heading':
        parts.push(`${block.text}\n${'='.repeat(Math.min(block.text.length, 60))}`);
        break;
      case 'p':
        parts.push(block.text);
        break;
      case 'button':
        // the link alone on its line: clients make it clickable, people copy it whole
        parts.push(`${block.label}:\n${block.url}`);
        break;
      case 'facts':
        parts.push(block.items.map(([label, value]) => `${label}: ${value}`).join('\n'));
        break;
      case 'table': {
        const widths = block.head.map((h, i) => Math.max(h.length, ...block.rows.map((r) => (r[i] ?? '').length)));
        const line = (cells: string[]) =>
          cells.map((c, i) => (block.numeric?.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
        parts.push([line(block.head), widths.map((w) => '-'.repeat(w)).join('  '), ...block.rows.map(line)].join('\n'));
        break;
      }
    }
  }
  const foot: string[] = [];
  if (brand.supportEmail) foot.push(`Questions? Write to ${brand.supportEmail}.`);
  if (footer.unsubscribeUrl) foot.push(`${footer.unsubscribeLabel ?? 'Unsubscribe'}:\n${footer.unsubscribeUrl}`);
  foot.push(`${brand.programName}, ${brand.baseUrl}`);
  return `${parts.join('\n\n')}\n\n--\n${foot.join('\n\n')}\n`;
}

function renderHtml(subject: string, blocks: Block[], brand: Brand, footer: Footer): string {
  const accent = brand.brandColor ?? DEFAULT_ACCENT;
  const onAccent = textOn(accent);
  const e = escapeHtml;
  const body = blocks
    .map((block) => {
      switch (block.kind) {
        case 'heading':
          return `<h1 style="margin:0 0 16px;font-size:20px;line-height:1.3;color:#111111">${e(block.text)}</h1>`;
        case 'p':
          return `<p style="margin:0 0 16px">${e(block.text)}</p>`;
        case 'button':
          return `<p style="margin:24px 0"><a href="${e(block.url)}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:${accent};color:${onAccent};text-decoration:none;font-weight:600">${e(block.label)}</a></p>`;
        case 'facts':
          return `<table role="presentation" style="border-collapse:collapse;margin:0 0 16px">${block.items
            .map(([label, value]) => `<tr><td style="padding:4px 16px 4px 0;color:#555555">${e(label)}</td><td style="padding:4px 0;font-weight:600;word-break:break-word;overflow-wrap:anywhere">${e(value)}</td></tr>`)
            .join('')}</table>`;
        case 'table': {
          const align = (i: number) => (block.numeric?.includes(i) ? 'right' : 'left');
          const head = block.head.map((h, i) => `<th style="text-align:${align(i)};padding:6px 8px;border-bottom:2px solid ${accent};${block.numeric?.includes(i) ? 'white-space:nowrap' : 'overflow-wrap:anywhere'}">${e(h)}</th>`).join('');
          const rows = block.rows
            // an amount never breaks across lines; text may wrap anywhere so the table fits a phone
            .map((r) => `<tr>${r.map((c, i) => `<td style="text-align:${align(i)};padding:6px 8px;border-bottom:1px solid #e5e5e5;${block.numeric?.includes(i) ? 'white-space:nowrap' : 'word-break:break-word;overflow-wrap:anywhere'}">${e(c)}</td>`).join('')}</tr>`)
            .join('');
          return `<table style="border-collapse:collapse;width:100%;margin:0 0 16px;font-size:14px"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
        }
      }
    })
    .join('\n');
  const masthead = brand.logoUrl
    ? `<img src="${e(brand.logoUrl)}" alt="${e(brand.programName)}" style="max-height:40px;max-width:200px;vertical-align:middle">`
    : `<span style="font-size:18px;font-weight:700;color:${onAccent}">${e(brand.programName)}</span>`;
  const foot = [
    brand.supportEmail ? `Questions? Write to <a href="mailto:${e(brand.supportEmail)}" style="color:#555555">${e(brand.supportEmail)}</a>.` : '',
    footer.unsubscribeUrl ? `<a href="${e(footer.unsubscribeUrl)}" style="color:#555555">${e(footer.unsubscribeLabel ?? 'Unsubscribe')}</a>` : '',
    `${e(brand.programName)}`,
  ]
    .filter(Boolean)
    .map((line) => `<p style="margin:0 0 8px">${line}</p>`)
    .join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${e(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#222222;font-size:15px;line-height:1.5">
<table role="presentation" width="100%" style="border-collapse:collapse"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" style="max-width:600px;border-collapse:collapse;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="padding:16px 24px;background:${brand.logoUrl ? '#ffffff' : accent};border-bottom:4px solid ${accent}">${masthead}</td></tr>
<tr><td style="padding:24px">
${body}
</td></tr>
<tr><td style="padding:16px 24px;background:#fafafa;color:#555555;font-size:12px">${foot}</td></tr>
</table></td></tr></table>
</body></html>`;
}
