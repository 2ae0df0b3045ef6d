// The audit log's schemas: one entry as the API answers it, and the list's strict query.
import { t } from 'elysia';
import { errors, listOf, PageQuery, QueryEnum, Timestamp } from '../../lib/http';

/** A day (`2026-11-27`) or a moment (`2026-11-27T10:00:00Z`, offsets and fractions allowed). */
const WHEN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$';

export const ACTOR_TYPES = ['admin', 'key', 'partner', 'job', 'provider'] as const;

export const AuditEntry = t.Object(
  {
    id: t.String({ examples: ['aud_01jd8x6v9m3k2q7w4e5r6t7y8z'] }),
    at: Timestamp,
    actor: t.Object({
      type: t.UnionEnum(ACTOR_TYPES),
      id: t.String({ description: "The admin's email, the key's id, the partner's id, the job's name or the provider's name." }),
      email: t.Optional(t.String()),
    }),
    action: t.String({ description: '`<noun>.<verb>`, e.g. `partner.revoked`, `payout.run`, `settings.updated`.', examples: ['partner.updated'] }),
    target: t.Object({ type: t.String({ examples: ['partner'] }), id: t.String() }),
    changes: t.Optional(
      t.Record(t.String(), t.Array(t.Unknown(), { minItems: 2, maxItems: 2 }), {
        description: 'The fields that changed, `{field: [before, after]}`; secrets, tokens, key hashes, TINs and dates of birth read `"[redacted]"`.',
      }),
    ),
    ip: t.Nullable(t.String()),
    userAgent: t.Nullable(t.String()),
    requestId: t.Nullable(t.String()),
  },
  { description: 'One change, who made it, when and from where.' },
);

export const ListAuditQuery = t.Object(
  {
    actor: t.Optional(t.String({ minLength: 1, maxLength: 320, description: "Who: an actor's id (an admin's email, a key's id, a partner's id, a job or provider name)." })),
    actorType: QueryEnum(ACTOR_TYPES, { description: 'What kind of actor.' }),
    action: t.Optional(
      t.String({ pattern: '^[a-z_]+(\\.[a-z_]*)?$', maxLength: 64, description: 'An action (`partner.revoked`) or every action on a noun (`partner.`).' }),
    ),
    targetId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'The changed object\'s id.' })),
    from: t.Optional(t.String({ pattern: WHEN, description: 'Entries at or after this time: an ISO 8601 date (its start, UTC) or date-time.' })),
    to: t.Optional(t.String({ pattern: WHEN, description: 'Entries before this time: an ISO 8601 date (the end of that day, UTC) or date-time.' })),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const AuditResponses = {
  list: { ...errors(400, 401, 403), 200: listOf('entries', AuditEntry, 'Audit entries, newest first.') },
};
