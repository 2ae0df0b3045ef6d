// Money without floats: integer minor units (bigint), ISO 4217 exponents, decimal text in and out,
// half-even rounding, exact fractions, and splits whose parts add up to the whole.
import { invalidField } from './errors';

/**
 * ISO 4217 active codes and their minor-unit exponent (decimals). Most currencies have 2; the
 * exceptions are listed first. This is the one currency table of the service.
 */
export const EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  // 0 decimals
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  // 3 decimals
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  // 4 decimals
  CLF: 4, UYW: 4,
  // 2 decimals
  AED: 2, AFN: 2, ALL: 2, AMD: 2, ANG: 2, AOA: 2, ARS: 2, AUD: 2, AWG: 2, AZN: 2, BAM: 2, BBD: 2,
  BDT: 2, BGN: 2, BMD: 2, BND: 2, BOB: 2, BOV: 2, BRL: 2, BSD: 2, BTN: 2, BWP: 2, BYN: 2, BZD: 2,
  CAD: 2, CDF: 2, CHE: 2, CHF: 2, CHW: 2, CNY: 2, COP: 2, COU: 2, CRC: 2, CUP: 2, CVE: 2, CZK: 2,
  DKK: 2, DOP: 2, DZD: 2, EGP: 2, ERN: 2, ETB: 2, EUR: 2, FJD: 2, FKP: 2, GBP: 2, GEL: 2, GHS: 2,
  GIP: 2, GMD: 2, GTQ: 2, GYD: 2, HKD: 2, HNL: 2, HTG: 2, HUF: 2, IDR: 2, ILS: 2, INR: 2, IRR: 2,
  JMD: 2, KES: 2, KGS: 2, KHR: 2, KPW: 2, KYD: 2, KZT: 2, LAK: 2, LBP: 2, LKR: 2, LRD: 2, LSL: 2,
  MAD: 2, MDL: 2, MGA: 2, MKD: 2, MMK: 2, MNT: 2, MOP: 2, MRU: 2, MUR: 2, MVR: 2, MWK: 2, MXN: 2,
  MXV: 2, MYR: 2, MZN: 2, NAD: 2, NGN: 2, NIO: 2, NOK: 2, NPR: 2, NZD: 2, PAB: 2, PEN: 2, PGK: 2,
  PHP: 2, PKR: 2, PLN: 2, QAR: 2, RON: 2, RSD: 2, RUB: 2, SAR: 2, SBD: 2, SCR: 2, SDG: 2, SEK: 2,
  SGD: 2, SHP: 2, SLE: 2, SOS: 2, SRD: 2, SSP: 2, STN: 2, SVC: 2, SYP: 2, SZL: 2, THB: 2, TJS: 2,
  TMT: 2, TOP: 2, TRY: 2, TTD: 2, TWD: 2, TZS: 2, UAH: 2, USD: 2, USN: 2, UYU: 2, UZS: 2, VED: 2,
  VES: 2, WST: 2, XCD: 2, XCG: 2, YER: 2, ZAR: 2, ZMW: 2, ZWG: 2,
});

export function isKnownCurrency(code: string): boolean {
  return Object.hasOwn(EXPONENTS, code);
}

/** The number of decimals of a currency; an unknown code is a 400 naming `field`. */
export function exponentOf(currency: string, field = 'currency'): number {
  if (!isKnownCurrency(currency)) throw invalidField(field, `unknown currency code ${JSON.stringify(currency).slice(0, 40)} (ISO 4217, upper case)`);
  return EXPONENTS[currency]!;
}

/** An exact non-negative fraction num/den (den > 0). */
export type Fraction = { num: bigint; den: bigint };

export const ONE: Fraction = { num: 1n, den: 1n };

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function fraction(num: bigint | number, den: bigint | number): Fraction {
  let n = BigInt(num);
  let d = BigInt(den);
  if (d === 0n) throw new RangeError('fraction with a zero denominator');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { num: n / g, den: d / g };
}

export function toNumber(f: Fraction): number {
  return Number(f.num) / Number(f.den);
}

/** num/den rounded to an integer, ties to the even neighbour. */
export function roundHalfEven(num: bigint, den: bigint): bigint {
  if (den < 0n) [num, den] = [-num, -den];
  let q = num / den;
  let r = num % den;
  if (r < 0n) {
    q -= 1n;
    r += den;
  }
  const twice = 2n * r;
  if (twice > den || (twice === den && q % 2n !== 0n)) q += 1n;
  return q;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Decimal text -> integer scaled by 10^scale, without floats. `strict` refuses more decimals
 * than `scale`; `round` rounds them half-even. Answers null when the text is not a plain decimal.
 */
export function scaleDecimal(text: string, scale: number, mode: 'strict' | 'round' = 'strict'): bigint | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, sign, whole, frac = ''] = m;
  const digits = BigInt(whole! + frac);
  let value: bigint;
  if (frac.length <= scale) {
    value = digits * 10n ** BigInt(scale - frac.length);
  } else {
    if (mode === 'strict' && /[1-9]/.test(frac.slice(scale))) return null;
    value = roundHalfEven(digits, 10n ** BigInt(frac.length - scale));
  }
  return sign === '-' ? -value : value;
}

