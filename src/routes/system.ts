// Operational routes: liveness, readiness, metrics.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../context';
import { migrationsApplied } from '../db/migrate';
import { ErrorResponse, errors } from '../lib/http';

const Ok = t.Object({ ok: t.Literal(true) });

export const SystemResponses = {
  healthz: { 200: Ok, ...errors() },
  // 503 `unavailable`: the database is unreachable or the migrations are not applied yet
  readyz: { 200: Ok, ...errors(503) },
};

// /metrics answers a Response (Prometheus text), which bypasses answer validation: documented by hand
const METRICS_RESPONSES = {
  200: {
    description: 'Prometheus text exposition format 0.0.4.',
    content: { 'text/plain': { schema: t.String({ examples: ['partnerd_http_requests_total{method="GET",route="/healthz",status="200"} 3'] }) } },
  },
  // `detail` is typed with OpenAPI 3.0's schema object, which knows no `type: "null"` (3.1 does)
  500: { description: 'An error.', content: { 'application/json': { schema: ErrorResponse as unknown as { type: 'object' } } } },
};

export function systemRoutes(ctx: AppContext) {
  return new Elysia({ detail: { tags: ['Operations'] } })
    .get('/healthz', () => ({ ok: true as const }), { response: SystemResponses.healthz, detail: { summary: 'The process is up' } })
    .get(
      '/readyz',
      async ({ set }) => {
        try {
          if (await migrationsApplied(ctx.sql)) return { ok: true as const };
          set.status = 503;
          return { code: 'unavailable' as const, message: 'migrations are not applied yet' };
        } catch {
          set.status = 503;
          return { code: 'unavailable' as const, message: 'database unreachable' };
        }
      },
      { response: SystemResponses.readyz, detail: { summary: 'The database is reachable and migrated' } },
    )
    .get(
      '/metrics',
      async () => new Response(await ctx.metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4' } }),
      { detail: { summary: 'Prometheus metrics', responses: METRICS_RESPONSES } },
    );
}
