// The program's branding on the partner-facing pages: its name and logo in the header, and its colour
// as the accent. Pages allow no inline styles (CSP), so the colour comes as a tiny stylesheet whose
// only input is the colour in its address; it is darkened until text keeps 4.5:1 contrast on white and
// on the accent's own tint (links, the current nav item, white text on buttons).
import type { MailSettings } from '../mail/brand';
import { contrast, darkenUntil, parseHex as parse, toHex, WHITE, type Rgb } from '../lib/color';

export type PageBrand = { name: string; logoUrl: string | null; color: string | null };

export function pageBrand(settings: Pick<MailSettings, 'programName' | 'logoUrl' | 'brandColor'>): PageBrand {
  return { name: settings.programName, logoUrl: settings.logoUrl, color: settings.brandColor };
}

export { contrast };

/** The accent's tint: 10% of it on white. */
const tint = (rgb: Rgb): Rgb => rgb.map((v) => 255 - (255 - v) * 0.1) as Rgb;

/** The brand colour, darkened just enough to read on white and on its tint; and that tint. */
export function accentColors(hex: string): { accent: string; accentBg: string } {
  const background = tint(parse(hex));
  return { accent: toHex(darkenUntil(parse(hex), [WHITE, background], 4.5)), accentBg: toHex(background) };
}

export const BRAND_COLOR = /^[0-9a-f]{6}$/;

/** The stylesheet /brand.css?c=<rrggbb> answers. */
export function brandCss(color: string): string {
  const { accent, accentBg } = accentColors(`#${color}`);
  return `:root { --accent: ${accent}; --accent-bg: ${accentBg}; --focus: ${accent}; --c1: ${accent}; }\n.bar { border-top: 4px solid ${accent}; }\n`;
}
