import { describe, expect, test } from 'bun:test';
import {
  apportion,
  exponentOf,
  formatMinor,
  fraction,
  minorToNumber,
  numberText,
  parseMajor,
  percentOf,
  roundHalfEven,
  splitByWeights,
} from '../../src/lib/money';
import { AppError } from '../../src/lib/errors';

describe('round half-even', () => {
  test.each([
    ['2.5 -> 2 (tie to even)', 5n, 2n, 2n],
    ['3.5 -> 4 (tie to even)', 7n, 2n, 4n],
    ['2.4 -> 2', 12n, 5n, 2n],
    ['2.6 -> 3', 13n, 5n, 3n],
    ['0.5 -> 0', 1n, 2n, 0n],
    ['1.5 -> 2', 3n, 2n, 2n],
    ['-2.5 -> -2', -5n, 2n, -2n],
    ['-3.5 -> -4', -7n, 2n, -4n],
    ['exact 4', 8n, 2n, 4n],
  ])('%s', (_label, num, den, expected) => {
    expect(roundHalfEven(num, den)).toBe(expected);
  });
});

describe('percent of an amount', () => {
  test.each([
    ['10% of 12.50 USD', 1250n, 10, 125n],
    ['20% of 0.05 = 0.01 exactly', 5n, 20, 1n],
    ['12.5% of 0.20 = 0.025 -> 0.02 (tie to even)', 20n, 12.5, 2n],
    ['12.5% of 0.60 = 0.075 -> 0.08 (tie to even)', 60n, 12.5, 8n],
    ['33.3333% of 100.00', 10000n, 33.3333, 3333n],
    ['0.0001% of 1,000,000.00', 100000000n, 0.0001, 100n],
    ['100% of 9,999', 9999n, 100, 9999n],
    ['30% of 1,250 JPY = 375', 1250n, 30, 375n],
    ['25% of 1.250 KWD (1250 fils) = 312.5 -> 312', 1250n, 25, 312n],
    ['percent given as text', 1000n, '7.5', 75n],
  ])('%s', (_label, amount, percent, expected) => {
    expect(percentOf(amount, percent)).toBe(expected);
  });
});

describe('major units -> minor units (no floats)', () => {
  test.each([
    ['12.5 USD', 12.5, 'USD', 1250n],
    ['12.50 as text', '12.50', 'USD', 1250n],
    ['trailing zeros beyond the currency are fine: 12.5000', '12.5000', 'USD', 1250n],
    ['0.1 + 0.2 style value 0.3', 0.3, 'USD', 30n],
    ['19.99 USD (a float trap: 19.99*100 = 1998.9999…)', 19.99, 'USD', 1999n],
    ['1.00 as text', '1.00', 'USD', 100n],
    ['JPY 1250', 1250, 'JPY', 1250n],
    ['JPY 1250.0 as text', '1250.0', 'JPY', 1250n],
    ['KWD 1.25', 1.25, 'KWD', 1250n],
    ['KWD 1.255', 1.255, 'KWD', 1255n],
    ['zero', 0, 'EUR', 0n],
    ['large value 1e15 cents', 10000000000000, 'USD', 1000000000000000n],
  ])('%s', (_label, value, currency, expected) => {
    expect(parseMajor(value, currency)).toBe(expected);
  });

  test.each([
    ['three decimals in USD', 12.345, 'USD'],
    ['any decimal in JPY', 12.5, 'JPY'],
    ['four decimals in KWD', 1.2345, 'KWD'],
    ['tiny value written with an exponent', 1e-7, 'USD'],
    ['negative', -1, 'USD'],
    ['not a number', Number.NaN, 'USD'],
    ['infinite', Number.POSITIVE_INFINITY, 'USD'],
    ['beyond 2^53 minor units', 1e20, 'USD'],
    ['text that is not a decimal', '12,50', 'USD'],
  ])('refuses %s with a 400', (_label, value, currency) => {
    let error: unknown;
    try {
      parseMajor(value as number, currency);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_body');
  });

  test('exponent notation is rewritten exactly', () => {
    expect(numberText(1e21)).toBe('1000000000000000000000');
    expect(numberText(1.5e-7)).toBe('0.00000015');
    expect(numberText(12.5)).toBe('12.5');
  });
});

describe('currencies', () => {
  test.each([
    ['USD has 2 decimals', 'USD', 2],
    ['EUR has 2 decimals', 'EUR', 2],
    ['JPY has 0 decimals', 'JPY', 0],
    ['KRW has 0 decimals', 'KRW', 0],
    ['KWD has 3 decimals', 'KWD', 3],
    ['BHD has 3 decimals', 'BHD', 3],
  ])('%s', (_label, code, exponent) => {
    expect(exponentOf(code)).toBe(exponent);
  });

  test.each([['XYZ'], ['usd'], [''], ['US'], ['toString'], ['__proto__']])('unknown currency %p is a 400 invalid_body on the currency field', (code) => {
    let error: unknown;
    try {
      exponentOf(code);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).toBody()).toMatchObject({ code: 'invalid_body', details: [{ field: 'currency' }] });
  });
});

