// The in-memory slug -> redirect target cache in front of GET /r/:slug.
// Entries live TTL_MS at most; changes made through this process drop them at once, and changes
// made anywhere (other replicas, manual SQL) arrive through LISTEN/NOTIFY (see runtime.ts).

/** What a redirect needs to know about a link, with the Location prefix ready to use. */
export type LinkTarget = {
  linkId: string;
  partnerId: string;
  campaignId: string;
  /** Destination up to (and without) its fragment. */
  destination: string;
  /** `#...` of the destination, or ''. */
  fragment: string;
  /** Revoked partners' links redirect without recording a click. */
  revoked: boolean;
};

type Entry = { target: LinkTarget | null; expires: number };

export const TTL_MS = 30_000;
/** Unknown slugs are remembered briefly, so a flood of bad slugs does not reach the database. */
export const MISS_TTL_MS = 5_000;
const MAX_ENTRIES = 100_000;

export class LinkCache {
  private entries = new Map<string, Entry>();
  private loading = new Map<string, Promise<LinkTarget | null>>();
  /** Bumped by every invalidation, so a lookup that started before one does not store stale data. */
  private generation = 0;

  constructor(private load: (slug: string) => Promise<LinkTarget | null>) {}

  /** The target of a slug, from memory when fresh; concurrent misses share one query. */
  get(slug: string, now = Date.now()): LinkTarget | null | Promise<LinkTarget | null> {
    const entry = this.entries.get(slug);
    if (entry && entry.expires > now) return entry.target;
    const pending = this.loading.get(slug);
    if (pending) return pending;
    const generation = this.generation;
    const promise = this.load(slug).then(
      (target) => {
        this.loading.delete(slug);
        if (generation === this.generation) this.store(slug, target, now);
        return target;
      },
      (error) => {
        this.loading.delete(slug);
        throw error;
      },
    );
    this.loading.set(slug, promise);
    return promise;
  }

  private store(slug: string, target: LinkTarget | null, now: number) {
    if (this.entries.size >= MAX_ENTRIES) {
      // the oldest insertions go first: a crude but allocation-free bound
      let drop = MAX_ENTRIES / 10;
      for (const key of this.entries.keys()) {
        this.entries.delete(key);
        if (--drop <= 0) break;
      }
    }
    this.entries.delete(slug);
    this.entries.set(slug, { target, expires: now + (target ? TTL_MS : MISS_TTL_MS) });
  }

  /** A link was created or changed. */
  dropSlug(slug: string) {
    this.generation++;
    this.entries.delete(slug);
  }

  /** A partner or a campaign changed: cheaper to forget everything than to find its links. */
  clear() {
    this.generation++;
    this.entries.clear();
  }

  get size() {
    return this.entries.size;
  }
}

/** Splits a destination into the part a query parameter is appended to and its fragment. */
export function splitDestination(url: string): { destination: string; fragment: string } {
  const hash = url.indexOf('#');
  return hash === -1 ? { destination: url, fragment: '' } : { destination: url.slice(0, hash), fragment: url.slice(hash) };
}

/**
 * The destination with extra query text appended (`a=1&b=2`, already encoded), keeping the
 * destination's own query and fragment exactly as written.
 */
export function withQuery(target: { destination: string; fragment: string }, extra: string): string {
  if (extra === '') return target.destination + target.fragment;
  const base = target.destination;
  const q = base.indexOf('?');
  const sep = q === -1 ? '?' : q === base.length - 1 || base.endsWith('&') ? '' : '&';
  return base + sep + extra + target.fragment;
}
