// The per-service state behind the redirect: the link cache, the click buffer, the IP-hash salt,
// the LISTEN that keeps the cache of every replica honest, and the LISTEN through which identify,
// on any replica, has clicks still buffered by another replica written at once. One per process:
// createContext makes it (ctx.links; tests run several services in one process), serve() starts
// its LISTENs and stops it after the HTTP server.
import type { ListenMeta } from 'postgres';
import type { Sql } from '../../db';
import { sha256 } from '../../lib/crypto';
import { idTime, newId } from '../../lib/ids';
import type { Logger } from '../../lib/log';
import type { Metrics } from '../../lib/metrics';
import { FloodCounter, networkHash, uncreditedReason } from '../fraud/signals';
import { ClickBuffer } from './buffer';
import { LinkCache, withQuery, type LinkTarget } from './cache';
import { loadClickSalt, loadLinkTarget } from './service';
import { createTrafficClassifier, referrerDomain, type TrafficClassifier } from './traffic';

/** Channel the 0005 triggers notify on: `link:<slug>`, `partner:<id>`, `campaign:<id>`. */
export const CACHE_CHANNEL = 'partnerd_link_cache';
/** Channel identify notifies on: comma-separated click ids, to be written now by whoever holds them. */
export const CLICKS_CHANNEL = 'partnerd_clicks';

/**
 * Clicks made within this long (by the time in their id, either way, for clock skew between
 * replicas) may still be in some replica's buffer; older ones are in the database or never will be.
 */
const RECENT_MS = 10_000;
/** The longest identify waits for its clicks: twice the one-second durability bound of the buffer. */
const CLICK_WAIT_MS = 2_000;
/** Between looks in the database for clicks another replica was asked to write. */
const FIRST_LOOK_MS = 2;
const MAX_LOOK_MS = 100;

/** What the redirect (or POST /v1/clicks) knows of a click; `sub` is already checked (traffic.ts SUB_PATTERN). */
export type ClickMeta = { ip: string | null; userAgent: string | null; referrer: string | null; sub?: string | null };

export type LinkRuntime = {
  cache: LinkCache;
  clicks: ClickBuffer;
  /** Records a click for a target (buffered) and answers its id; null for a revoked partner. */
  recordClick(target: LinkTarget, meta: ClickMeta): string | null | Promise<string | null>;
  /**
   * Resolves once the clicks named (by identify) that may still be buffered are in the database:
   * this process writes the ones it holds at once; for the others, every replica is asked
   * (NOTIFY) to write them, and the database is looked at until they are there. Only clicks made
   * in the last RECENT_MS are waited for, for at most CLICK_WAIT_MS; never throws.
   */
  clicksWritten(clickIds: string[]): Promise<void>;
  /** The salted hash of an address's network (identify, for self_referral). */
  networkHash(ip: string): string | Promise<string>;
  /** The address to redirect to, with `extraQuery` (encoded) and pp_click appended. */
  location(target: LinkTarget, clickId: string | null, extraQuery?: string): string;
  /** Drops cache entries after a change this process made (the NOTIFY covers other replicas). */
  invalidate(change: { slug?: string; all?: boolean }): void;
  /** Listens for other replicas' cache changes and click requests (serve() calls it). */
  start(): void;
  /** Writes the buffered clicks and stops listening (SIGTERM must not lose clicks). */
  stop(): Promise<void>;
};

export type LinkRuntimeDeps = { sql: Sql; log: Logger; metrics: Metrics; fraudClicksPerIpHour: number; traffic?: TrafficClassifier };

const MAX_TEXT = 1024;

