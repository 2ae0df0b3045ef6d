// IP addresses in one spelling: node:net decides what an address is, the WHATWG URL parser writes
// IPv6 in its canonical form (lower case, zeros compressed), and an IPv4-mapped IPv6 address
// (::ffff:1.2.3.4, as a dual-stack socket shows IPv4 visitors) is the IPv4 address it carries.
import { isIP } from 'node:net';

/** The canonical form of an IPv4 or IPv6 address, or null when `text` is not one. */
export function canonicalIp(text: string): string | null {
  const value = text.trim();
  const family = isIP(value);
  if (family === 4) return value;
  if (family !== 6 || value.includes('%')) return null;
  let host: string;
  try {
    host = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
