// Request and response schemas of POST /v1/embed-tokens.
import { t } from 'elysia';
import { Email, Name } from '../../lib/fields';
import { errors, Timestamp } from '../../lib/http';

const Id = t.String({ minLength: 1, maxLength: 64 });

export const CreateEmbedTokenBody = t.Union([
  t.Object({ partnerId: Id }, { additionalProperties: false, description: 'A token for an existing partner.' }),
  t.Object(
    {
      email: Email,
      name: t.Optional(Name),
      campaignId: Id,
    },
    {
      additionalProperties: false,
      description: 'A token for a customer by email: an active partner of the campaign is created on first use (no invite email), with a share link of the campaign.',
    },
  ),
]);

export const EmbedToken = t.Object({
  token: t.String({ description: 'Signed, bound to one partner, valid for one hour.' }),
  url: t.String({ description: 'The embedded referral page for an iframe: `<BASE_URL>/embed?token=…`.', examples: ['https://partners.example.com/embed?token=eyJw…'] }),
  expiresAt: Timestamp,
  partnerId: t.String(),
  created: t.Boolean({ description: 'Whether this call created the partner.' }),
});

export const EmbedTokenResponses = { create: { 201: EmbedToken, ...errors(400, 401, 403, 404, 409, 413) } };
