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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
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

/** A new id of the given kind, e.g. `newId('partner')` -> `ptn_01jd8x...`. */
export function newId(kind: IdKind): string {
  const now = Math.max(Date.now(), lastTime);
  const random = nextRandom(now);
  let out = '';
  let time = now;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  // 80 random bits -> 16 base32 characters, 5 bits at a time
  let bits = 0;
  let acc = 0;
  for (const byte of random) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return `${ID_PREFIXES[kind]}_${out}`;
}

const ID_PATTERN = /^[a-z]{3}_[0-9a-z]{26}$/;

/** The creation time (epoch ms) an id carries in its first 10 characters; NaN when it has no id shape. */
export function idTime(id: string): number {
  if (!ID_PATTERN.test(id)) return Number.NaN;
  let time = 0;
  for (let i = 4; i < 14; i++) {
    const digit = ALPHABET.indexOf(id[i]!);
    if (digit === -1) return Number.NaN;
    time = time * 32 + digit;
  }
  return time;
}

/** Whether a string has the shape of an id of that kind (not whether it exists). */
export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}
