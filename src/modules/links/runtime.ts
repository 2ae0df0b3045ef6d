// The per-service state behind the redirect: the link cache, the click buffer, the IP-hash salt,
// and the LISTEN that keeps the cache of every replica honest. One per AppContext (tests run
// several services in one process); server.ts stops it after the HTTP server.
import type { AppContext } from '../../context';
import { sha256 } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { ClickBuffer } from './buffer';
import { LinkCache, withQuery, type LinkTarget } from './cache';
import { loadClickSalt, loadLinkTarget } from './service';

/** Channel the 0005 triggers notify on: `link:<slug>`, `partner:<id>`, `campaign:<id>`. */
export const CACHE_CHANNEL = 'partnerd_link_cache';

export type ClickMeta = { ip: string | null; userAgent: string | null; referrer: string | null };

export type LinkRuntime = {
  cache: LinkCache;
  clicks: ClickBuffer;
  /** Records a click for a target (buffered) and answers its id; null for a revoked partner. */
  recordClick(target: LinkTarget, meta: ClickMeta): string | null | Promise<string | null>;
  /** The address to redirect to, with `extraQuery` (encoded) and pp_click appended. */
  location(target: LinkTarget, clickId: string | null, extraQuery?: string): string;
  /** Drops cache entries after a change this process made (the NOTIFY covers other replicas). */
  invalidate(change: { slug?: string; all?: boolean }): void;
  stop(): Promise<void>;
};

const runtimes = new WeakMap<AppContext, LinkRuntime>();

export function linkRuntime(ctx: AppContext): LinkRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = createRuntime(ctx);
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** Drops link cache entries after a change this process made; a no-op when nothing is cached. */
export function invalidateLinkCache(ctx: AppContext, change: { slug?: string; all?: boolean }): void {
  runtimes.get(ctx)?.invalidate(change);
}

/** Writes the buffered clicks now (tests that attribute right after a redirect use it). */
export async function flushClicks(ctx: AppContext): Promise<void> {
  await runtimes.get(ctx)?.clicks.flush();
}

/** Flushes the click buffer and stops listening; a no-op when no runtime was ever made. */
export async function stopLinkRuntime(ctx: AppContext): Promise<void> {
  const runtime = runtimes.get(ctx);
  if (!runtime) return;
  runtimes.delete(ctx);
  await runtime.stop();
}

const MAX_TEXT = 1024;

function createRuntime(ctx: AppContext): LinkRuntime {
  const cache = new LinkCache((slug) => loadLinkTarget(ctx.sql, slug));
  const clicks = new ClickBuffer(ctx.sql, ctx.log, (n, seconds) => {
    ctx.metrics.inc('partnerd_clicks_written_total', {}, n);
    ctx.metrics.observe('partnerd_click_flush_seconds', seconds);
  });
  ctx.metrics.gauge('partnerd_click_buffer_size', () => clicks.size);

  let salt: string | null = null;
  let saltLoading: Promise<string> | null = null;
  const loadSalt = () => (saltLoading ??= loadClickSalt(ctx.sql).then((s) => (salt = s)).finally(() => (saltLoading = null)));

  const listening = ctx.sql
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
      ctx.log.warn('link cache: LISTEN failed; entries expire by TTL only', { error });
      return null;
    });

  const make = (target: LinkTarget, meta: ClickMeta, s: string): string => {
    const id = newId('click');
    clicks.add({
      id,
      link_id: target.linkId,
      partner_id: target.partnerId,
      campaign_id: target.campaignId,
      ip_hash: meta.ip ? sha256(`${s}:${meta.ip}`) : null,
      user_agent: meta.userAgent ? meta.userAgent.slice(0, MAX_TEXT) : null,
      referrer: meta.referrer ? meta.referrer.slice(0, MAX_TEXT) : null,
      created_at: Date.now(),
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
    location(target, clickId, extraQuery = '') {
      const click = clickId ? `pp_click=${clickId}` : '';
      const extra = extraQuery && click ? `${extraQuery}&${click}` : extraQuery || click;
      return withQuery(target, extra);
    },
    invalidate(change) {
      if (change.all) cache.clear();
      else if (change.slug) cache.dropSlug(change.slug.toLowerCase());
    },
    async stop() {
      await clicks.close();
      const listener = await listening;
      await listener?.unlisten().catch(() => undefined);
    },
  };
}
