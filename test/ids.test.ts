// Ids: the shape, the time they carry, and strict order within one process, also for the many ids
// minted in one millisecond (the redirect mints two a request).
import { expect, test } from 'bun:test';
import { idFloor, idTime, isId, newId } from '../src/lib/ids';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** The 80 random bits of an id, read back as a number. */
const randomPart = (id: string) => [...id.slice(14)].reduce((n, c) => n * 32n + BigInt(ALPHABET.indexOf(c)), 0n);

test('ids minted in one millisecond count up by one in their random part, in order', () => {
  const ids = Array.from({ length: 20_000 }, () => newId('click'));
  let sameMillisecond = 0;
  for (let i = 1; i < ids.length; i++) {
    const [a, b] = [ids[i - 1]!, ids[i]!];
    expect(a < b).toBe(true);
    if (a.slice(0, 14) === b.slice(0, 14)) {
      sameMillisecond++;
      expect(randomPart(b) - randomPart(a)).toBe(1n);
    }
  }
  // 20,000 ids take a few milliseconds: most pairs share one
  expect(sameMillisecond).toBeGreaterThan(10_000);
  for (const id of ids) expect(isId('click', id)).toBe(true);
});

test.each([
  ['the epoch', 0],
  ['a day in 2026', Date.UTC(2026, 10, 24, 5, 30, 1, 234)],
  ['the last millisecond of 48 bits', 2 ** 48 - 1],
])('an id minted at %s carries that time, and so does the floor of that time', (_label, at) => {
  const id = newId('payout', at);
  expect(id).toMatch(/^pay_[0-9a-z]{26}$/);
  expect(idTime(id).getTime()).toBe(at);
  expect(idTime(idFloor('payout', at)).getTime()).toBe(at);
  expect(idFloor('payout', at) <= id).toBe(true);
  // ids for other moments leave the process's sequence alone and still carry their own time
  expect(idTime(newId('payout')).getTime()).toBeGreaterThan(Date.now() - 5_000);
});

test('random parts use all 80 bits: over many ids every character position takes many values', () => {
  const ids = Array.from({ length: 2_000 }, (_, i) => newId('event', i * 1000));
  for (let position = 14; position < 30; position++) {
    expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(16);
  }
});
