// The audit page's address and its filters, read from the query (who, what, which object, date
// range) that the list, its "Older entries" link and the CSV share. A malformed filter is an error
// beside its field, and the list is not read.
import { t } from 'elysia';
import { AppError } from '../../../lib/errors';
import { isId } from '../../../lib/ids';
import { readAuditFilter, type AuditFilter } from '../../../modules/audit/list';
import { ACTOR_TYPES } from '../../../modules/audit/model';
import type { FormErrors } from '../../forms';

export const PAGE_SIZE = 50;

/** The kinds of object the log names (the "which object" choice); one found in the query is added. */
export const TARGET_TYPES = ['partner', 'campaign', 'group', 'commission', 'payout', 'code', 'link', 'resource', 'webhook_endpoint', 'api_key', 'settings'];

const text = (max: number) => t.Optional(t.String({ maxLength: max }));
export const AuditQuery = t.Object({
  actor: text(320),
  actorType: text(20),
  action: text(64),
  targetType: text(40),
  targetId: text(200),
  from: text(40),
  to: text(40),
  cursor: text(64),
});

/** The filters as typed (trimmed, empty ones left out): what links and the form keep. */
export type View = { actor?: string; actorType?: string; action?: string; targetType?: string; targetId?: string; from?: string; to?: string };

export function viewOf(query: Record<string, string | undefined>): View {
  const keep = (name: keyof View) => query[name]?.trim() || undefined;
  return { actor: keep('actor'), actorType: keep('actorType'), action: keep('action'), targetType: keep('targetType'), targetId: keep('targetId'), from: keep('from'), to: keep('to') };
}

/** The view as the list's filter, or the errors of its fields. */
export function readView(view: View, cursor: string | undefined): { filter?: AuditFilter & { cursor?: string }; errors: FormErrors } {
  const errors: FormErrors = {};
  if (view.actorType && !(ACTOR_TYPES as readonly string[]).includes(view.actorType)) errors.actorType = `one of ${ACTOR_TYPES.join(', ')}`;
  if (view.action && !/^[a-z_]+(\.[a-z_]*)?$/.test(view.action)) errors.action = 'an action (partner.revoked) or a noun and a dot (partner.)';
  if (view.targetType && !/^[a-z_]{1,40}$/.test(view.targetType)) errors.targetType = 'a kind of object: partner, payout...';
  if (cursor && !isId('audit', cursor)) errors._form = 'That page link is not one of this list: start again from the newest entries.';
  let filter: AuditFilter | undefined;
  try {
    filter = readAuditFilter({ actor: view.actor, action: view.action, targetId: view.targetId, from: view.from, to: view.to });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    for (const detail of (error.details ?? []) as { field: string; message: string }[]) errors[detail.field] = detail.message === 'must be after from' ? 'on or after the first day' : 'a date: YYYY-MM-DD';
  }
  if (Object.keys(errors).length > 0 || !filter) return { errors };
  return { filter: { ...filter, actorType: view.actorType as AuditFilter['actorType'], targetType: view.targetType, cursor }, errors };
}
