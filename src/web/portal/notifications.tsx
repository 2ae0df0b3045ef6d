// The portal's email settings: one switch per kind of email (the partner's `notifications`, as PATCH
// /partners/:id sets them). Unsubscribe links in the emails turn the same switches off.
import { Elysia } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { refuseCrossSite } from '../../modules/auth/plugin';
import { updatePartner } from '../../modules/partners/service';
import { NOTIFICATION_KINDS, type NotificationKind } from '../../mail/template';
import { refuseBadToken } from '../csrf';
import { CsrfInput, formFields } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import { guardPartner, type PartnerPage } from '../session';
import { RefusedPage, RevokedPage } from './pages';
import { PortalLayout } from './shell';

const PATH = '/portal/notifications';

const KINDS: Record<NotificationKind, { label: string; hint: string }> = {
  commissionAccrued: { label: 'New commissions', hint: 'An email for each sale you refer, with what you earned.' },
  commissionApproved: { label: 'Approved commissions', hint: 'An email when a commission clears the holdback and is approved.' },
  payoutSent: { label: 'Payouts', hint: 'An email when we send you money, listing the commissions it pays.' },
  monthlyStatement: { label: 'Monthly statement', hint: "Early each month: what you earned, what was approved and paid last month." },
};

export function notificationRoutes(ctx: AppContext) {
  const withPartner = async (request: Request, view: (page: PartnerPage) => Response | Promise<Response>) => {
    const guard = await guardPartner(ctx, request);
    if (guard.kind === 'signed-out') return seeOther('/portal/sign-in');
    if (guard.kind === 'revoked') return render(<RevokedPage reason={guard.reason} />, { status: 403 });
    return view(guard.page);
  };
  return new Elysia({ detail: { hide: true } })
    .get(PATH, ({ request, query }) =>
      withPartner(request, (page) => render(<NotificationsPage page={page} saved={(query as Record<string, unknown>).done === 'saved'} />)),
    )
    .post(PATH, ({ request, body }) =>
      withPartner(request, async (page) => {
        const form = formFields(body);
        try {
          refuseCrossSite(ctx, request);
          refuseBadToken(page.sessionToken, form);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return render(<RefusedPage message={error.message} back={PATH} />, { status: error.status });
        }
        // a checkbox is sent only when ticked: every kind not in the form is off
        const notifications = Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, form[kind] === 'on']));
        await updatePartner(ctx.sql, page.partner.id, { notifications });
        return seeOther(`${PATH}?done=saved`);
      }),
    );
}

function NotificationsPage(props: { page: PartnerPage; saved: boolean }) {
  const on = props.page.partner.notifications;
  return (
    <PortalLayout page={props.page} title="Email settings" current={PATH}>
      <div class="narrow">
        <h1>Email settings</h1>
        {props.saved && <Notice kind="ok" text="Saved. We will email you only about what is ticked." />}
        <p safe>{`Choose what we email you about at ${props.page.partner.email}. Sign-in links and account notices always come.`}</p>
        <form method="post" action={PATH} id="notifications">
          <CsrfInput token={props.page.csrf} />
          <ul class="switches">
            {NOTIFICATION_KINDS.map((kind) => (
              <li>
                <label>
                  <input type="checkbox" name={kind} checked={on[kind]} />
                  <span>
                    <strong safe>{KINDS[kind].label}</strong>
                    <small safe>{KINDS[kind].hint}</small>
                  </span>
                </label>
              </li>
            ))}
          </ul>
          <button type="submit">Save email settings</button>
        </form>
      </div>
    </PortalLayout>
  );
}