describe('formatting', () => {
  test.each([
    ['USD 1250 -> 12.50', 1250n, 'USD', '12.50'],
    ['USD 5 -> 0.05', 5n, 'USD', '0.05'],
    ['USD 0 -> 0.00', 0n, 'USD', '0.00'],
    ['USD -5 -> -0.05', -5n, 'USD', '-0.05'],
    ['JPY 1250 -> 1250', 1250n, 'JPY', '1250'],
    ['KWD 1250 -> 1.250', 1250n, 'KWD', '1.250'],
    ['KWD 7 -> 0.007', 7n, 'KWD', '0.007'],
    ['beyond 2^53 stays exact', 123456789012345678901n, 'USD', '1234567890123456789.01'],
  ])('%s', (_label, minor, currency, expected) => {
    expect(formatMinor(minor, currency)).toBe(expected);
  });

  test('as a number in major units', () => {
    expect(minorToNumber(1999n, 'USD')).toBe(19.99);
    expect(minorToNumber(1250n, 'JPY')).toBe(1250);
    expect(minorToNumber(1255n, 'KWD')).toBe(1.255);
  });
});

const f = (n: number, d: number) => fraction(n, d);

describe('splitting by exact weights', () => {
  test.each([
    ['100 in thirds', 100n, [f(1, 3), f(1, 3), f(1, 3)], [34n, 33n, 33n]],
    ['1 cent in halves: earlier position wins the tie', 1n, [f(1, 2), f(1, 2)], [1n, 0n]],
    ['1000 by position 2/5, 1/5, 2/5', 1000n, [f(2, 5), f(1, 5), f(2, 5)], [400n, 200n, 400n]],
    ['7 by position with 4 touches (2/5, 1/10, 1/10, 2/5)', 7n, [f(2, 5), f(1, 10), f(1, 10), f(2, 5)], [3n, 1n, 0n, 3n]],
    ['largest remainder wins the odd unit', 10n, [f(1, 6), f(1, 3), f(1, 2)], [2n, 3n, 5n]],
    ['one touch takes all', 999n, [f(1, 1)], [999n]],
    ['zero', 0n, [f(1, 3), f(2, 3)], [0n, 0n]],
  ])('%s', (_label, amount, weights, expected) => {
    const parts = splitByWeights(amount, weights);
    expect(parts).toEqual(expected);
    expect(parts.reduce((a, b) => a + b, 0n)).toBe(amount);
  });

  test('parts always add up, for many amounts and touch counts', () => {
    for (let n = 1; n <= 10; n++) {
      const linear = Array.from({ length: n }, () => f(1, n));
      for (const amount of [0n, 1n, 2n, 7n, 99n, 100n, 101n, 12345n, 999999999999n]) {
        const parts = splitByWeights(amount, linear);
        expect(parts.reduce((a, b) => a + b, 0n)).toBe(amount);
        expect(parts.every((p) => p >= 0n)).toBe(true);
      }
    }
  });

  test('apportion rounds the exact total half-even and hands out the rest by remainder', () => {
    // shares 0.5 + 0.5 + 0.5 = 1.5 -> total 2 (half-even), the two earliest get the units
    expect(apportion([f(1, 2), f(1, 2), f(1, 2)])).toEqual([1n, 1n, 0n]);
    // 12.5% of 0.20 split in halves: 1.25 + 1.25 = 2.5 -> 2
    expect(apportion([f(5, 4), f(5, 4)])).toEqual([1n, 1n]);
  });
});
