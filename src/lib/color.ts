// Colour arithmetic of the branded surfaces (pages, QR codes): WCAG contrast, and a colour darkened
// until it reads on white.

export type Rgb = [number, number, number];

export const parseHex = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
export const toHex = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

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

export const WHITE: Rgb = [255, 255, 255];

/** `rgb` darkened in 5% steps until it has at least `ratio` contrast against every colour of `on`. */
export function darkenUntil(rgb: Rgb, on: Rgb[], ratio: number): Rgb {
  let out = rgb;
  for (let i = 0; i < 100 && on.some((bg) => contrast(out, bg) < ratio); i++) out = out.map((v) => v * 0.95) as Rgb;
  return out;
}