/** The process's link runtime; no I/O until start() or the first click. */
export function createLinkRuntime(deps: LinkRuntimeDeps): LinkRuntime {
  const { sql, metrics } = deps;
  const cache = new LinkCache((slug) => loadLinkTarget(sql, slug));
  const clicks = new ClickBuffer(sql, deps.log, (n, seconds) => {
    metrics.inc('partnerd_clicks_written_total', {}, n);
    metrics.observe('partnerd_click_flush_seconds', seconds);
  });
  metrics.gauge('partnerd_click_buffer_size', () => clicks.size);
  // counted here, not in the database: the redirect makes no round trip for it (signals.ts)
  const flood = new FloodCounter(deps.fraudClicksPerIpHour);
  const traffic = deps.traffic ?? createTrafficClassifier();

  let salt: string | null = null;
  let saltLoading: Promise<string> | null = null;
  const loadSalt = () => (saltLoading ??= loadClickSalt(sql).then((s) => (salt = s)).finally(() => (saltLoading = null)));
  let listening: Promise<(ListenMeta | null)[]> | null = null;

  const make = (target: LinkTarget, meta: ClickMeta, s: string): string => {
    const id = newId('click');
    const userAgent = meta.userAgent ? meta.userAgent.slice(0, MAX_TEXT) : null;
    const { device, browser } = traffic.agent(userAgent);
    clicks.add({
      id,
      link_id: target.linkId,
      partner_id: target.partnerId,
      campaign_id: target.campaignId,
      ip_hash: meta.ip ? sha256(`${s}:${meta.ip}`) : null,
      user_agent: userAgent,
      referrer: meta.referrer ? meta.referrer.slice(0, MAX_TEXT) : null,
      uncredited_reason: uncreditedReason(flood, { linkId: target.linkId, ip: meta.ip, userAgent }),
      created_at: Date.now(),
      sub_id: meta.sub ?? null,
      country: traffic.country(meta.ip),
      device,
      browser,
      referrer_domain: referrerDomain(meta.referrer),
    });
    return id;
  };
  // under overload the redirect waits for the backlog, keeping clicks durable within a second
  const acknowledge = (id: string): string | Promise<string> => {
    const wait = clicks.backpressure();
    return wait ? wait.then(() => id) : id;
  };

  return {
    cache,
    clicks,
    recordClick(target, meta) {
      if (target.revoked) return null;
      if (salt !== null) return acknowledge(make(target, meta, salt));
      return loadSalt().then((s) => acknowledge(make(target, meta, s)));
    },
    clicksWritten: (clickIds) => clicksWritten(deps, clicks, clickIds),
    networkHash(ip) {
      if (salt !== null) return networkHash(salt, ip);
      return loadSalt().then((s) => networkHash(s, ip));
    },
    location(target, clickId, extraQuery = '') {
      const click = clickId ? `pp_click=${clickId}` : '';
      const extra = extraQuery && click ? `${extraQuery}&${click}` : extraQuery || click;
      return withQuery(target, extra);
    },
    invalidate(change) {
      if (change.all) cache.clear();
      else if (change.slug) cache.dropSlug(change.slug.toLowerCase());
    },
    start() {
      listening ??= listen(deps, cache, clicks);
    },
    async stop() {
      await clicks.close();
      for (const listener of (await listening) ?? []) await listener?.unlisten().catch(() => undefined);
      listening = null;
    },
  };
}

/** The two LISTENs: cache changes (this and every replica's), and clicks other replicas' identify asks for. */
function listen(deps: LinkRuntimeDeps, cache: LinkCache, clicks: ClickBuffer): Promise<(ListenMeta | null)[]> {
  const cacheChanges = deps.sql
    .listen(
      CACHE_CHANNEL,
      (payload) => {
        if (payload.startsWith('link:')) cache.dropSlug(payload.slice(5).toLowerCase());
        else cache.clear();
      },
      // (re)connected: notifications may have been missed meanwhile
      () => cache.clear(),
    )
    .catch((error) => {
      deps.log.warn('link cache: LISTEN failed; entries expire by TTL only', { error });
      return null;
    });
  // another replica's identify names clicks: write the ones held here now rather than at the timer
  const clickRequests = deps.sql
    .listen(CLICKS_CHANNEL, (payload) => {
      const mine = clicks.held(new Set(payload.split(',')));
      if (mine.size > 0) void clicks.writeSoon(mine, Date.now() + CLICK_WAIT_MS);
    })
    .catch((error) => {
      deps.log.warn('clicks: LISTEN failed; clicks asked for by other replicas are written at the timer', { error });
      return null;
    });
  return Promise.all([cacheChanges, clickRequests]);
}

/** LinkRuntime.clicksWritten: see there. */
async function clicksWritten(deps: LinkRuntimeDeps, clicks: ClickBuffer, clickIds: string[]): Promise<void> {
  const { sql } = deps;
  /** Which of these clicks are not in the database. */
  const absent = async (ids: string[]): Promise<string[]> => {
    const found = new Set((await sql<{ id: string }[]>`select id from clicks where id = any(${ids}::text[])`).map((r) => r.id));
    return ids.filter((id) => !found.has(id));
  };
  const now = Date.now();
  const recent = clickIds.filter((id) => Math.abs(now - idTime(id).getTime()) <= RECENT_MS);
  if (recent.length === 0) return;
  const deadline = now + CLICK_WAIT_MS;
  try {
    const mine = clicks.held(new Set(recent));
    if (mine.size > 0 && !(await clicks.writeSoon(mine, deadline))) return;
    const others = recent.filter((id) => !mine.has(id));
    if (others.length === 0) return;
    // most are written already; ask the other replicas only for those that are not
    let missing = await absent(others);
    if (missing.length === 0) return;
    await sql.notify(CLICKS_CHANNEL, missing.join(','));
    for (let look = FIRST_LOOK_MS; ; look = Math.min(2 * look, MAX_LOOK_MS)) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await Bun.sleep(Math.min(look, left));
      missing = await absent(missing);
      if (missing.length === 0) return;
    }
  } catch (error) {
    // identify's own write reports an unreachable database; the join works once the clicks land
    deps.log.warn('identify: could not make sure its clicks are written', { error });
  }
}
