// Routes for API keys (admin) and for browser sign-in: magic links, signup, sessions.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { PageQuery, paginate, readPage } from '../../lib/http';
import { consumeLink, requestMagicLink, SENT, signInLimiter, signUp } from '../../workflows/sign-in';
import { Email, Name } from '../partners/model';
import { createApiKey, listApiKeys, revokeApiKey, throwIfBadScopes, type ApiKeyRecord } from './keys';
import { authPlugin, readCookie } from './plugin';
import { SCOPES } from './scopes';
import { endSession, SESSION_COOKIE, sessionCookie } from './sessions';

const publicKey = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  scopes: k.scopes,
  partnerId: k.partnerId,
  hint: k.hint,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
});

export function apiKeyRoutes(ctx: AppContext) {
  return new Elysia()
    .use(authPlugin(ctx))
    .post(
      '/api-keys',
      async ({ body, set }) => {
        const kind = body.kind ?? 'scoped';
        throwIfBadScopes(kind, body.scopes);
        const created = await createApiKey(ctx.sql, { name: body.name, kind, scopes: body.scopes });
        set.status = 201;
        return { id: created.id, name: created.name, kind: created.kind, scopes: created.scopes, createdAt: created.createdAt, key: created.key };
      },
      {
        auth: 'admin',
        body: t.Object({
          name: t.String({ minLength: 1, maxLength: 200 }),
          kind: t.Optional(t.UnionEnum(['scoped', 'publishable'])),
          scopes: t.Optional(t.Array(t.UnionEnum([...SCOPES]), { maxItems: SCOPES.length * 2 })),
        }),
        detail: { summary: 'Create a scoped or publishable API key (shown once)', tags: ['API keys'] },
      },
    )
    .get(
      '/api-keys',
      async ({ query }) => {
        const page = readPage(query, 'apiKey');
        const { items, nextCursor } = paginate(await listApiKeys(ctx.sql, { ...page, partnerId: query.partnerId }), page.limit);
        return { apiKeys: items.map(publicKey), nextCursor };
      },
      {
        auth: 'admin',
        query: t.Object({ partnerId: t.Optional(t.String({ maxLength: 64 })), ...PageQuery }),
        detail: { summary: 'List active API keys (never the keys themselves)', tags: ['API keys'] },
      },
    )
    .delete('/api-keys/:id', async ({ params }) => publicKey(await revokeApiKey(ctx.sql, params.id)), {
      auth: 'admin',
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      detail: { summary: 'Revoke an API key', tags: ['API keys'] },
    });
}


/** What GET /auth/magic shows when a link signs no one in: the portal's pages, handed in by app.ts. */
export type MagicLinkPages = { expired(): Response; revoked(reason: string | null): Response };

/** Browser-facing sign-in routes; not under /v1, their links are in emails. */
export function sessionRoutes(ctx: AppContext, magicLinkPages: MagicLinkPages) {
  const perEmail = signInLimiter(ctx);
  const cookie = (value: string, maxAge: number) => sessionCookie(ctx.config.baseUrl, value, maxAge);

  return new Elysia({ detail: { tags: ['Sign-in'] } } as never)
    .post(
      '/auth/magic-link',
      async ({ body, set }) => {
        perEmail(`link:${body.email.toLowerCase()}`);
        await requestMagicLink(ctx, body.email);
        set.status = 202;
        return SENT;
      },
      { body: t.Object({ email: Email }), detail: { summary: 'Mail a sign-in link (same answer for any email)' } },
    )
    .post(
      '/auth/signup',
      async ({ body, set }) => {
        perEmail(`signup:${body.email.toLowerCase()}`);
        await signUp(ctx, body);
        set.status = 202;
        return { ok: true, message: 'Check your inbox for a link to activate your account.' };
      },
      { body: t.Object({ email: Email, name: Name }), detail: { summary: 'Partner self-signup (PARTNER_SIGNUP=open)' } },
    )
    .get(
      '/auth/magic',
      async ({ query }) => {
        const outcome = await consumeLink(ctx, query.token ?? '');
        switch (outcome.kind) {
          case 'invalid':
            return magicLinkPages.expired();
          case 'revoked':
            return magicLinkPages.revoked(outcome.reason);
          case 'signed-in':
            return new Response(null, {
              status: 302,
              headers: {
                location: outcome.landing,
                'set-cookie': cookie(outcome.sessionToken, Math.floor((outcome.expiresAt.getTime() - Date.now()) / 1000)),
                'cache-control': 'no-store',
              },
            });
        }
      },
      {
        query: t.Object({ token: t.Optional(t.String({ maxLength: 200 })) }),
        detail: { summary: 'Consume a magic link: activates, signs in, redirects' },
      },
    )
    .post(
      '/auth/logout',
      async ({ request }) => {
        const token = readCookie(request, SESSION_COOKIE);
        if (token) await endSession(ctx.sql, token);
        return new Response(JSON.stringify({ ok: true }), {
          headers: { 'content-type': 'application/json', 'set-cookie': cookie('', 0) },
        });
      },
      { detail: { summary: 'End the browser session' } },
    );
}
