// Request and response schemas of the partner group API.
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { errors, listOf, PageQuery, Timestamp } from '../../lib/http';
import { GroupRules } from '../campaigns/rules';

const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const HoldbackDays = t.Nullable(t.Integer({ minimum: 0, maximum: 3650, description: "null: the campaign's holdback applies." }));

export const CreateGroupBody = t.Object({
  name: Name,
  rules: t.Optional(GroupRules),
  holdbackDays: t.Optional(HoldbackDays),
});

export const UpdateGroupBody = t.Object({
  name: t.Optional(Name),
  rules: t.Optional(GroupRules),
  holdbackDays: t.Optional(HoldbackDays),
});

export const ListGroupsQuery = t.Object({ ...PageQuery });

export const GroupParams = t.Object({ id: t.String({ maxLength: 64 }) });

/** A partner group: rules that win over the campaign's for its members (a snapshot still wins over them). */
export const GroupRecord = t.Object({
  id: t.String({ examples: ['grp_01jd8x0000000000000000000a'] }),
  name: t.String(),
  rules: GroupRules,
  holdbackDays: t.Nullable(Type.Integer({ minimum: 0, description: "null: the campaign's holdback applies." })),
  createdAt: Timestamp,
});

export const GroupList = listOf('groups', GroupRecord);

export const GroupResponses = {
  create: { 201: GroupRecord, ...errors(400, 401, 403, 413) },
  list: { 200: GroupList, ...errors(400, 401, 403) },
  get: { 200: GroupRecord, ...errors(400, 401, 403, 404) },
  update: { 200: GroupRecord, ...errors(400, 401, 403, 404, 413) },
};
