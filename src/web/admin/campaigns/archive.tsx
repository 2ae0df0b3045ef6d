// Archive or unarchive a campaign: the confirmation's words, and its no-script page.
import type { AppContext } from '../../../context';
import type { Campaign } from '../../../modules/campaigns/service';
import { ConfirmPanel } from '../../confirm';
import { render } from '../../render';
import type { AdminPage } from '../../session';
import { AdminLayout } from '../kit';
import { archivePath, campaignPath, LIST } from './shared';

/** Archive (or unarchive) in words, for the dialog and the no-script confirm page. */
export function archiveConfirm(c: Campaign, csrf: string) {
  return c.archivedAt
    ? {
        title: `Unarchive ${c.name}`,
        action: archivePath(c.id),
        button: 'Unarchive campaign',
        csrf,
        children: <p>Partners holding it can create links for it again. Its existing links kept working while it was archived.</p>,
      }
    : {
        title: `Archive ${c.name}`,
        action: archivePath(c.id),
        button: 'Archive campaign',
        csrf,
        danger: true,
        children: (
          <p>
            Partners can no longer create links for it. Existing links keep redirecting and earning commissions; you can unarchive it
            later.
          </p>
        ),
      };
}

/** The archive (or unarchive) confirmation as a page: no script, a direct visit, or an unconfirmed post. */
export const archivePage = (ctx: AppContext, page: AdminPage, campaign: Campaign) =>
  render(
    <AdminLayout page={page} title={campaign.name} current={LIST}>
      <ConfirmPanel {...archiveConfirm(campaign, page.csrf)} back={campaignPath(campaign.id)} />
    </AdminLayout>,
  );
