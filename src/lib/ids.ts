// Prefixed, time-sortable, URL-safe identifiers: `<prefix>_<26 chars>` (48-bit ms time + 80 random bits,
// Crockford base32, lower case). Ids made in one process are strictly increasing, so "newest first"
// is simply "id descending" and an id works as a pagination cursor.

export const ID_PREFIXES = {
  partner: 'ptn',
  campaign: 'cmp',
  link: 'lnk',
  click: 'clk',
  event: 'evt',
  attribution: 'att',
  commission: 'com',
  payout: 'pay',
  endpoint: 'whe',
  apiKey: 'key',
  session: 'ses',
  magicLink: 'mgl',
  promotionCode: 'pcd',
  email: 'eml',
  group: 'grp',
  resource: 'rsc',
  audit: 'aud',
  teamMember: 'mbr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const ID_PATTERN = /^[a-z]{3}_[0-9a-z]{26}$/;
let lastTime = 0;
const lastRandom = new Uint8Array(10);

function nextRandom(now: number): Uint8Array {
  if (now > lastTime) {
    lastTime = now;
    crypto.getRandomValues(lastRandom);
    lastRandom[0]! &= 0x7f; // headroom so incrementing within one millisecond never wraps
    return lastRandom;
  }
  for (let i = lastRandom.length - 1; i >= 0; i--) {
    if (lastRandom[i] === 0xff) {
      lastRandom[i] = 0;
    } else {
      lastRandom[i]!++;
      break;
    }
  }
  return lastRandom;
}

/**
 * A new id of the given kind, e.g. `newId('partner')` -> `ptn_01jd8x...`. Its time is also the row's
 * created_at (the database derives that column from the id, migrations/0013), so `at` mints an id
 * for another moment (rows dated in the past, e.g. by tests); such an id takes fresh random bits
 * and leaves this process's sequence alone.
 */
export function newId(kind: IdKind, at?: Date | number): string {
  if (at !== undefined) {
    const random = crypto.getRandomValues(new Uint8Array(10));
    return `${ID_PREFIXES[kind]}_${encodeTime(Number(at))}${encodeRandom(random)}`;
  }
  const now = Math.max(Date.now(), lastTime);
  return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(nextRandom(now))}`;
}

/** The moment an id was made: its 48-bit millisecond time (the created_at of its row). */
export function idTime(id: string): Date {
  // an Invalid Date (NaN time) for a string without the shape of an id: callers get it from clients
  if (!ID_PATTERN.test(id)) return new Date(Number.NaN);
  let time = 0;
  for (const char of id.slice(4, 14)) time = time * 32 + ALPHABET.indexOf(char);
  return new Date(time);
}

function encodeTime(ms: number): string {
  // ids made in the same millisecond share this part (thousands of clicks a second): encode it once
  if (ms === encodedTime.ms) return encodedTime.text;
  let out = '';
  let time = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  encodedTime.ms = ms;
  encodedTime.text = out;
  return out;
}
const encodedTime = { ms: -1, text: '' };

/** Every 10-bit value as its two base32 characters. */
const PAIRS = Array.from({ length: 1024 }, (_, n) => ALPHABET[n >> 5]! + ALPHABET[n & 31]!);

/** 80 random bits -> 16 base32 characters: four 20-bit groups of four characters, two per lookup. */
function encodeRandom(r: Uint8Array): string {
  const a = (r[0]! << 12) | (r[1]! << 4) | (r[2]! >> 4);
  const b = ((r[2]! & 15) << 16) | (r[3]! << 8) | r[4]!;
  const c = (r[5]! << 12) | (r[6]! << 4) | (r[7]! >> 4);
  const d = ((r[7]! & 15) << 16) | (r[8]! << 8) | r[9]!;
  return PAIRS[a >> 10]! + PAIRS[a & 1023]! + PAIRS[b >> 10]! + PAIRS[b & 1023]! + PAIRS[c >> 10]! + PAIRS[c & 1023]! + PAIRS[d >> 10]! + PAIRS[d & 1023]!;
}

/** Whether a string has the shape of an id of that kind (not whether it exists). */
export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}

/**
 * The smallest id of that kind minted at `at`: `id >= idFloor(kind, t)` is `created_at >= t` for
 * the tables whose created_at comes from the id (migrations/0013), and it can use an index that
 * starts with (…, id), where created_at has none (reports' time ranges).
 */
export function idFloor(kind: IdKind, at: Date | number): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(Math.max(0, Number(at)))}${'0'.repeat(16)}`;
}
