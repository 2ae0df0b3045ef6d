// GET /embed?token=…: the embedded referral page, for an iframe in the operator's own app (customer
// referral programs). One partner's view, from a signed one-hour token: their link with Copy and a
// QR code, clicks, conversions, earnings and where payouts go, in the program's branding. No admin
// data, no navigation, no session. Framed only by EMBED_ORIGINS (CSP frame-ancestors).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { loadBrand } from '../mail/brand';
import { embedSecret, verifyEmbedToken } from '../modules/embed/tokens';
import { qrColor, renderQr, QR_SIZE } from '../modules/links/qr';
import { findPartner, type Partner } from '../modules/partners/service';
import { partnerBalances, partnerPeriodTotals, type PartnerBalance } from '../modules/reports/portal';
import { pageBrand, type PageBrand } from './brand';
import { Layout } from './layout';
import { PAGE_CSP, render } from './render';
import { formatMoney } from './ui';

/** The page CSP with the framing the operator allows: EMBED_ORIGINS, or no one. */
export function embedCsp(origins: string[]): string {
  return PAGE_CSP.replace("frame-ancestors 'none'", `frame-ancestors ${origins.length > 0 ? origins.join(' ') : "'none'"}`);
}

type EmbedView = {
  brand: PageBrand;
  partner: Pick<Partner, 'name' | 'email' | 'payoutEmail' | 'billingConnectAccountId'>;
  link: string | null;
  qr: string | null;
  clicks: number;
  conversions: number;
  balances: PartnerBalance[];
};

/** Where the partner's payouts go, in one sentence, from what the partner record holds. */
export function payoutMethodText(p: EmbedView['partner']): string {
  if (p.billingConnectAccountId) return `Paid to your connected account ${p.billingConnectAccountId}.`;
  return `Paid to ${p.payoutEmail ?? p.email}.`;
}

function EmbedPage(props: EmbedView): JSX.Element {
  const earned = props.balances.filter((b) => b.pending + b.approved + b.paid > 0n);
  return (
    <Layout title="Refer and earn" brand={props.brand} scripts={['/assets/copy.js']}>
      <div class="embed" id="embed">
        <h1 safe>{`Share ${props.brand.name}, earn rewards`}</h1>
        {props.link ? (
          <section class="embed-link" aria-labelledby="link-title">
            <h2 id="link-title">Your link</h2>
            <div class="copy">
              <label class="vh" for="embed-url">
                Your referral link
              </label>
              <input id="embed-url" value={props.link} readonly />
              <button type="button" data-copy="#embed-url">
                Copy
              </button>
            </div>
            {props.qr ? (
              <p class="embed-qr">
                <img src={props.qr} width="160" height="160" alt="QR code of your referral link" />
                <a href={props.qr} download="referral-qr.svg">
                  Download QR code
                </a>
              </p>
            ) : (
              ''
            )}
          </section>
        ) : (
          <p class="empty">Your referral link is not ready yet; ask the program to create one.</p>
        )}
        <ul class="cards kpis" aria-label="Your results">
          <li class="kpi" id="embed-clicks">
            <span class="label">Clicks</span>
            <span class="value" safe>{props.clicks.toLocaleString('en-US')}</span>
          </li>
          <li class="kpi" id="embed-conversions">
            <span class="label">Conversions</span>
            <span class="value" safe>{props.conversions.toLocaleString('en-US')}</span>
          </li>
          <li class="kpi" id="embed-earnings">
            <span class="label">Earnings</span>
            <span class="value" safe>{earned.length === 0 ? '0' : earned.map((b) => formatMoney(b.pending + b.approved + b.paid, b.currency)).join(' · ')}</span>
          </li>
        </ul>
        {earned.length > 0 ? (
          <p class="note" id="embed-earnings-detail" safe>
            {earned.map((b) => `${formatMoney(b.paid, b.currency)} paid, ${formatMoney(b.approved, b.currency)} approved, ${formatMoney(b.pending, b.currency)} pending`).join('; ')}
          </p>
        ) : (
          ''
        )}
        <p class="embed-payout" id="embed-payout" safe>
          {payoutMethodText(props.partner)}
        </p>
      </div>
    </Layout>
  );
}

const REFUSALS = {
  missing: { status: 400, title: 'No referral page here', text: 'This address has no token. Open the page from the app again.' },
  malformed: { status: 401, title: 'This link is not valid', text: 'The page could not be opened. Open it from the app again.' },
  forged: { status: 401, title: 'This link is not valid', text: 'The page could not be opened. Open it from the app again.' },
  expired: { status: 401, title: 'This page has expired', text: 'For your security it is open for one hour. Reload the app to see it again.' },
  unavailable: { status: 403, title: 'Referral page unavailable', text: 'Your referral account is not active. Contact the program for help.' },
} as const;

function RefusedEmbed(props: { brand: PageBrand; reason: keyof typeof REFUSALS }): JSX.Element {
  const r = REFUSALS[props.reason];
  return (
    <Layout title={r.title} brand={props.brand}>
      <div class="embed narrow" id="embed-refused" data-reason={props.reason}>
        <h1>{r.title}</h1>
        <p>{r.text}</p>
      </div>
    </Layout>
  );
}

async function loadView(ctx: AppContext, partner: Partner, brand: PageBrand, brandColor: string | null): Promise<EmbedView> {
  const [newest] = await ctx.sql<{ slug: string }[]>`select slug from links where partner_id = ${partner.id} order by id desc limit 1`;
  const link = newest ? `${ctx.config.baseUrl}/r/${newest.slug}` : null;
  const qr = link ? `data:image/svg+xml;base64,${Buffer.from((await renderQr(link, 'svg', QR_SIZE.min, qrColor(brandColor))) as string).toString('base64')}` : null;
  const [balances, totals] = await Promise.all([
    partnerBalances(ctx.sql, partner.id),
    partnerPeriodTotals(ctx.sql, { partnerId: partner.id, currency: 'USD', start: new Date(0), end: new Date(Date.now() + 1000), previous: null }),
  ]);
  return { brand, partner, link, qr, clicks: totals.current.clicks, conversions: totals.current.conversions, balances };
}

export function embedRoutes(ctx: AppContext) {
  return new Elysia({ detail: { hide: true } }).get('/embed', async ({ request }) => {
    const settings = await loadBrand(ctx.sql, ctx.config.baseUrl);
    const brand = pageBrand(settings);
    const headers = { 'content-security-policy': embedCsp(ctx.config.embedOrigins), 'referrer-policy': 'no-referrer' };
    const refuse = (reason: keyof typeof REFUSALS) => render(<RefusedEmbed brand={brand} reason={reason} />, { status: REFUSALS[reason].status, headers });
    const token = new URL(request.url).searchParams.get('token');
    if (!token) return refuse('missing');
    const check = verifyEmbedToken(await embedSecret(ctx.sql), token);
    if (!check.ok) return refuse(check.reason);
    const partner = await findPartner(ctx.sql, check.partnerId);
    if (!partner || partner.status !== 'active') return refuse('unavailable');
    return render(<EmbedPage {...await loadView(ctx, partner, brand, settings.brandColor)} />, { headers });
  });
}
