// Request and response schemas of the partner API.
import { t } from 'elysia';
import { Email, Name } from '../../lib/fields';
import { errors, listOf, PageQuery, Timestamp } from '../../lib/http';
import { Metadata } from '../../lib/metadata';
import { CommissionSnapshot } from '../campaigns/rules';

/**
 * A partner's status, in the order of its life: an application (`applied`, then `declined` or
 * approved), invited (`pending`), signed in (`active`), suspended (`revoked`). The database derives
 * it in one place, the SQL function partner_status(p) (migration 0031); every read takes it from there.
 */
export const PARTNER_STATUSES = ['applied', 'declined', 'pending', 'active', 'revoked'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

const CampaignIds = t.Array(t.String({ maxLength: 64 }), { maxItems: 1000 });
const GroupId = t.Nullable(t.String({ maxLength: 64, description: 'The partner group (grp_…) whose rules win over the campaign’s; null: none.' }));
const ReferredBy = t.Nullable(t.String({ maxLength: 64, description: 'The recruiter (a partner id, not this partner) who earns recruit_override commissions on this partner’s; null: none.' }));

/** The emails a partner receives (DESIGN.md "Partner communications"); each on unless turned off. */
export const Notifications = t.Object(
  {
    commissionAccrued: t.Boolean({ description: 'An email for each commission earned.' }),
    commissionApproved: t.Boolean({ description: 'An email when a commission is approved.' }),
    payoutSent: t.Boolean({ description: 'An email for each payout sent, listing the commissions it pays.' }),
    monthlyStatement: t.Boolean({ description: "A statement of the month's commissions, early each month." }),
  },
  { additionalProperties: false },
);
// Declared unknown, as metadata is: Elysia's normaliser would drop unknown switches and turn an array
// into `{}` before the schema sees them; checkNotifications() in the service decides.
const NotificationsPatch = t.Unknown({
  description: 'The switches to change (`commissionAccrued`, `commissionApproved`, `payoutSent`, `monthlyStatement`: booleans); the others stay.',
  examples: [{ monthlyStatement: false }],
});


export const CreatePartnerBody = t.Object({
  email: Email,
  name: Name,
  sendInvite: t.Optional(t.Boolean({ default: true })),
  metadata: t.Optional(Metadata),
  campaignIds: t.Optional(CampaignIds),
  campaignGrantSource: t.Optional(t.UnionEnum(['admin', 'offering'])),
  commissionSnapshot: t.Optional(CommissionSnapshot),
  groupId: t.Optional(GroupId),
  referredBy: t.Optional(ReferredBy),
});

export const UpdatePartnerBody = t.Object({
  name: t.Optional(Name),
  metadata: t.Optional(Metadata),
  campaignIds: t.Optional(CampaignIds),
  billingConnectAccountId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 255 }))),
  payoutEmail: t.Optional(t.Nullable(Email, { description: 'Where payout notices go when not the sign-in email; null clears it. Lowercased on storage.' })),
  notifications: t.Optional(NotificationsPatch),
  groupId: t.Optional(GroupId),
  referredBy: t.Optional(ReferredBy),
});

export const RevokeBody = t.Optional(
  t.Object({ reason: t.Optional(t.String({ maxLength: 1000 })) }),
);

export const RevokeQuery = t.Object({ reason: t.Optional(t.String({ maxLength: 1000 })) });

export const ListPartnersQuery = t.Object({
  email: t.Optional(t.String({ maxLength: 254 })),
  // t.Union of literals: an absent optional UnionEnum would be filled with its first value
  status: t.Optional(
    t.Union(
      PARTNER_STATUSES.map((s) => t.Literal(s)),
      { description: 'Only partners in this status; `applied` is the applications queue.' },
    ),
  ),
  groupId: t.Optional(t.String({ maxLength: 64, description: 'Only the members of this group.' })),
  ...PageQuery,
});

