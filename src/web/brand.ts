// The program's branding on the partner-facing pages: its name and logo in the header, and its colour
// as the accent. Pages allow no inline styles (CSP), so the colour comes as a tiny stylesheet whose
// only input is the colour in its address; it is darkened until text keeps 4.5:1 contrast on white and
// on the accent's own tint (links, the current nav item, white text on buttons).
import type { MailSettings } from '../mail/brand';

export type PageBrand = { name: string; logoUrl: string | null; color: string | null };

export function pageBrand(settings: Pick<MailSettings, 'programName' | 'logoUrl' | 'brandColor'>): PageBrand {
  return { name: settings.programName, logoUrl: settings.logoUrl, color: settings.brandColor };
}

type Rgb = [number, number, number];

const parse = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const toHex = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

function luminance([r, g, b]: Rgb): number {
  const c = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b);
}

export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const WHITE: Rgb = [255, 255, 255];
/** The accent's tint: 10% of it on white. */
const tint = (rgb: Rgb): Rgb => rgb.map((v) => 255 - (255 - v) * 0.1) as Rgb;

/** The brand colour, darkened just enough to read on white and on its tint; and that tint. */
export function accentColors(hex: string): { accent: string; accentBg: string } {
  let rgb = parse(hex);
  const background = tint(rgb);
  for (let i = 0; i < 100 && (contrast(rgb, WHITE) < 4.5 || contrast(rgb, background) < 4.5); i++) {
    rgb = rgb.map((v) => v * 0.95) as Rgb;
  }
  return { accent: toHex(rgb), accentBg: toHex(background) };
}

export const BRAND_COLOR = /^[0-9a-f]{6}$/;

/** The stylesheet /brand.css?c=<rrggbb> answers. */
export function brandCss(color: string): string {
  const { accent, accentBg } = accentColors(`#${color}`);
  return `:root { --accent: ${accent}; --accent-bg: ${accentBg}; --focus: ${accent}; --c1: ${accent}; }\n.bar { border-top: 4px solid ${accent}; }\n`;
}
