// The link builder's one rule: the page a link lands on, from the campaign's destination, the page the
// partner typed (a path or a full URL of that site) and the UTM fields. assets/link-builder.js applies
// the same steps in the browser (WHATWG URL on both sides), so the address shown while typing is the
// one the server stores; the API still checks the host (deepLinkProblem).

export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;
export type UtmField = (typeof UTM_FIELDS)[number];

export type BuilderInput = { page: string; utm: Partial<Record<UtmField, string>> };

/**
 * The deep link for a campaign destination, or null when nothing was asked for (the link then follows
 * the campaign's destination). `problem` says why the typed page cannot be used.
 */
export function buildDestination(campaignUrl: string, input: BuilderInput): { url: string | null; problem: string | null } {
  const page = input.page.trim();
  const utm = UTM_FIELDS.map((k) => [k, (input.utm[k] ?? '').trim()] as const).filter(([, v]) => v !== '');
  if (page === '' && utm.length === 0) return { url: null, problem: null };
  let url: URL;
  try {
    const base = new URL(campaignUrl);
    url = new URL(pageAddress(page, base), base);
  } catch {
    return { url: null, problem: 'is not a page address' };
  }
  for (const [key, value] of utm) url.searchParams.set(key, value);
  return { url: url.href, problem: null };
}

/**
 * What the partner typed, as an address to resolve against the campaign's destination: empty is the
 * destination itself; a full http(s) URL stays; "shop.example/x" (the campaign's host first) gets the
 * destination's scheme; "/x", "?q" and "#f" resolve against the destination; anything else is a path on the site
 * ("pricing" -> "/pricing").
 */
function pageAddress(page: string, base: URL): string {
  if (page === '') return base.href;
  if (/^https?:\/\//i.test(page)) return page;
  if (page.toLowerCase() === base.host || page.toLowerCase().startsWith(`${base.host}/`)) return `${base.protocol}//${page}`;
  if (page.startsWith('/') || page.startsWith('?') || page.startsWith('#')) return page;
  return `/${page}`;
}
