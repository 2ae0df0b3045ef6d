// A small fixed-window limiter for the unauthenticated mail-sending routes (per process).
import { AppError } from './errors';

export function createRateLimiter(max: number, windowMs: number) {
  const hits = new Map<string, { count: number; resetAt: number }>();
  return function take(key: string): void {
    const now = Date.now();
    if (hits.size > 10_000) for (const [k, v] of hits) if (v.resetAt <= now) hits.delete(k);
    const entry = hits.get(key);
    if (!entry || entry.resetAt <= now) {
      hits.set(key, { count: 1, resetAt: now + windowMs });
      return;
    }
    if (++entry.count > max) {
      throw new AppError('rate_limited', `too many requests; try again in ${Math.ceil((entry.resetAt - now) / 1000)} s`);
    }
  };
}
