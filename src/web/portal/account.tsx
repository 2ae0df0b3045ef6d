// The partner portal's records and account: recruits, commissions, payouts, the profile, sign-out.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { readCookie } from '../../modules/auth/plugin';
import { endSession, SESSION_COOKIE, sessionCookie } from '../../modules/auth/sessions';
import { Name } from '../../lib/fields';
import { getPartner, updateOwnProfile } from '../../modules/partners/service';
import { campaignNames, partnerCommissionPage, partnerPayoutPage } from '../../modules/reports/portal';
import { signupOpen } from '../../workflows/sign-in';
import { formErrors, schemaErrors } from '../forms';
import { render, seeOther } from '../render';
import { parsePage } from '../ui';
import { CommissionsPage, LIST_SIZE, PayoutsPage } from './pages';
import { ProfilePage, type ProfileValues } from './profile';
import { RecruitsPage } from './rewards';
import { recruitsOf } from '../../modules/reports/rewards';
import { PayoutEmail, queryOf, SIGN_IN, type PortalKit } from './kit';
import { heldCampaigns, payoutOutlook, payoutTerms } from './views';

export function accountRoutes(ctx: AppContext, kit: PortalKit) {
  return new Elysia({ detail: { hide: true } })
    .get('/portal/recruits', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        const partnerId = page.partner.id;
        const [campaigns, open, mine] = await Promise.all([heldCampaigns(ctx, partnerId), signupOpen(ctx), recruitsOf(ctx.sql, { recruiterId: partnerId, limit: 100 })]);
        const terms = campaigns.flatMap((c) => (c.recruiterPercent ? [{ campaignId: c.id, name: c.name, percent: c.recruiterPercent }] : []));
        const link = `${ctx.config.baseUrl}/portal/sign-up?ref=${encodeURIComponent(partnerId)}`;
        return render(<RecruitsPage page={page} link={link} signupOpen={open} terms={terms} recruits={mine.recruits} total={mine.total} />);
      }),
    )
    .get('/portal/commissions', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        const p = parsePage(queryOf(request), LIST_SIZE);
        const [{ items, total }, outlook] = await Promise.all([
          partnerCommissionPage(ctx.sql, { partnerId: page.partner.id, offset: p.offset, limit: p.limit }),
          payoutOutlook(ctx, page.partner.id),
        ]);
        const names = await campaignNames(ctx.sql, items.map((c) => c.campaignId));
        return render(<CommissionsPage page={page} commissions={items} total={total} pageNumber={p.page} campaignNames={names} outlook={outlook.outlook} />);
      }),
    )
    .get('/portal/payouts', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        const p = parsePage(queryOf(request), LIST_SIZE);
        const [{ items, total }, outlook, campaigns] = await Promise.all([
          partnerPayoutPage(ctx.sql, { partnerId: page.partner.id, offset: p.offset, limit: p.limit }),
          payoutOutlook(ctx, page.partner.id),
          heldCampaigns(ctx, page.partner.id),
        ]);
        return render(<PayoutsPage page={page} payouts={items} total={total} pageNumber={p.page} outlook={outlook.outlook} payoutTerms={payoutTerms(ctx, campaigns)} />);
      }),
    )
    .get('/portal/profile', ({ request }) =>
      kit.partnerPage(request, async (page) => {
        const saved = new URL(request.url).searchParams.get('saved') === '1';
        return render(<ProfilePage page={page} partner={await getPartner(ctx.sql, page.partner.id)} saved={saved} />);
      }),
    )
    .post('/portal/profile', ({ request, body }) =>
      kit.partnerForm(request, body, '/portal/profile', async (page, form) => {
        const partner = await getPartner(ctx.sql, page.partner.id);
        const values: ProfileValues = {
          name: (form.name ?? '').trim(),
          payoutEmail: (form.payoutEmail ?? '').trim(),
          billingConnectAccountId: (form.billingConnectAccountId ?? '').trim(),
        };
        const errors = schemaErrors(t.Object({ name: Name, payoutEmail: PayoutEmail }), { name: values.name, payoutEmail: values.payoutEmail });
        if (errors.payoutEmail) errors.payoutEmail = 'must be an email address, or empty';
        const account = values.billingConnectAccountId ?? '';
        if (partner.billingConnectAccountId === null && account !== '' && !/^acct_[A-Za-z0-9]{1,250}$/.test(account)) {
          errors.billingConnectAccountId = 'must look like acct_ followed by letters and digits';
        }
        if (Object.keys(errors).length > 0) return render(<ProfilePage page={page} partner={partner} values={values} errors={errors} />, { status: 400 });
        try {
          await updateOwnProfile(ctx.sql, page.partner.id, {
            name: values.name!,
            payoutEmail: values.payoutEmail === '' ? null : values.payoutEmail!,
            billingConnectAccountId: partner.billingConnectAccountId === null && account !== '' ? account : undefined,
          });
        } catch (error) {
          const problems = formErrors(error, ['name', 'payoutEmail', 'billingConnectAccountId']);
          if (!problems) throw error;
          return render(<ProfilePage page={page} partner={partner} values={values} errors={problems} />, { status: (error as AppError).status });
        }
        return seeOther('/portal/profile?saved=1');
      }),
    )
    .post('/portal/sign-out', ({ request, body }) =>
      kit.partnerForm(request, body, '/portal', async () => {
        const token = readCookie(request, SESSION_COOKIE);
        if (token) await endSession(ctx.sql, token);
        return seeOther(SIGN_IN, { 'set-cookie': sessionCookie(ctx.config.baseUrl, '', 0) });
      }),
    );
}
