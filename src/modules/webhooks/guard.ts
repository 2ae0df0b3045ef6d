// Outbound safety (SSRF): subscriber URLs must be HTTPS and must not reach private, loopback,
// link-local, metadata or otherwise special addresses, unless WEBHOOK_ALLOW_HTTP /
// WEBHOOK_ALLOW_PRIVATE say so. The check runs on the address a name resolves to at send time,
// and the request then connects to exactly that address (the name is resolved once), so a DNS
// answer that changes between check and connect (rebinding) cannot get through.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type GuardOptions = { allowHttp: boolean; allowPrivate: boolean };

/** Why an address is refused: `private` ones pass with WEBHOOK_ALLOW_PRIVATE, the rest never do. */
export type AddressClass = 'public' | 'private' | 'forbidden';

// Cloud metadata services: never a webhook target, whatever the flags say.
const METADATA = new BlockList();
METADATA.addAddress('169.254.169.254', 'ipv4');
METADATA.addAddress('169.254.170.2', 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');

// Not a host anyone should post to: unspecified, multicast, broadcast, reserved, documentation.
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['ff00::', 8],
] as const) FORBIDDEN.addSubnet(net, bits, 'ipv6');

// Private networks, loopback and link-local: allowed only with WEBHOOK_ALLOW_PRIVATE.
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** The 16 bytes of an IPv6 address (valid input assumed: isIP said 6). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [n >> 8, n & 0xff];
  });
}

/** IPv4 carried inside an IPv6 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96). */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const tail = `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return tail;
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && b[15] === 1)) return tail;
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return tail;
  return undefined;
}

/** Classifies one IP address (v4 or v6, without brackets). Anything unparsable is forbidden. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare.replace(/%.*$/, ''));
  if (family === 4) {
    if (METADATA.check(bare, 'ipv4') || FORBIDDEN.check(bare, 'ipv4')) return 'forbidden';
    return PRIVATE.check(bare, 'ipv4') ? 'private' : 'public';
  }
  if (family === 6) {
    const plain = bare.replace(/%.*$/, '');
    if (bare !== plain) return 'private'; // a zone index only makes sense on link-local
    const v4 = embeddedIpv4(plain);
    if (v4) return classifyAddress(v4);
    if (METADATA.check(plain, 'ipv6') || FORBIDDEN.check(plain, 'ipv6')) return 'forbidden';
    return PRIVATE.check(plain, 'ipv6') ? 'private' : 'public';
  }
  return 'forbidden';
}

function addressAllowed(address: string, options: GuardOptions): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind === 'private' && options.allowPrivate);
}

/**
 * Checks a subscriber URL when it is registered or changed: absolute http(s) URL, HTTPS unless
 * allowHttp, no credentials, and an IP-literal host must be allowed. Names are checked at send
 * time (they can change). Answers a problem message, or null when the URL is acceptable.
 */
export function urlProblem(raw: string, options: GuardOptions): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !options.allowHttp) return 'must be an https:// URL (plain http is not allowed)';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a #fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !addressAllowed(host, options)) {
    return 'must not point to a private, loopback, link-local or reserved address';
  }
  return null;
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export type Target =
  | { ok: true; url: URL; address: string; family: 4 | 6 }
  | { ok: false; error: 'blocked' | 'network'; message: string };

/**
 * Resolves a subscriber URL once for sending: the scheme and every address the name resolves to
 * must be allowed (one bad answer blocks the delivery), and the caller connects to `address`.
 */
export async function resolveTarget(raw: string, options: GuardOptions, lookup: Lookup = systemLookup): Promise<Target> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'blocked', message: 'not a valid URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
    return { ok: false, error: 'blocked', message: `${url.protocol.slice(0, -1)} URLs are not allowed` };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let answers: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    answers = [{ address: host, family: isIP(host) }];
  } else {
    try {
      answers = await lookup(host);
    } catch (error) {
      return { ok: false, error: 'network', message: `cannot resolve ${host}: ${(error as { code?: string }).code ?? 'lookup failed'}` };
    }
    if (answers.length === 0) return { ok: false, error: 'network', message: `cannot resolve ${host}` };
  }
  for (const answer of answers) {
    if (!addressAllowed(answer.address, options)) {
      return { ok: false, error: 'blocked', message: `${host} resolves to ${answer.address}, which is not allowed` };
    }
  }
  const first = answers[0]!;
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