/** The decimal text of a JS number as it was written (shortest round-trip form), no exponent. */
export function numberText(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // 1e-7 and 1e+21 forms: rewrite them exactly from mantissa and exponent
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!m) return null;
  const [, sign, lead, rest = '', exp] = m;
  const digits = lead! + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Largest amount accepted anywhere, in minor units: keeps every value exact as a JS number too. */
export const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A major-unit amount (a JS number such as 12.5, or its text "12.50") -> minor units of `currency`.
 * More decimals than the currency has, negative or huge values are a 400 naming `field`.
 */
export function parseMajor(value: number | string, currency: string, field = 'value'): bigint {
  const exponent = exponentOf(currency, 'currency');
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  if (text === null) throw invalidField(field, 'must be a finite number');
  const minor = scaleDecimal(text, exponent, 'strict');
  if (minor === null) {
    throw invalidField(field, DECIMAL.test(text) ? `${currency} allows at most ${exponent} decimals` : 'must be a decimal number');
  }
  if (minor < 0n) throw invalidField(field, 'must not be negative');
  if (minor > MAX_MINOR) throw invalidField(field, 'is too large');
  return minor;
}

/** Minor units -> decimal text in major units with exactly the currency's decimals ("12.50", "1250", "1.250"). */
export function formatMinor(minor: bigint, currency: string): string {
  const exponent = EXPONENTS[currency] ?? 2;
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString();
  if (exponent === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(exponent + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
}

/**
 * Decimal text in major units ("50", "12.5") as minor units of `currency`, rounded up: a sum
 * "reaches" a MIN_PAYOUT of 12.5 JPY only at 13 yen.
 */
export function majorToMinorCeil(major: string, currency: string): bigint {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(major);
  if (!match) throw new Error(`not a decimal amount: ${major}`);
  const exponent = exponentOf(currency);
  const fraction = match[2] ?? '';
  const minor = BigInt(match[1]! + fraction.slice(0, exponent).padEnd(exponent, '0'));
  return /[1-9]/.test(fraction.slice(exponent)) ? minor + 1n : minor;
}

/** The currencies whose exponent is not 2, as parallel arrays for SQL (`unnest(codes, exps)`). */
export function exponentArrays(): { codes: string[]; exps: number[] } {
  const entries = Object.entries(EXPONENTS).filter(([, e]) => e !== 2);
  return { codes: entries.map(([c]) => c), exps: entries.map(([, e]) => e) };
}

/** Minor units -> a JS number in major units (for payload fields the SPEC types as number). */
export function minorToNumber(minor: bigint, currency: string): number {
  return Number(formatMinor(minor, currency));
}

/** Percent (up to 4 decimals, e.g. 12.5 or "12.5") as an integer scaled by 10^4: 12.5 -> 125000n. */
export const PERCENT_SCALE = 4;
export function percentUnits(percent: number | string): bigint {
  const text = typeof percent === 'number' ? numberText(percent) : percent;
  const units = text === null ? null : scaleDecimal(text, PERCENT_SCALE, 'round');
  if (units === null || units < 0n) throw new RangeError(`not a percent: ${percent}`);
  return units;
}

/** `percent`% of `amount`, as an exact fraction of minor units (round it once, at the end). */
export function percentShare(amount: bigint, percent: number | string): Fraction {
  return fraction(amount * percentUnits(percent), 100n * 10n ** BigInt(PERCENT_SCALE));
}

/** `percent`% of `amount` in minor units, rounded half-even. */
export function percentOf(amount: bigint, percent: number | string): bigint {
  const share = percentShare(amount, percent);
  return roundHalfEven(share.num, share.den);
}

export function multiply(a: Fraction, b: Fraction): Fraction {
  return fraction(a.num * b.num, a.den * b.den);
}

/**
 * Exact shares -> whole minor units that add up to the rounded (half-even) sum of the shares:
 * each part is its share's floor, and the units left over go to the largest remainders
 * (ties: earlier position first). Deterministic: same shares, same answer.
 */
export function apportion(shares: Fraction[]): bigint[] {
  if (shares.length === 0) return [];
  const den = shares.reduce((acc, s) => (acc / gcd(acc, s.den)) * s.den, 1n);
  const scaled = shares.map((s) => {
    if (s.num < 0n) throw new RangeError('apportion needs non-negative shares');
    return s.num * (den / s.den);
  });
  const total = roundHalfEven(scaled.reduce((a, b) => a + b, 0n), den);
  const parts = scaled.map((s) => s / den);
  let left = total - parts.reduce((a, b) => a + b, 0n);
  const order = scaled
    .map((s, i) => ({ i, rem: s % den }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of order) {
    if (left <= 0n) break;
    parts[i]! += 1n;
    left -= 1n;
  }
  return parts;
}

/** Splits `amount` by exact weights (which should sum to 1): the parts add up exactly to `amount`. */
export function splitByWeights(amount: bigint, weights: Fraction[]): bigint[] {
  return apportion(weights.map((w) => fraction(amount * w.num, w.den)));
}
