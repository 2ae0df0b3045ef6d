// Admin partners: search, create (with invite), detail with links, commissions and payouts;
// invite again, revoke with a reason, reinstate. The rules live in modules/partners/service.ts.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { listCampaigns } from '../../modules/campaigns/service';
import { listCommissions } from '../../modules/commissions/service';
import { listLinks } from '../../modules/links/service';
import { Email, Name } from '../../lib/fields';
import {
  createPartner,
  findPartner,
  listPartners,
  reinvitePartner,
  type Partner,
} from '../../modules/partners/service';
import { listPayouts } from '../../modules/payouts/service';
import { reinstatePartner, revokePartner } from '../../workflows/revoke-partner';
import { CsrfInput, Field, formErrors, formList, schemaErrors, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, campaignNames, day, Done, NotFoundPage, type AdminKit } from './kit';
import { CommissionsTable, LinksTable, PayoutsTable } from './tables';
import { Badge, partnerBadge, Trunc } from '../ui';

const LIST = '/admin/partners';
const DONE = {
  created: 'Partner created.',
  invited: 'Invite sent.',
  revoked: 'Partner revoked: their sessions ended and their links stopped recording clicks.',
  reinstated: 'Partner reinstated.',
};
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
/** The create form as typed; `campaignIds` undefined: the form showed no campaign to choose. */
type CreateValues = { name: string; email: string; sendInvite: string; campaignIds?: string[] };
const detailPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

