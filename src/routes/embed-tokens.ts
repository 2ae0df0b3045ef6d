// POST /v1/embed-tokens: the operator's backend asks for a signed, one-hour token of one partner and
// puts the answered `url` (the /embed page) in an iframe of its own app.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import { CreateEmbedTokenBody, EmbedTokenResponses } from '../modules/embed/model';
import { issueEmbedToken } from '../workflows/embed-token';

export function embedTokenRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Partners'] })
    .use(authPlugin(ctx))
    .post(
      '/embed-tokens',
      async ({ body, set }) => {
        set.status = 201;
        return issueEmbedToken(ctx, body);
      },
      {
        // the operator's backend only: a partner key cannot mint pages, not even its own
        auth: 'partners:write',
        body: CreateEmbedTokenBody,
        response: EmbedTokenResponses.create,
        detail: {
          summary: 'Create an embed token for the embedded referral page',
          description:
            '`{partnerId}` for an existing active partner, or `{email, name?, campaignId}` for a customer, who becomes an active partner of the campaign on first use (no email sent). Answers the token (signed, bound to that partner, valid one hour) and the page `url` for an iframe; the page may be framed by the origins in EMBED_ORIGINS only.',
        },
      },
    );
}
