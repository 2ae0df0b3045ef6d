// Partner group routes: create, list, read, update (served unprefixed and under /v1).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { paginate, readPage } from '../lib/http';
import { rejectUnstorable } from '../lib/storable';
import { authPlugin } from '../modules/auth/plugin';
import { CreateGroupBody, GroupParams, GroupResponses, ListGroupsQuery, UpdateGroupBody } from '../modules/groups/model';
import { createGroup, getGroup, listGroups, updateGroup } from '../modules/groups/service';

export function groupRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Groups'] })
    .use(authPlugin(ctx))
    .onBeforeHandle(rejectUnstorable)
    .post(
      '/groups',
      async ({ body, set }) => {
        set.status = 201;
        return createGroup(ctx.sql, body);
      },
      { auth: 'campaigns:write', body: CreateGroupBody, response: GroupResponses.create, detail: { summary: 'Create a partner group' } },
    )
    .get(
      '/groups',
      async ({ query }) => {
        const page = readPage(query, 'group');
        const { items, nextCursor } = paginate(await listGroups(ctx.sql, page), page.limit);
        return { groups: items, nextCursor };
      },
      { auth: 'campaigns:read', query: ListGroupsQuery, response: GroupResponses.list, detail: { summary: 'List partner groups' } },
    )
    .get('/groups/:id', ({ params }) => getGroup(ctx.sql, params.id), {
      auth: 'campaigns:read',
      params: GroupParams,
      response: GroupResponses.get,
      detail: { summary: 'Get a partner group' },
    })
    .patch('/groups/:id', ({ params, body }) => updateGroup(ctx.sql, params.id, body), {
      auth: 'campaigns:write',
      params: GroupParams,
      body: UpdateGroupBody,
      response: GroupResponses.update,
      detail: { summary: 'Update a partner group (name, rules, holdbackDays)' },
    });
}
