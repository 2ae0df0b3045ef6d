// Fraud signals that need no database: the flag names, email and network normal forms, the bot
// test and the in-memory click-flood counter of the redirect (DESIGN.md "Fraud and review").
import { isbot } from 'isbot';
import { sha256 } from '../../lib/crypto';

const HOUR = 3_600_000;

export const FLAGS = ['self_referral', 'click_flood', 'bot_click', 'duplicate_customer', 'review_amount'] as const;
export type Flag = (typeof FLAGS)[number];

/** Why a click is kept but never credited. */
export type UncreditedReason = 'bot_click' | 'click_flood';

/** Providers that ignore dots in the local part, and the domain their other name stands for. */
const DOTLESS_DOMAINS: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/**
 * The form two emails are compared in, as the mail providers deliver them: one mailbox, one form.
 * Trimmed; a quoted local part unquoted (`"ann"@x` is `ann@x`); lower case; a `+tag` dropped
 * everywhere; a trailing dot on the domain dropped (`example.com.`); at Gmail, dots in the local
 * part dropped and googlemail.com read as gmail.com (`A.nn+x@googlemail.com` -> `ann@gmail.com`).
 * Null when it is not an email.
 */
export function normalizeEmail(email: string): string | null {
  const value = email.trim();
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return null;
  let local = value.slice(0, at);
  if (local.length >= 2 && local.startsWith('"') && local.endsWith('"')) local = local.slice(1, -1).replace(/\\(.)/g, '$1');
  local = local.toLowerCase();
  const plus = local.indexOf('+');
  if (plus !== -1) local = local.slice(0, plus);
  let domain = value.slice(at + 1).toLowerCase().replace(/\.+$/, '');
  const dotless = Object.hasOwn(DOTLESS_DOMAINS, domain) ? DOTLESS_DOMAINS[domain] : undefined;
  if (dotless) {
    domain = dotless;
    local = local.replaceAll('.', '');
  }
  return local === '' || domain === '' ? null : `${local}@${domain}`;
}

/**
 * The network an address stands for: an IPv4 address itself, an IPv6 address its /64 (a device
 * rotates its own addresses within one), written in full so every spelling of it is alike.
 * Anything else (a forwarded header may hold anything) is compared as it is, lower case.
 */
export function networkOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  const address = ip.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const halves = address.split('::');
  if (halves.length > 2) return address;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  // an embedded IPv4 address (::ffff:1.2.3.4) takes two groups, all after the /64
  const width = (g: string[]) => g.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const missing = 8 - width(head) - width(tail);
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return address;
  const all = [...head, ...Array<string>(missing).fill('0'), ...tail];
  const prefix = all.slice(0, 4);
  if (!prefix.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return address;
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** The hash a network is stored as (salted like click IP hashes: for IPv4, the same value). */
export function networkHash(salt: string, ip: string): string {
  return sha256(`${salt}:${networkOf(ip)}`);
}

const BOT_CACHE_MAX = 10_000;
const botCache = new Map<string, boolean>();

/**
 * A user agent that is no browser's: a known bot or crawler (the isbot list), or none at all (an
 * empty or blank User-Agent; every browser sends one). Remembered: agents repeat a lot.
 */
export function isBotAgent(userAgent: string | null): boolean {
  if (!userAgent || userAgent.trim() === '') return true;
  let bot = botCache.get(userAgent);
  if (bot === undefined) {
    bot = isbot(userAgent);
    if (botCache.size >= BOT_CACHE_MAX) botCache.clear();
    botCache.set(userAgent, bot);
  }
  return bot;
}

/**
 * Counts clicks per link and network in the current clock hour, in this process only: the redirect
 * stays free of database round trips. With several replicas each counts the clicks it serves, so a
 * flood spread evenly over n replicas is flagged from n x the limit on. At most `maxKeys` pairs are
 * counted an hour; past that, new pairs are not limited (memory stays bounded under a spray of
 * addresses).
 */
export class FloodCounter {
  private hour = -1;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly maxKeys = 500_000,
  ) {}

  /** Counts a click; true when it is beyond the hour's limit for its link and network. */
  over(linkId: string, ip: string | null, now = Date.now()): boolean {
    if (this.limit <= 0 || !ip) return false;
    const hour = Math.floor(now / HOUR);
    if (hour !== this.hour) {
      this.hour = hour;
      this.counts = new Map();
    }
    const key = `${linkId} ${networkOf(ip)}`;
    const seen = this.counts.get(key);
    if (seen === undefined && this.counts.size >= this.maxKeys) return false;
    const count = (seen ?? 0) + 1;
    this.counts.set(key, count);
    return count > this.limit;
  }
}

/** Why a click does not earn, decided at the redirect; null: it may. */
export function uncreditedReason(flood: FloodCounter, input: { linkId: string; ip: string | null; userAgent: string | null }): UncreditedReason | null {
  // a bot's clicks are not counted towards a flood: they never earn anyway
  if (isBotAgent(input.userAgent)) return 'bot_click';
  return flood.over(input.linkId, input.ip) ? 'click_flood' : null;
}
