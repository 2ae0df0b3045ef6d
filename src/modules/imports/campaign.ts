// Which campaign an import's partners join and its links and commissions belong to.
import type { Tx } from '../../db';
import { invalidField } from '../../lib/errors';
import { findCampaign } from '../campaigns/service';

/** The campaign named, or the program's only current campaign; else a 400 on `campaignId`. */
export async function importCampaign(sql: Tx, campaignId: string | undefined): Promise<string> {
  if (campaignId !== undefined) {
    const campaign = await findCampaign(sql, campaignId);
    if (!campaign) throw invalidField('campaignId', `no campaign ${campaignId}`);
    if (campaign.archivedAt) throw invalidField('campaignId', 'the campaign is archived; unarchive it or name another');
    return campaign.id;
  }
  const rows = await sql<{ id: string }[]>`select id from campaigns where archived_at is null order by id limit 2`;
  if (rows.length === 1) return rows[0]!.id;
  throw invalidField(
    'campaignId',
    rows.length === 0 ? 'the program has no campaign yet: create one for the imported partners first' : 'required: the program has several campaigns; name the one the imported partners join',
  );
}