export const PartnerParams = t.Object({ id: t.String({ maxLength: 64 }) });

// ---- answers

const PartnerStatusSchema = t.UnionEnum([...PARTNER_STATUSES], {
  description: 'applied: an application waiting for review; declined: the application was turned down; pending until the invite is used; revoked while suspended.',
});

export const DeclineBody = t.Object({
  reason: t.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: 'Mailed to the applicant.' }),
});

/** The full partner record (GET, PATCH, revoke, reinstate). */
export const PartnerRecord = t.Object({
  id: t.String({ examples: ['ptn_01jd8x0000000000000000000a'] }),
  email: t.String(),
  name: t.String(),
  status: PartnerStatusSchema,
  activatedAt: t.Nullable(Timestamp),
  createdAt: Timestamp,
  revokedAt: t.Nullable(Timestamp),
  revokeReason: t.Nullable(t.String()),
  billingConnectAccountId: t.Nullable(t.String()),
  payoutEmail: t.Nullable(t.String({ description: 'Where payout notices go when not the sign-in email (the partner sets it in the portal); null: none.' })),
  metadata: t.Record(t.String(), t.Unknown()),
  campaignIds: t.Array(t.String()),
  appliedAt: t.Nullable(Timestamp, { description: 'When the partner applied (self-signup under review); null when not an application.' }),
  applicationAnswers: t.Nullable(t.Record(t.String(), t.String(), { description: 'Answers to the signup questions (website, audience, promotion); null when none were given.' })),
  declineReason: t.Nullable(t.String({ description: 'Why the application was declined (mailed to the applicant).' })),
  notifications: Notifications,
  groupId: t.Nullable(t.String({ description: 'The partner group; null: none.' })),
  referredBy: t.Nullable(t.String({ description: 'The recruiter partner; null: none.' })),
});

/** The answer to POST /partners (SPEC: id, email, name, activatedAt, createdAt, invited). */
export const CreatedPartner = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  activatedAt: t.Nullable(Timestamp),
  createdAt: Timestamp,
  invited: t.Boolean({ description: 'Whether an invite email was sent.' }),
  campaignIds: t.Array(t.String()),
});

/** A list item (SPEC: id, email, name, billingConnectAccountId, createdAt, activatedAt, revokedAt). */
export const PartnerListItem = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  billingConnectAccountId: t.Nullable(t.String()),
  createdAt: Timestamp,
  activatedAt: t.Nullable(Timestamp),
  revokedAt: t.Nullable(Timestamp),
});

export const PartnerList = listOf('partners', PartnerListItem);

export const InviteSent = t.Object({ ok: t.Literal(true), expiresAt: Timestamp });

export const SnapshotRecord = t.Nullable(
  t.Composite([CommissionSnapshot, t.Object({ partnerId: t.String(), createdAt: Timestamp })], {
    description: 'The commission terms frozen at approval by network federation; null when none.',
  }),
);

/** The answer of each partner route: its success schema and the errors it can give. */
export const PartnerResponses = {
  create: { 201: CreatedPartner, ...errors(400, 401, 403, 409, 413) },
  list: { 200: PartnerList, ...errors(400, 401, 403) },
  get: { 200: PartnerRecord, ...errors(400, 401, 403, 404) },
  update: { 200: PartnerRecord, ...errors(400, 401, 403, 404, 413) },
  invite: { 200: InviteSent, ...errors(400, 401, 403, 404, 409, 413) },
  revoke: { 200: PartnerRecord, ...errors(400, 401, 403, 404, 413) },
  reinstate: { 200: PartnerRecord, ...errors(400, 401, 403, 404, 409, 413) },
  snapshot: { 200: SnapshotRecord, ...errors(400, 401, 403, 404) },
  approve: { 200: PartnerRecord, ...errors(400, 401, 403, 404, 409, 413) },
  decline: { 200: PartnerRecord, ...errors(400, 401, 403, 404, 409, 413) },
};