export function partnerRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, input: { q?: string; cursor?: string; values?: CreateValues; errors?: FormErrors; done?: string }) {
    const q = (input.q ?? '').trim().slice(0, 254);
    const p = readPage({ cursor: input.cursor }, 'partner');
    const [rows, campaigns] = await Promise.all([listPartners(ctx.sql, { ...p, search: q || undefined }), listCampaigns(ctx.sql, { limit: 500, archived: false })]);
    const { items, nextCursor } = paginate(rows, p.limit);
    return (
      <PartnersPage
        page={page}
        partners={items}
        q={q}
        nextCursor={nextCursor}
        campaigns={campaigns.slice(0, 500).map((c) => ({ id: c.id, name: c.name }))}
        values={input.values}
        errors={input.errors}
        done={input.done}
      />
    ) as string;
  }

  async function detailView(page: AdminPage, partner: Partner, input: { done?: string; errors?: FormErrors; reason?: string } = {}) {
    const p = { limit: 50 };
    const [links, commissions, payouts, campaigns] = await Promise.all([
      listLinks(ctx.sql, ctx.config.baseUrl, { ...p, partnerId: partner.id }),
      listCommissions(ctx.sql, { ...p, partnerId: partner.id }),
      listPayouts(ctx.sql, { ...p, partnerId: partner.id }),
      campaignNames(ctx),
    ]);
    return (
      <PartnerDetailPage
        page={page}
        partner={partner}
        links={links.slice(0, p.limit)}
        commissions={commissions.slice(0, p.limit)}
        payouts={payouts.slice(0, p.limit)}
        campaigns={campaigns}
        done={input.done}
        errors={input.errors}
        reason={input.reason}
      />
    ) as string;
  }

  /** An action on one partner: a missing partner is a 404 page, a refused one shows beside its form. */
  function partnerAction(name: string, act: (page: AdminPage, partner: Partner, form: Record<string, string>) => Promise<Response>) {
    return ({ request, body, params }: { request: Request; body: unknown; params: { id: string } }) =>
      kit.form(request, body, detailPath(params.id), async (page, form) => {
        const partner = await findPartner(ctx.sql, params.id);
        if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
        try {
          return await act(page, partner, form);
        } catch (error) {
          const errors = formErrors(error, ['reason']);
          if (!errors) throw error;
          if (errors._form) errors[name] = errors._form;
          const fresh = (await findPartner(ctx.sql, partner.id))!;
          return render(await detailView(page, fresh, { errors, reason: form.reason }), { status: (error as AppError).status });
        }
      });
  }

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) => kit.page(request, async (page) => render(await listView(page, query))),
      { query: t.Object({ q: t.Optional(t.String({ maxLength: 254 })), cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(LIST, ({ request, body }) =>
      kit.form(request, body, LIST, async (page, form) => {
        const values: CreateValues = {
          name: (form.name ?? '').trim(),
          email: (form.email ?? '').trim(),
          sendInvite: form.sendInvite === 'on' ? 'on' : '',
          campaignIds: form.campaignsShown === '1' ? formList(body, 'campaignIds') : undefined,
        };
        const errors = schemaErrors(t.Object({ email: Email, name: Name }), { email: values.email, name: values.name });
        if (Object.keys(errors).length > 0) return render(await listView(page, { values, errors }), { status: 400 });
        try {
          const partner = await createPartner(ctx, { email: values.email, name: values.name, sendInvite: values.sendInvite === 'on', campaignIds: values.campaignIds });
          return seeOther(`${detailPath(partner.id)}?done=created`);
        } catch (error) {
          const problems = formErrors(error, ['email', 'name', 'campaignIds']);
          if (!problems) throw error;
          // the one conflict here is an email already taken: say it beside the email field
          if (problems._form && error instanceof AppError && error.code === 'conflict') {
            problems.email = problems._form;
            delete problems._form;
          }
          return render(await listView(page, { values, errors: problems }), { status: (error as AppError).status });
        }
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const partner = await findPartner(ctx.sql, params.id);
          if (!partner) return render(<NotFoundPage page={page} what="partner" back={LIST} />, { status: 404 });
          return render(await detailView(page, partner, { done: query.done }));
        }),
      { params: Params, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      `${LIST}/:id/invite`,
      partnerAction('invite', async (_page, partner) => {
        await reinvitePartner(ctx, partner.id);
        return seeOther(`${detailPath(partner.id)}?done=invited`);
      }),
      { params: Params },
    )
    .post(
      `${LIST}/:id/revoke`,
      partnerAction('reason', async (_page, partner, form) => {
        const reason = (form.reason ?? '').trim();
        if (reason === '') throw new AppError('invalid_body', 'reason: required', [{ field: 'reason', message: 'say why, the partner is shown this reason' }]);
        if (reason.length > 1000) throw new AppError('invalid_body', 'reason: too long', [{ field: 'reason', message: 'at most 1000 characters' }]);
        await revokePartner(ctx, partner.id, { reason, revokeKeys: false });
        return seeOther(`${detailPath(partner.id)}?done=revoked`);
      }),
      { params: Params },
    )
    .post(
      `${LIST}/:id/reinstate`,
      partnerAction('reinstate', async (_page, partner) => {
        await reinstatePartner(ctx, partner.id);
        return seeOther(`${detailPath(partner.id)}?done=reinstated`);
      }),
      { params: Params },
    );
}

function PartnersPage(props: {
  page: AdminPage;
  partners: Partner[];
  q: string;
  nextCursor: string | null;
  campaigns: { id: string; name: string }[];
  values?: CreateValues;
  errors?: FormErrors;
  done?: string;
}) {
  const sendInvite = props.values ? props.values.sendInvite === 'on' : true;
  // every live campaign is ticked until the admin says otherwise
  const ticked = new Set(props.values?.campaignIds ?? props.campaigns.map((c) => c.id));
  return (
    <AdminLayout page={props.page} title="Partners" current={LIST}>
      <h1>Partners</h1>
      <Done texts={DONE} done={props.done} />
      <form method="get" action={LIST} role="search" class="row">
        <Field name="q" label="Search by email or name" type="search" value={props.q} />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {props.partners.length === 0 ? (
        <p class="empty">{props.q ? 'No partner matches.' : 'No partners yet.'}</p>
      ) : (
        <div class="table-wrap">
          <table id="partners" class="stack">
            <caption class="vh">{props.q ? 'Partners matching the search' : 'Partners, newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.partners.map((p) => (
                <tr data-id={p.id}>
                  <td class="lead">
                    <Trunc text={p.name} href={detailPath(p.id)} />
                  </td>
                  <td data-label="Email" class="fill">
                    <Trunc text={p.email} wide />
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...partnerBadge(p)} />
                  </td>
                  <td data-label="Created" safe>
                    {day(p.createdAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OlderLink path={LIST} query={{ q: props.q }} cursor={props.nextCursor} label="More partners" />
      <h2 id="new">New partner</h2>
      <form method="post" action={LIST} novalidate class="narrow">
        <CsrfInput token={props.page.csrf} />
        {!!props.errors?._form && <Notice kind="error" text={props.errors._form} />}
        <Field name="name" label="Name" value={props.values?.name} error={props.errors?.name} required />
        <Field name="email" label="Email" type="email" value={props.values?.email} error={props.errors?.email} required />
        <div class="field check">
          <label>
            <input type="checkbox" name="sendInvite" checked={sendInvite} /> Email an invite (a sign-in link to the portal)
          </label>
        </div>
        {props.campaigns.length > 0 && (
          <fieldset class={props.errors?.campaignIds ? 'choices invalid' : 'choices'} aria-describedby={props.errors?.campaignIds ? 'campaignIds-error' : undefined}>
            <legend>Campaigns the partner may promote</legend>
            <input type="hidden" name="campaignsShown" value="1" />
            {props.campaigns.map((c) => (
              <label class="check">
                <input type="checkbox" name="campaignIds" value={c.id} checked={ticked.has(c.id)} /> <span safe>{c.name}</span>
              </label>
            ))}
            {!!props.errors?.campaignIds && (
              <p class="error" id="campaignIds-error" safe>
                {props.errors.campaignIds}
              </p>
            )}
          </fieldset>
        )}
        <button type="submit">Create partner</button>
      </form>
    </AdminLayout>
  );
}

function PartnerDetailPage(props: {
  page: AdminPage;
  partner: Partner;
  links: Awaited<ReturnType<typeof listLinks>>;
  commissions: Awaited<ReturnType<typeof listCommissions>>;
  payouts: Awaited<ReturnType<typeof listPayouts>>;
  campaigns: Map<string, string>;
  done?: string;
  errors?: FormErrors;
  reason?: string;
}) {
  const p = props.partner;
  const id = encodeURIComponent(p.id);
  const names = { campaigns: props.campaigns, partners: new Map([[p.id, p.name]]) };
  return (
    <AdminLayout page={props.page} title={p.name} current={LIST}>
      <p class="back">
        <a href={LIST}>All partners</a>
      </p>
      <h1 safe>{p.name}</h1>
      <Done texts={DONE} done={props.done} />
      <dl class="facts">
        <dt>Email</dt>
        <dd safe>{p.email}</dd>
        <dt>Status</dt>
        <dd>
          <Badge {...partnerBadge(p)} id="partner-status" />
        </dd>
        {!!p.revokeReason && (
          <>
            <dt>Revoke reason</dt>
            <dd class="reason" safe>
              {p.revokeReason}
            </dd>
          </>
        )}
        <dt>Campaigns</dt>
        <dd safe>{p.campaignIds.map((c) => props.campaigns.get(c) ?? c).join(', ') || 'none'}</dd>
        <dt>Payout email</dt>
        <dd safe>{p.payoutEmail ?? 'none (the sign-in email)'}</dd>
        <dt>Payout account</dt>
        <dd safe>{p.billingConnectAccountId ?? 'none'}</dd>
        <dt>Created</dt>
        <dd safe>{day(p.createdAt)}</dd>
        <dt>Id</dt>
        <dd>
          <code safe>{p.id}</code>
        </dd>
      </dl>
      <h2>Actions</h2>
      {p.status === 'pending' && (
        <form method="post" action={`${LIST}/${id}/invite`}>
          <CsrfInput token={props.page.csrf} />
          {!!props.errors?.invite && <Notice kind="error" text={props.errors.invite} />}
          <button type="submit" class="secondary">
            Send the invite again
          </button>
        </form>
      )}
      {p.status === 'revoked' ? (
        <form method="post" action={`${LIST}/${id}/reinstate`}>
          <CsrfInput token={props.page.csrf} />
          {!!props.errors?.reinstate && <Notice kind="error" text={props.errors.reinstate} />}
          <button type="submit">Reinstate</button>
        </form>
      ) : (
        <form method="post" action={`${LIST}/${id}/revoke`} novalidate class="narrow">
          <CsrfInput token={props.page.csrf} />
          <Field
            name="reason"
            label="Reason for revoking"
            hint="The partner sees this reason. Their sessions end and their links stop recording clicks; earned commissions stay."
            value={props.reason}
            error={props.errors?.reason}
            required
          />
          <button type="submit" class="danger">
            Revoke partner
          </button>
        </form>
      )}
      <h2>Links</h2>
      {props.links.length === 0 ? <p class="empty">No links yet.</p> : <LinksTable links={props.links} names={names} caption={`Links of ${p.name}`} />}
      <h2>Commissions</h2>
      <p>
        <a href={`/admin/commissions?partnerId=${id}`}>Approve or reverse this partner's commissions</a>
      </p>
      {props.commissions.length === 0 ? (
        <p class="empty">No commissions yet.</p>
      ) : (
        <CommissionsTable commissions={props.commissions} names={names} onePartner caption={`Commissions of ${p.name}, newest first`} />
      )}
      <h2>Payouts</h2>
      {props.payouts.length === 0 ? <p class="empty">No payouts yet.</p> : <PayoutsTable payouts={props.payouts} names={names} onePartner caption={`Payouts to ${p.name}, newest first`} />}
    </AdminLayout>
  );
}
