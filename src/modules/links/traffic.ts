// What a click says about its visitor, worked out when it is made and stored on it (never the
// address): the partner's sub-ID, the country of the address (an IP-to-country database shipped in
// an npm package, read offline), the device type and browser (bowser), and the referrer's domain.
import { readFileSync } from 'node:fs';
import Bowser from 'bowser';
import { Reader, type CountryResponse } from 'maxmind';

/** The breakdown columns of a click (migration 0052); null: not known. */
export type ClickTraffic = {
  sub_id: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  referrer_domain: string | null;
};

/** A sub-ID: 1-64 letters, digits, `_ - . ~` (safe unescaped in a URL, and in a report). */
export const SUB_PATTERN = /^[A-Za-z0-9_.~-]{1,64}$/;
export const SUB_RULE = '1-64 letters, digits, _ - . or ~';

/** The device types stored; bowser's other platform types (and none) are not kept. */
export const DEVICES = ['desktop', 'mobile', 'tablet', 'tv'] as const;

/**
 * The IP-to-country database: @ip-location-db/geo-whois-asn-country-mmdb (CC0; built from the
 * regional registries' delegations and WHOIS, with NRO statistics under CC BY 4.0), IPv4 and IPv6
 * in one MaxMind DB file, read by the `maxmind` reader. Updated by updating the package.
 */
const COUNTRY_DB = '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb';

/** User agents parsed and remembered (visitors' agents repeat; parsing costs ~10 µs). */
const AGENT_CACHE = 2_000;

export type TrafficClassifier = {
  /** The two-letter country of an address; null for a private, reserved or unknown one. */
  country(ip: string | null): string | null;
  /** Device type and browser name of a user agent. */
  agent(userAgent: string | null): { device: string | null; browser: string | null };
};

/** The sub-ID of a share link's query, or null when there is none or it breaks SUB_PATTERN (the visitor still goes on). */
export function subOf(query: string): string | null {
  if (!query.includes('sub=')) return null;
  const value = new URLSearchParams(query).get('sub');
  return value !== null && SUB_PATTERN.test(value) ? value : null;
}

/** The host of an http(s) referrer, lower case, without a leading `www.`; null for anything else. */
export function referrerDomain(referrer: string | null): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    host = url.hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host.startsWith('www.')) host = host.slice(4);
  return host && host.length <= 253 ? host : null;
}

/** The classifier of one process (ctx.links); the country database is read at its first use. */
export function createTrafficClassifier(dbPath: string = Bun.resolveSync(COUNTRY_DB, import.meta.dir)): TrafficClassifier {
  let reader: Reader<CountryResponse> | null = null;
  const agents = new Map<string, { device: string | null; browser: string | null }>();
  return {
    country(ip) {
      if (!ip) return null;
      reader ??= new Reader<CountryResponse>(readFileSync(dbPath));
      let code: string | undefined;
      try {
        // this database's records are flat: {country_code}, not MaxMind's {country: {iso_code}}
        code = (reader.get(ip) as { country_code?: string } | null)?.country_code;
      } catch {
        return null;
      }
      return code && /^[A-Z]{2}$/.test(code) ? code : null;
    },
    agent(userAgent) {
      if (!userAgent) return { device: null, browser: null };
      const known = agents.get(userAgent);
      if (known) return known;
      const parsed = Bowser.parse(userAgent);
      const type = parsed.platform.type as string | undefined;
      const name = parsed.browser.name;
      const found = {
        device: type && (DEVICES as readonly string[]).includes(type) ? type : null,
        browser: name ? name.slice(0, 40) : null,
      };
      if (agents.size >= AGENT_CACHE) agents.clear();
      agents.set(userAgent, found);
      return found;
    },
  };
}
