// Request and response schemas of the team API (GET/POST/PATCH/DELETE /v1/team).
import { t } from 'elysia';
import { errors, Timestamp } from '../../lib/http';
import { Email } from '../../lib/fields';
import { ROLES } from '../auth/roles';

// without the default Elysia gives a UnionEnum (its first value): a missing role is a 400, never 'owner'
const { default: _first, ...roleSchema } = t.UnionEnum(ROLES, {
  description: 'owner: everything; admin: everything but the team; finance: money actions; support: partners, codes, links, review; viewer: reads only.',
});
export const RoleField = roleSchema as ReturnType<typeof t.UnionEnum<typeof ROLES>>;

export const InviteMemberBody = t.Object({ email: Email, role: RoleField });
export const ChangeRoleBody = t.Object({ role: RoleField });
export const MemberParams = t.Object({ id: t.String({ maxLength: 64 }) });

export const MemberRecord = t.Object({
  id: t.String({ examples: ['mbr_01jd8x0000000000000000000a'] }),
  email: t.String(),
  role: RoleField,
  source: t.UnionEnum(['env', 'invite', 'sso'], { description: 'env: an owner named in ADMIN_EMAILS, which the API cannot change or remove.' }),
  createdAt: Timestamp,
  lastSignInAt: t.Nullable(Timestamp),
});

export const TeamList = t.Object({ members: t.Array(MemberRecord) });

export const TeamResponses = {
  list: { 200: TeamList, ...errors(401, 403) },
  invite: { 201: MemberRecord, ...errors(400, 401, 403, 409, 413) },
  change: { 200: MemberRecord, ...errors(400, 401, 403, 404, 409, 413) },
  remove: { 200: MemberRecord, ...errors(400, 401, 403, 404, 409) },
};
