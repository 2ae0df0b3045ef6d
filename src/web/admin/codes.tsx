// Admin promotion codes: the codes section of a partner's page and of a campaign's page (each code
// with its customers, revenue and commissions), creating one, and archiving or unarchiving one
// behind a confirmation. The rules are the API's (modules/codes/service.ts).
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { findCampaign, listCampaigns, updateCampaign } from '../../modules/campaigns/service';
import { codeStats, createCode, findCode, listCodes, setCodeArchived, type CodeStats, type PromotionCode, type Sums } from '../../modules/codes/service';
import { codeChoices, partnerNames } from '../../modules/codes/choices';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CodeField, CsrfInput, Field, formErrors, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { Badge, EmptyState, formatMoney, NumHead, Trunc, type Tone } from '../ui';
import { AdminLayout, can, NotFoundPage, type AdminKit } from './kit';

/** Codes a page shows (newest first); more than that is rare for one partner or campaign. */
const SHOWN = 100;
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const DONE: Record<string, string> = {
  'code-created': 'Promotion code created: customers who use it at checkout now credit its partner.',
  'code-archived': 'Promotion code archived: it credits nobody until unarchived.',
  'code-unarchived': 'Promotion code is live again.',
  'stripe-coupon': 'Stripe coupon saved: it applies to codes created from now on.',
};

/** Where a code form or confirmation came from, and goes back to. */
type From = { kind: 'partner'; id: string } | { kind: 'campaign'; id: string };

const pageOf = (from: From) => `/admin/${from.kind === 'partner' ? 'partners' : 'campaigns'}/${encodeURIComponent(from.id)}`;
const archivePath = (code: PromotionCode, from: From) => `/admin/codes/${encodeURIComponent(code.id)}/archive?from=${from.kind}`;

/** The page a form names as its origin: only the code's own partner or campaign, never a free URL. */
function fromOf(kind: string | undefined, code: { partnerId: string; campaignId: string }): From {
  return kind === 'campaign' ? { kind: 'campaign', id: code.campaignId } : { kind: 'partner', id: code.partnerId };
}

export type CodeLine = PromotionCode & { partnerName: string; campaignName: string; currency: string; stats: CodeStats };

/**
 * What a codes section needs: the codes with their numbers, the choices of its create form, and on a
 * campaign's page with STRIPE_SECRET_KEY set, the Stripe coupon its new codes are created on.
 */
export type CodesData = { codes: CodeLine[]; choices: { value: string; label: string }[]; stripeCoupon?: { id: string | null } };

/**
 * The codes of one partner (the create form offers the live campaigns it holds) or of one campaign
 * (the form offers the partners holding it who are not revoked).
 */
export async function loadCodes(ctx: AppContext, filter: { partnerId: string } | { campaignId: string }): Promise<CodesData> {
  const rows = (await listCodes(ctx.sql, { limit: SHOWN, ...filter })).slice(0, SHOWN);
  const [stats, campaigns, partners, choices] = await Promise.all([
    codeStats(ctx.sql, rows.map((c) => c.id)),
    listCampaigns(ctx.sql, { limit: 500 }),
    partnerNames(ctx.sql, rows.map((c) => c.partnerId)),
    codeChoices(ctx.sql, filter),
  ]);
  const campaignById = new Map(campaigns.map((c) => [c.id, c]));
  const stripeCoupon = 'campaignId' in filter && ctx.config.stripeSecretKey ? { id: campaignById.get(filter.campaignId)?.stripeCouponId ?? null } : undefined;
  return {
    codes: rows.map((c) => ({
      ...c,
      partnerName: partners.get(c.partnerId) ?? c.partnerId,
      campaignName: campaignById.get(c.campaignId)?.name ?? c.campaignId,
      currency: campaignById.get(c.campaignId)?.currency ?? 'USD',
      stats: stats.get(c.id)!,
    })),
    choices: [...choices],
    stripeCoupon,
  };
}

function codeBadge(c: PromotionCode): { tone: Tone; label: string; title: string } {
  return c.archivedAt
    ? { tone: 'grey', label: 'Archived', title: `Archived on ${c.archivedAt.slice(0, 10)}: events naming it fall back to clicks` }
    : { tone: 'green', label: 'Active', title: "Active: a customer's first purchase with it credits the partner, and later ones follow" };
}

