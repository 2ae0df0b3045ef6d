// Request and response schemas of the API-key and sign-in routes.
import { t } from 'elysia';
import { errors, listOf, PageQuery, Timestamp } from '../../lib/http';
import { ApplicationAnswersField, Email, Name } from '../../lib/fields';
import { KEY_KINDS, SCOPES } from './scopes';

const KeyName = t.String({ minLength: 1, maxLength: 200 });

export const CreateApiKeyBody = t.Object({
  name: KeyName,
  kind: t.Optional(t.UnionEnum(['scoped', 'publishable'])),
  scopes: t.Optional(t.Array(t.UnionEnum([...SCOPES]), { maxItems: SCOPES.length * 2 })),
});

export const CreatePartnerKeyBody = t.Object({ name: KeyName });

export const ListApiKeysQuery = t.Object({ partnerId: t.Optional(t.String({ maxLength: 64 })), ...PageQuery });

export const ApiKeyParams = t.Object({ id: t.String({ maxLength: 64 }) });

export const MagicLinkBody = t.Object({ email: Email });
export const SignUpBody = t.Object({
  email: Email,
  name: Name,
  applicationAnswers: t.Optional(ApplicationAnswersField),
  ref: t.Optional(t.String({ maxLength: 64, description: "A recruiting link's ref (the recruiter's partner id); an unknown or revoked one is ignored." })),
});
export const MagicLinkQuery = t.Object({ token: t.Optional(t.String({ maxLength: 200 })) });

// ---- answers

const Scopes = t.Array(t.UnionEnum([...SCOPES]));
const KeyKind = t.UnionEnum(KEY_KINDS);

/** A key as listed: never the key itself; `hint` shows its first and last characters. */
export const ApiKeyRecord = t.Object({
  id: t.String(),
  name: t.String(),
  kind: KeyKind,
  scopes: Scopes,
  partnerId: t.Nullable(t.String()),
  hint: t.String({ examples: ['sk_ab12…9f3c'] }),
  createdAt: Timestamp,
  revokedAt: t.Nullable(Timestamp),
});

/** The one answer that carries the key. */
export const CreatedApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  kind: KeyKind,
  scopes: Scopes,
  createdAt: Timestamp,
  key: t.String({ description: 'The API key: shown here once, never again.' }),
});

export const CreatedPartnerKey = t.Composite([CreatedApiKey, t.Object({ partnerId: t.Nullable(t.String()) })]);

export const ApiKeyList = listOf('apiKeys', ApiKeyRecord);

const Accepted = t.Object({ ok: t.Literal(true), message: t.String() });

export const ApiKeyResponses = {
  create: { 201: CreatedApiKey, ...errors(400, 401, 403, 413) },
  list: { 200: ApiKeyList, ...errors(400, 401, 403) },
  revoke: { 200: ApiKeyRecord, ...errors(400, 401, 403, 404, 413) },
  createForPartner: { 201: CreatedPartnerKey, ...errors(400, 401, 403, 404, 409, 413) },
};

export const SessionResponses = {
  magicLink: { 202: Accepted, ...errors(400, 413, 429) },
  signUp: { 202: Accepted, ...errors(400, 403, 413, 429) },
  logout: { 200: t.Object({ ok: t.Literal(true) }), ...errors(400, 413) },
};
