// Operational routes: liveness, readiness, metrics.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { migrationsApplied } from '../../db/migrate';

export function systemRoutes(ctx: AppContext) {
  return new Elysia({ detail: { tags: ['Operations'] } } as never)
    .get('/healthz', () => ({ ok: true }), { detail: { summary: 'The process is up' } })
    .get(
      '/readyz',
      async ({ set }) => {
        try {
          if (await migrationsApplied(ctx.sql)) return { ok: true };
          set.status = 503;
          return { code: 'unavailable', message: 'migrations are not applied yet' };
        } catch {
          set.status = 503;
          return { code: 'unavailable', message: 'database unreachable' };
        }
      },
      { detail: { summary: 'The database is reachable and migrated' } },
    )
    .get(
      '/metrics',
      async () => new Response(await ctx.metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4' } }),
      { detail: { summary: 'Prometheus metrics' } },
    );
}