/** Money per currency in one cell ("12.00 USD, 3.00 EUR"); zero in the campaign's currency when none. */
const sums = (list: Sums, currency: string) => (list.length === 0 ? formatMoney(0n, currency) : list.map((s) => formatMoney(s.amount, s.currency)).join(', '));

function archiveConfirm(code: CodeLine, from: From, csrf: string) {
  return code.archivedAt
    ? {
        title: `Unarchive ${code.code}`,
        action: archivePath(code, from),
        button: 'Unarchive code',
        csrf,
        children: <p safe>{`Customers who use ${code.code} at checkout credit ${code.partnerName} again.`}</p>,
      }
    : {
        title: `Archive ${code.code}`,
        action: archivePath(code, from),
        button: 'Archive code',
        csrf,
        danger: true,
        children: (
          <p safe>
            {`New customers using ${code.code} no longer credit ${code.partnerName}; attribution falls back to their clicks. Customers it already brought stay with ${code.partnerName}. You can unarchive it later.`}
          </p>
        ),
      };
}

/** The codes section of a partner's page (`from.kind` partner) or a campaign's page. */
export function CodesSection(props: { page: AdminPage; from: From; data: CodesData; done?: string; values?: { code?: string; choice?: string }; errors?: FormErrors }) {
  const { from, data } = props;
  const onPartner = from.kind === 'partner';
  const done = props.done ? DONE[props.done] : undefined;
  // a role that may not hand out codes sees them and their numbers, not the buttons and forms
  const write = can(props.page, 'POST', '/admin/codes');
  return (
    <section id="codes" aria-labelledby="codes-title">
      <h2 id="codes-title">Promotion codes</h2>
      {done ? <Notice kind="ok" text={done} /> : ''}
      <p class="caption">
        A code credits its partner when a customer uses it on their first attributed purchase, even with no click; that customer stays with the partner
        afterwards. Numbers are all time.
      </p>
      {data.codes.length === 0 ? (
        <EmptyState
          title="No promotion codes yet"
          text={onPartner ? 'Give this partner a code to read out in podcasts, videos or print.' : 'Give a partner of this campaign a code for its audience.'}
        />
      ) : (
        <div class="table-wrap">
          <table id="codes-table" class="stack">
            <caption class="vh">Promotion codes with their customers, revenue and commissions, all time</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">{onPartner ? 'Campaign' : 'Partner'}</th>
                <th scope="col">Status</th>
                <NumHead label="Customers" title="Customers whose first attributed purchase used the code" />
                <NumHead label="Sales" title="Sales credited through the code (a customer's renewals included)" />
                <NumHead label="Revenue" />
                <NumHead label="Commissions" title="Reversed commissions left out" />
                {write && (
                  <th scope="col">
                    <span class="vh">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {data.codes.map((c) => (
                <tr data-code={c.code}>
                  <td class="lead">
                    <code class="promo-code" safe>
                      {c.code}
                    </code>
                  </td>
                  <td data-label={onPartner ? 'Campaign' : 'Partner'}>
                    {onPartner ? (
                      <Trunc text={c.campaignName} href={`/admin/campaigns/${encodeURIComponent(c.campaignId)}`} />
                    ) : (
                      <Trunc text={c.partnerName} href={`/admin/partners/${encodeURIComponent(c.partnerId)}`} />
                    )}
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...codeBadge(c)} />
                  </td>
                  <td class="num" data-label="Customers" data-stat="customers" safe>
                    {c.stats.customers.toLocaleString('en-US')}
                  </td>
                  <td class="num" data-label="Sales" data-stat="sales" safe>
                    {c.stats.conversions.toLocaleString('en-US')}
                  </td>
                  {/* one headline amount per card on phones (the commissions); revenue is a labelled line */}
                  <td class="num" data-label="Revenue" data-stat="revenue" safe>
                    {sums(c.stats.revenue, c.currency)}
                  </td>
                  <td class="num money" data-label="Commissions" data-stat="commissions" safe>
                    {sums(c.stats.earnings, c.currency)}
                  </td>
                  {write && (
                    <td class="row-actions">
                      <ConfirmTrigger
                        href={archivePath(c, from)}
                        dialog={`code-dialog-${c.id}`}
                        label={c.archivedAt ? 'Unarchive…' : 'Archive…'}
                        title={c.archivedAt ? `Unarchive ${c.code}` : `Archive ${c.code}`}
                        secondary
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {write && data.codes.map((c) => <ConfirmDialog id={`code-dialog-${c.id}`} {...archiveConfirm(c, from, props.page.csrf)} />)}
      {write && <CodeForm page={props.page} from={from} choices={data.choices} values={props.values} errors={props.errors} />}
      {write && data.stripeCoupon ? <StripeCouponForm page={props.page} campaignId={from.id} couponId={data.stripeCoupon.id} /> : ''}
    </section>
  );
}

/** Create a code: the code, and the campaign (on a partner's page) or the partner (on a campaign's). */
function CodeForm(props: {
  page: AdminPage;
  from: From;
  choices: { value: string; label: string }[];
  values?: { code?: string; choice?: string };
  errors?: FormErrors;
  /** On a page of its own the page title names the form. */
  alone?: boolean;
}) {
  const onPartner = props.from.kind === 'partner';
  const errors = props.errors ?? {};
  if (props.choices.length === 0) {
    return <p class="empty">{onPartner ? 'This partner holds no live campaign, so it cannot get a code.' : 'No partner holds this campaign, so no code can be made for it.'}</p>;
  }
  return (
    <form method="post" action="/admin/codes" class="code-form" aria-labelledby={props.alone ? 'page-title' : 'code-form-title'} novalidate>
      {props.alone ? (
        ''
      ) : (
        <h3 id="code-form-title" class="sub">
          New promotion code
        </h3>
      )}
      {errors._form ? <Notice kind="error" text={errors._form} /> : ''}
      <CsrfInput token={props.page.csrf} />
      <input type="hidden" name="from" value={props.from.kind} />
      <input type="hidden" name={onPartner ? 'partnerId' : 'campaignId'} value={props.from.id} />
      <div class="code-form-row">
        <CodeField value={props.values?.code} error={errors.code} />
        <SelectField
          name={onPartner ? 'campaignId' : 'partnerId'}
          label={onPartner ? 'Campaign' : 'Partner'}
          options={props.choices}
          value={props.values?.choice}
          error={onPartner ? errors.campaignId : errors.partnerId}
        />
        <div class="actions">
          <button type="submit">Create code</button>
        </div>
      </div>
    </form>
  );
}

/** The Stripe coupon new codes of a campaign are created on (with STRIPE_SECRET_KEY set). */
function StripeCouponForm(props: { page: AdminPage; campaignId: string; couponId: string | null; error?: string; value?: string }) {
  return (
    <form method="post" action="/admin/codes/stripe-coupon" class="code-form" aria-labelledby="stripe-coupon-title" novalidate>
      <h3 id="stripe-coupon-title" class="sub">
        Sync to Stripe
      </h3>
      {props.couponId ? (
        <p class="caption" safe>
          {`New codes of this campaign are also created in Stripe as promotion codes of the coupon ${props.couponId}, so they work at checkout at once; archiving a code deactivates it there.`}
        </p>
      ) : (
        <p class="caption">Name a Stripe coupon and new codes of this campaign are also created in Stripe as its promotion codes, so they work at checkout at once.</p>
      )}
      <CsrfInput token={props.page.csrf} />
      <input type="hidden" name="campaignId" value={props.campaignId} />
      <div class="code-form-row">
        <Field name="stripeCouponId" label="Stripe coupon id" value={props.value ?? props.couponId ?? ''} error={props.error} hint="Empty: codes are not synced" autocomplete="off" />
        <div class="actions">
          <button type="submit" class="secondary">
            Save coupon
          </button>
        </div>
      </div>
    </form>
  );
}

/** A failure the forms show as their own message: a refusal (4xx) or Stripe's (502). */
function problemsOf(error: unknown, fields: string[]): FormErrors | null {
  if (error instanceof AppError && error.code === 'bad_gateway') return { _form: error.message };
  return formErrors(error, fields);
}

export function codeRoutes(ctx: AppContext, kit: AdminKit) {
  const sync = ctx.codeSync;
  /** The create form alone, with what went wrong (the partner's or campaign's page is one click back). */
  async function formPage(page: AdminPage, from: From, values: { code: string; choice: string }, errors: FormErrors, status: number) {
    const data = await loadCodes(ctx, from.kind === 'partner' ? { partnerId: from.id } : { campaignId: from.id });
    return render(
      <AdminLayout page={page} title="New promotion code" current={from.kind === 'partner' ? '/admin/partners' : '/admin/campaigns'}>
        <p class="back">
          <a href={pageOf(from)}>Back</a>
        </p>
        <h1 id="page-title">New promotion code</h1>
        <CodeForm page={page} from={from} choices={data.choices} values={values} errors={errors} alone />
      </AdminLayout>,
      { status },
    );
  }

  const archivePage = (page: AdminPage, code: CodeLine, from: From) =>
    render(
      <AdminLayout page={page} title={code.code} current={from.kind === 'partner' ? '/admin/partners' : '/admin/campaigns'}>
        <ConfirmPanel {...archiveConfirm(code, from, page.csrf)} back={`${pageOf(from)}#codes`} />
      </AdminLayout>,
    );

  /** The code with its names, or the not-found page. */
  async function withCode(page: AdminPage, id: string, kind: string | undefined, act: (code: CodeLine, from: From) => Promise<Response> | Response) {
    const code = await findCode(ctx.sql, id);
    if (!code) return render(<NotFoundPage page={page} what="promotion code" back="/admin/partners" />, { status: 404 });
    const from = fromOf(kind, code);
    const { codes } = await loadCodes(ctx, from.kind === 'partner' ? { partnerId: code.partnerId } : { campaignId: code.campaignId });
    const line = codes.find((c) => c.id === code.id) ?? { ...code, partnerName: code.partnerId, campaignName: code.campaignId, currency: 'USD', stats: { customers: 0, conversions: 0, revenue: [], earnings: [] } };
    return act(line, from);
  }

  return new Elysia({ detail: { hide: true } })
    .post('/admin/codes/stripe-coupon', ({ request, body }) =>
      kit.form(request, body, '/admin/campaigns', async (page, form) => {
        const campaign = await findCampaign(ctx.sql, form.campaignId ?? '');
        if (!campaign) return render(<NotFoundPage page={page} what="campaign" back="/admin/campaigns" />, { status: 404 });
        const value = (form.stripeCouponId ?? '').trim();
        const from: From = { kind: 'campaign', id: campaign.id };
        if (value !== '' && !/^[A-Za-z0-9_-]{1,255}$/.test(value)) {
          return render(
            <AdminLayout page={page} title="Stripe coupon" current="/admin/campaigns">
              <p class="back">
                <a href={pageOf(from)}>Back</a>
              </p>
              <h1 safe>{`Stripe coupon of ${campaign.name}`}</h1>
              <StripeCouponForm page={page} campaignId={campaign.id} couponId={campaign.stripeCouponId} value={value} error="letters, digits, _ and - only (a Stripe coupon id)" />
            </AdminLayout>,
            { status: 400 },
          );
        }
        await updateCampaign(ctx.sql, campaign.id, { stripeCouponId: value === '' ? null : value });
        return seeOther(`${pageOf(from)}?done=stripe-coupon#codes`);
      }),
    )
    .post('/admin/codes', ({ request, body }) =>
      kit.form(request, body, '/admin/partners', async (page, form) => {
        const input = { code: (form.code ?? '').trim(), partnerId: form.partnerId ?? '', campaignId: form.campaignId ?? '' };
        const from = fromOf(form.from, input);
        const values = { code: input.code, choice: from.kind === 'partner' ? input.campaignId : input.partnerId };
        try {
          await createCode(ctx.sql, input, sync);
        } catch (error) {
          const errors = problemsOf(error, ['code', 'partnerId', 'campaignId']);
          if (!errors) throw error;
          return formPage(page, from, values, errors, (error as { status: number }).status);
        }
        return seeOther(`${pageOf(from)}?done=code-created#codes`);
      }),
    )
    .get(
      '/admin/codes/:id/archive',
      ({ request, params, query }) => kit.page(request, (page) => withCode(page, params.id, query.from, (code, from) => archivePage(page, code, from))),
      { params: Params, query: t.Object({ from: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      '/admin/codes/:id/archive',
      ({ request, body, params, query }) =>
        kit.form(request, body, '/admin/partners', (page, form) =>
          withCode(page, params.id, query.from, async (code, from) => {
            // nothing changes until the confirmation is posted
            if (!isConfirmed(form)) return archivePage(page, code, from);
            const archived = code.archivedAt === null;
            await setCodeArchived(ctx.sql, code.id, archived, sync);
            return seeOther(`${pageOf(from)}?done=${archived ? 'code-archived' : 'code-unarchived'}#codes`);
          }),
        ),
      { params: Params, query: t.Object({ from: t.Optional(t.String({ maxLength: 20 })) }) },
    );
}
