// Minor units <-> decimal strings for payouts and commission payloads. Small and private on purpose:
// it should give way to src/lib/money.ts once that exists on main.

/** ISO 4217 currencies whose minor unit is not 1/100. Everything else has two decimals. */
export const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

export function exponentOf(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

/** 1250n USD -> "12.50", 1250n JPY -> "1250", 1250n KWD -> "1.250", -250n USD -> "-2.50". */
export function formatMinor(amount: bigint | number, currency: string): string {
  const exp = exponentOf(currency);
  const value = BigInt(amount);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(exp + 1, '0');
  const whole = digits.slice(0, digits.length - exp);
  const text = exp === 0 ? whole : `${whole}.${digits.slice(digits.length - exp)}`;
  return negative ? `-${text}` : text;
}

/**
 * MIN_PAYOUT (major units, e.g. "50" or "12.5") as minor units of `currency`, rounded up: a sum
 * "reaches" 12.5 JPY only at 13 yen.
 */
export function majorToMinorCeil(major: string, currency: string): bigint {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(major);
  if (!match) throw new Error(`not a decimal amount: ${major}`);
  const exp = exponentOf(currency);
  const fraction = match[2] ?? '';
  const kept = fraction.slice(0, exp).padEnd(exp, '0');
  const dropped = fraction.slice(exp);
  const minor = BigInt(match[1]! + kept);
  return /[1-9]/.test(dropped) ? minor + 1n : minor;
}

/** The exceptions as two parallel arrays, for joining in SQL (`unnest(codes, exps)`). */
export function exponentArrays(): { codes: string[]; exps: number[] } {
  const entries = Object.entries(EXPONENTS);
  return { codes: entries.map(([c]) => c), exps: entries.map(([, e]) => e) };
}
