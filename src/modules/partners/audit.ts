// A partner's entries in the audit log: what of a partner is compared before and after a change.
import type { Transaction } from '../../db';
import type { Actor } from '../../lib/audit-context';
import { changesOf, record } from '../audit/service';
import type { PartnerRecord } from './model';

type Partner = typeof PartnerRecord.static;

/** The fields a change to a partner is told by (dates follow status; applicationAnswers are the applicant's own words, kept out). */
const AUDITED = ['email', 'name', 'status', 'campaignIds', 'groupId', 'referredBy', 'payoutEmail', 'billingConnectAccountId', 'metadata', 'notifications', 'revokeReason', 'declineReason'];

/**
 * Records `partner.<verb>` for the fields of the partner that changed (all of them when it was
 * created); an update that changed nothing writes nothing.
 */
export async function recordPartnerChange(tx: Transaction, verb: string, before: Partner | null, after: Partner, actor?: Actor): Promise<void> {
  const changes = changesOf(before as Record<string, unknown> | null, after as Record<string, unknown>, AUDITED);
  await record(tx, { action: `partner.${verb}`, target: { type: 'partner', id: after.id }, changes, actor, skipIfUnchanged: before !== null && verb === 'updated' });
}
