// Routes for API keys (admin) and for browser sign-in: magic links, signup, sessions.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { paginate, readPage } from '../lib/http';
import { consumeLink, requestMagicLink, SENT, SIGNUP_ANSWERS, signUp } from '../workflows/sign-in';
import { clientAddress } from '../modules/links/address';
import { createApiKey, listApiKeys, revokeApiKey, throwIfBadScopes, type ApiKeyRecord } from '../modules/auth/keys';
import { authPlugin, readCookie } from '../modules/auth/plugin';
import {
  ApiKeyParams,
  ApiKeyResponses,
  CreateApiKeyBody,
  ListApiKeysQuery,
  MagicLinkBody,
  MagicLinkQuery,
  SessionResponses,
  SignUpBody,
} from '../modules/auth/model';
import { takeSignInRequest } from '../modules/auth/limit';

import type { MagicLinkPages } from '../modules/auth/magic';
import { endSession, SESSION_COOKIE, sessionCookie } from '../modules/auth/sessions';

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
        body: CreateApiKeyBody,
        response: ApiKeyResponses.create,
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
        query: ListApiKeysQuery,
        response: ApiKeyResponses.list,
        detail: { summary: 'List active API keys (never the keys themselves)', tags: ['API keys'] },
      },
    )
    .delete('/api-keys/:id', async ({ params }) => publicKey(await revokeApiKey(ctx.sql, params.id)), {
      auth: 'admin',
      params: ApiKeyParams,
      response: ApiKeyResponses.revoke,
      detail: { summary: 'Revoke an API key', tags: ['API keys'] },
    });
}


/** Browser-facing sign-in routes; not under /v1, their links are in emails. */
export function sessionRoutes(ctx: AppContext, magicLinkPages: MagicLinkPages) {
  const cookie = (value: string, maxAge: number) => sessionCookie(ctx.config.baseUrl, value, maxAge);

  return new Elysia({ detail: { tags: ['Sign-in'] } })
    .post(
      '/auth/magic-link',
      async ({ body, set }) => {
        await takeSignInRequest(ctx.sql, body.email);
        await requestMagicLink(ctx, body.email);
        set.status = 202;
        return SENT;
      },
      { body: MagicLinkBody, response: SessionResponses.magicLink, detail: { summary: 'Mail a sign-in link (same answer for any email)' } },
    )
    .post(
      '/auth/signup',
      async ({ body, set }) => {
        await takeSignInRequest(ctx.sql, body.email);
        const mode = await signUp(ctx, body);
        set.status = 202;
        return { ok: true as const, message: SIGNUP_ANSWERS[mode] };
      },
      {
        body: SignUpBody,
        response: SessionResponses.signUp,
        detail: {
          summary: 'Partner self-signup (partnerSignup open or review)',
          description:
            'Open: creates a pending partner and mails the activation link. Review: stores an application (status `applied`, no invite) with its `applicationAnswers`, for an admin to approve or decline. The answer is the same whether or not the email already has an account.',
        },
      },
    )
    .get(
      '/auth/magic',
      async ({ query, request }) => {
        const outcome = await consumeLink(ctx, query.token ?? '', clientAddress(request, ctx.config.trustProxy, ctx.http.server), request.headers.get('user-agent'));
        switch (outcome.kind) {
          case 'invalid':
            return magicLinkPages.expired(request);
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
        query: MagicLinkQuery,
        // the link in an email, opened by a browser: a redirect or a page, not part of the API
        detail: { summary: 'Consume a magic link: activates, signs in, redirects', hide: true },
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
      { response: SessionResponses.logout, detail: { summary: 'End the browser session' } },
    );
}
