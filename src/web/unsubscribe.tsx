// One-click unsubscribe (RFC 8058). The signed token in the link is the only credential: GET shows a
// confirm page (mail scanners follow GET links, so GET changes nothing), POST turns the kind off. A
// mail client's one-click POST carries `List-Unsubscribe=One-Click`; the confirm page posts the same.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { loadBrand } from '../mail/brand';
import { readUnsubscribeToken } from '../mail/unsubscribe';
import type { NotificationKind } from '../mail/template';
import { findPartner, updatePartner } from '../modules/partners/service';
import { Layout, Notice } from './layout';
import { render } from './render';
import { pageBrand } from './brand';

const KIND_TEXT: Record<NotificationKind, string> = {
  commissionAccrued: 'emails about each commission you earn',
  commissionApproved: 'emails when a commission is approved',
  payoutSent: 'emails when a payout is sent',
  monthlyStatement: 'monthly statements',
};

const INVALID = 'This unsubscribe link is not valid. Copy the whole link from the email, or change your email settings in the partner portal.';

function wantsHtml(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}

export function unsubscribeRoutes(ctx: AppContext) {
  const read = async (token: unknown) => {
    const settings = await loadBrand(ctx.sql, ctx.config.baseUrl);
    const found = readUnsubscribeToken(settings.mailSecret, token);
    if (!found) return { settings, found: null, partner: null };
    const partner = await findPartner(ctx.sql, found.partnerId);
    return { settings, found: partner ? found : null, partner: partner ?? null };
  };

  const page = (brand: Awaited<ReturnType<typeof loadBrand>>, status: number, body: JSX.Element) =>
    render(
      <Layout title="Email settings" brand={pageBrand(brand)}>
        <div class="narrow" id="unsubscribe">
          {body}
        </div>
      </Layout>,
      { status },
    );

  return new Elysia({ detail: { hide: true } })
    .get('/unsubscribe', async ({ query, request }) => {
      const token = (query as Record<string, unknown>).token;
      const { settings, found, partner } = await read(token);
      if (!found || !partner) {
        if (!wantsHtml(request)) return Response.json({ code: 'invalid_query', message: `token: ${INVALID}` }, { status: 400 });
        return page(settings, 400, <Notice kind="error" text={INVALID} />);
      }
      return page(
        settings,
        200,
        <>
          <h1>Unsubscribe</h1>
          <p safe>{`Stop ${KIND_TEXT[found.kind]} from ${settings.programName} to ${partner.email}?`}</p>
          <form method="post" action={`/unsubscribe?token=${encodeURIComponent(String(token))}`}>
            <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            <button type="submit">Unsubscribe</button>
          </form>
          <p class="muted">Other emails are not affected. You can turn these back on in the partner portal under Email settings.</p>
        </>,
      );
    })
    .post('/unsubscribe', async ({ query, request }) => {
      const token = (query as Record<string, unknown>).token;
      const { settings, found, partner } = await read(token);
      if (!found || !partner) {
        if (!wantsHtml(request)) return Response.json({ code: 'invalid_query', message: `token: ${INVALID}` }, { status: 400 });
        return page(settings, 400, <Notice kind="error" text={INVALID} />);
      }
      // the same switch the portal's email settings and PATCH /partners/:id turn
      await updatePartner(ctx.sql, found.partnerId, { notifications: { [found.kind]: false } });
      if (!wantsHtml(request)) return Response.json({ ok: true, unsubscribed: found.kind });
      return page(
        settings,
        200,
        <>
          <h1>You are unsubscribed</h1>
          <Notice kind="ok" text={`${partner.email} will get no more ${KIND_TEXT[found.kind]}.`} />
          <p class="muted">Changed your mind? Sign in to the partner portal and turn them back on under Email settings.</p>
          <p>
            <a href="/portal/notifications">Email settings</a>
          </p>
        </>,
      );
    });
}
