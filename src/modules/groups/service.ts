// Partner groups: their rules and holdback, and which partners belong to them.
import type { JSONValue } from 'postgres';
import type { Sql, Tx } from '../../db';
import { AppError, notFound, type FieldProblem } from '../../lib/errors';
import { isId, newId } from '../../lib/ids';
import { isKnownCurrency } from '../../lib/money';
import { iso } from '../../lib/time';
import { ruleProblems, type GroupRule } from '../campaigns/rules';
import { amountProblems, throwProblems } from '../campaigns/service';
import { changesOf, record } from '../audit/service';
import type { GroupRecord } from './model';

export type Group = typeof GroupRecord.static;

type GroupRow = { id: string; name: string; rules: GroupRule[] | null; holdback_days: number | null; created_at: Date };

const COLUMNS = (sql: Tx) => sql`id, name, rules, holdback_days, created_at`;

function toGroup(row: GroupRow): Group {
  return { id: row.id, name: row.name, rules: row.rules ?? [], holdbackDays: row.holdback_days, createdAt: iso(row.created_at)! };
}

/** Rule shapes, and for rules naming a campaign: that it exists and the amounts fit its currency. */
async function checkRules(sql: Tx, rules: GroupRule[]): Promise<void> {
  const problems: FieldProblem[] = ruleProblems(rules, 'rules');
  const named = [...new Set(rules.flatMap((r) => (r.campaignId === undefined ? [] : [r.campaignId])))];
  const currencies = new Map<string, string>();
  if (named.length > 0) {
    const rows = await sql<{ id: string; currency: string }[]>`select id, currency from campaigns where id = any(${named.filter((id) => isId('campaign', id))})`;
    for (const r of rows) currencies.set(r.id, r.currency);
  }
  rules.forEach((rule, i) => {
    if (rule.campaignId === undefined) return;
    const currency = currencies.get(rule.campaignId);
    if (currency === undefined) problems.push({ field: `rules.${i}.campaignId`, message: `unknown campaign ${rule.campaignId}` });
    else if (isKnownCurrency(currency)) problems.push(...amountProblems(rules, currency, 'rules', (k) => k === i));
  });
  throwProblems(problems);
}

export async function createGroup(db: Sql, input: { name: string; rules?: GroupRule[]; holdbackDays?: number | null }): Promise<Group> {
  await checkRules(db, input.rules ?? []);
  return db.begin(async (sql) => {
    const [row] = await sql<GroupRow[]>`
      insert into partner_groups (id, name, rules, holdback_days)
      values (${newId('group')}, ${input.name.trim()}, ${sql.json((input.rules ?? []) as JSONValue)}, ${input.holdbackDays ?? null})
      returning ${COLUMNS(sql)}`;
    const group = toGroup(row!);
    await record(sql, { action: 'group.created', target: { type: 'group', id: group.id }, changes: changesOf(null, group, GROUP_AUDITED) });
    return group;
  });
}

/** A group's fields the audit log compares. */
const GROUP_AUDITED = ['name', 'rules', 'holdbackDays'];

export async function findGroup(sql: Tx, id: string): Promise<Group | null> {
  if (!isId('group', id)) return null;
  const [row] = await sql<GroupRow[]>`select ${COLUMNS(sql)} from partner_groups where id = ${id}`;
  return row ? toGroup(row) : null;
}

export async function getGroup(sql: Tx, id: string): Promise<Group> {
  const group = await findGroup(sql, id);
  if (!group) throw notFound('group');
  return group;
}

/** Newest first. */
export async function listGroups(sql: Sql, filter: { limit: number; cursor?: string }): Promise<Group[]> {
  const rows = await sql<GroupRow[]>`
    select ${COLUMNS(sql)} from partner_groups
    where true ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
    order by id desc
    limit ${filter.limit + 1}`;
  return rows.map(toGroup);
}

export async function updateGroup(
  sql: Sql,
  id: string,
  input: { name?: string; rules?: GroupRule[]; holdbackDays?: number | null },
): Promise<Group> {
  return sql.begin(async (tx) => {
    const current = await findGroup(tx, id);
    if (!current) throw notFound('group');
    if (input.rules !== undefined) await checkRules(tx, input.rules);
    const [row] = await tx<GroupRow[]>`
      update partner_groups set
        name = ${input.name?.trim() ?? current.name},
        rules = ${tx.json((input.rules ?? current.rules) as JSONValue)},
        holdback_days = ${input.holdbackDays === undefined ? current.holdbackDays : input.holdbackDays},
        updated_at = now()
      where id = ${id}
      returning ${COLUMNS(tx)}`;
    const group = toGroup(row!);
    await record(tx, { action: 'group.updated', target: { type: 'group', id }, changes: changesOf(current, group, GROUP_AUDITED), skipIfUnchanged: true });
    return group;
  });
}

/** A group id given in a request: null clears, an unknown id is a 400 naming `field`. */
export async function checkGroupId(sql: Tx, groupId: string | null, field = 'groupId'): Promise<void> {
  if (groupId === null) return;
  if (!(await findGroup(sql, groupId))) {
    throw new AppError('invalid_body', `${field}: unknown group ${groupId}`, [{ field, message: `unknown group ${groupId}` }]);
  }
}

/** Moves partners into a group (null: out of any group); unknown partner ids are a 400. Answers how many moved. */
export async function movePartnersToGroup(sql: Sql, partnerIds: string[], groupId: string | null): Promise<number> {
  const unique = [...new Set(partnerIds)];
  return sql.begin(async (tx) => {
    await checkGroupId(tx, groupId);
    if (unique.length === 0) return 0;
    const was = await tx<{ id: string; group_id: string | null }[]>`select id, group_id from partners where id = any(${unique}) order by id for update`;
    const rows = await tx<{ id: string }[]>`update partners set group_id = ${groupId}, updated_at = now() where id = any(${unique}) returning id`;
    for (const partner of was) {
      const changes = changesOf({ groupId: partner.group_id }, { groupId });
      await record(tx, { action: 'partner.updated', target: { type: 'partner', id: partner.id }, changes, skipIfUnchanged: true });
    }
    if (rows.length !== unique.length) {
      const found = new Set(rows.map((r) => r.id));
      const missing = unique.filter((id) => !found.has(id));
      throw new AppError('invalid_body', `partnerIds: unknown partner ${missing.join(', ')}`, missing.map(() => ({ field: 'partnerIds', message: 'unknown partner' })));
    }
    return rows.length;
  });
}

/** How many partners each group has (for the admin's list). */
export async function groupMemberCounts(sql: Sql, groupIds: string[]): Promise<Map<string, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = await sql<{ group_id: string; n: number }[]>`
    select group_id, count(*)::int as n from partners where group_id = any(${groupIds}) group by group_id`;
  return new Map(rows.map((r) => [r.group_id, r.n]));
}
