// Minor units as decimal strings, in TypeScript and in SQL (set-based payloads), and MIN_PAYOUT per currency.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exponentOf, formatMinor, majorToMinorCeil } from '../../src/lib/money';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const formats: [bigint, string, string][] = [
  [1250n, 'USD', '12.50'],
  [5n, 'USD', '0.05'],
  [0n, 'USD', '0.00'],
  [-250n, 'USD', '-2.50'],
  [1250n, 'JPY', '1250'],
  [0n, 'JPY', '0'],
  [1250n, 'KWD', '1.250'],
  [7n, 'KWD', '0.007'],
  [12345n, 'CLF', '1.2345'],
  [9007199254740993n, 'EUR', '90071992547409.93'],
];

describe('formatMinor', () => {
  for (const [amount, currency, text] of formats) {
    test(`${amount} ${currency} -> ${text}`, async () => {
      expect(formatMinor(amount, currency)).toBe(text);
      const [row] = await svc.sql`select partnerd_format_minor(${amount}::bigint, ${exponentOf(currency)}) as text`;
      expect(row!.text).toBe(text);
    });
  }
});

describe('MIN_PAYOUT in minor units (rounded up)', () => {
  const cases: [string, string, bigint][] = [
    ['0', 'USD', 0n],
    ['50', 'USD', 5000n],
    ['12.5', 'USD', 1250n],
    ['12.505', 'USD', 1251n],
    ['12.500', 'USD', 1250n],
    ['50', 'JPY', 50n],
    ['12.5', 'JPY', 13n],
    ['1.25', 'KWD', 1250n],
    ['0.001', 'KWD', 1n],
  ];
  for (const [major, currency, minor] of cases) {
    test(`${major} ${currency} -> ${minor}`, () => expect(majorToMinorCeil(major, currency)).toBe(minor));
  }
});
