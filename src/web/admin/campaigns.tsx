// Admin campaigns: the list with each campaign's last 30 days, a campaign's page (numbers for a date
// range, its partners and links, its terms in words), the rule editor (create and edit), archive and
// unarchive behind a confirmation. The rules' schema and checks are the API's (campaigns/rules.ts,
// campaigns/service.ts); this file turns form rows into Rule objects and problems back into
// messages beside their fields. assets/rules.js adds and removes rows without a reload.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import type { AppError } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { CreateCampaignBody } from '../../modules/campaigns/model';
import type { Rule } from '../../modules/campaigns/rules';
import { createCampaign, destinationProblem, findCampaign, listCampaigns, updateCampaign, type Campaign } from '../../modules/campaigns/service';
import { campaignLinks, campaignNumbers, campaignPartners, campaignTotals, seenEventTypes, type CampaignNumbers, type Numbers } from '../../modules/reports/campaigns';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CsrfInput, Field, schemaErrors, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { compare, comparePoints, parseRange, RangePicker, rangeStart, type DateRange } from '../range';
import { PAGE_CSP, render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { describeTerms, STANDARD_EVENT_TYPES } from '../terms';
import { blankRow, isBlank, readRows, ruleToRow, RuleRows, rowsToRules, serviceErrors, summaryRules, TermsSummary, type RuleRow } from './rule-editor';
import { CodesSection, loadCodes, type CodesData } from './codes';
import { previewRules } from '../../modules/commissions/preview';
import { partnersByIds } from '../../modules/reports/partners';
import { PreviewPage, type PreviewAnswer } from './rule-preview';
import { AdminLayout, day, Done, NotFoundPage, type AdminKit } from './kit';
import { attr, Badge, EmptyState, formatMoney, formatRate, href, Kpi, MoneyCell, partnerBadge, Trunc, type Tone, NumHead } from '../ui';

const LIST = '/admin/campaigns';
/** The campaign form's own fields (a service problem on one of them is shown beside it). */
const FORM_FIELDS = ['name', 'destinationUrl', 'currency', 'holdbackDays', 'recruiterPercent'];
const DONE = {
  created: 'Campaign created.',
  saved: 'Campaign saved.',
  archived: 'Campaign archived: partners can no longer create links for it.',
  unarchived: 'Campaign is live again.',
};
/** Rows of the partners and links tables on a campaign's page. */
const TABLE_ROWS = 50;
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const RangeQuery = {
  range: t.Optional(t.String({ maxLength: 10 })),
  from: t.Optional(t.String({ maxLength: 10 })),
  to: t.Optional(t.String({ maxLength: 10 })),
};
const campaignPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;
const editPath = (id: string) => `${campaignPath(id)}/edit`;
const archivePath = (id: string) => `${campaignPath(id)}/archive`;

/** The campaign form as typed. */
type CampaignValues = { name: string; destinationUrl: string; currency: string; holdbackDays: string; recruiterPercent: string; previewDays: string; rows: RuleRow[] };

const percentText = (p: number | null) => (p === null ? '' : String(p));

function campaignToValues(c: Campaign): CampaignValues {
  return {
    name: c.name,
    destinationUrl: c.destinationUrl,
    currency: c.currency,
    holdbackDays: c.holdbackDays === null ? '' : String(c.holdbackDays),
    recruiterPercent: percentText(c.recruiterPercent ?? null),
    previewDays: '',
    rows: c.rules.map(ruleToRow),
  };
}

/** The campaign form's fields and its rule rows (see readRows). */
function readValues(form: Record<string, string>): CampaignValues & { removed: Set<number> } {
  const { rows, removed } = readRows(form);
  return {
    name: (form.name ?? '').trim(),
    destinationUrl: (form.destinationUrl ?? '').trim(),
    currency: (form.currency ?? '').trim().toUpperCase(),
    holdbackDays: (form.holdbackDays ?? '').trim(),
    recruiterPercent: (form.recruiterPercent ?? '').trim(),
    previewDays: (form.previewDays ?? '').trim(),
    rows,
    removed,
  };
}

/** The recruiter percent as typed: empty is off (null); else a number the API's schema takes. */
function readRecruiterPercent(text: string): { value: number | null; error?: string } {
  if (text === '') return { value: null };
  const n = Number(text.replace(/%$/, '').trim());
  if (!/^[0-9]+(\.[0-9]+)?%?$/.test(text) || !Number.isFinite(n) || n <= 0 || n > 100) return { value: null, error: 'a percent more than 0 and at most 100 (empty: off)' };
  return { value: n };
}

/** Days the preview replays: 1-365, 30 when empty. */
export function readPreviewDays(text: string): { value: number; error?: string } {
  if (text === '') return { value: 30 };
  if (/^[0-9]{1,3}$/.test(text) && Number(text) >= 1 && Number(text) <= 365) return { value: Number(text) };
  return { value: 30, error: 'a whole number of days, 1 to 365' };
}

export function campaignRoutes(ctx: AppContext, kit: AdminKit) {
  /** The event types the picker offers: the standard ones, then custom types seen in events or rules. */
  async function eventTypes(): Promise<string[]> {
    return [...STANDARD_EVENT_TYPES, ...(await seenEventTypes(ctx.sql, { exclude: STANDARD_EVENT_TYPES }))];
  }

  async function listView(page: AdminPage, input: { cursor?: string; values?: CampaignValues; errors?: FormErrors; done?: string }) {
    const p = readPage({ cursor: input.cursor }, 'campaign');
    const { items, nextCursor } = paginate(await listCampaigns(ctx.sql, p), p.limit);
    const last30 = parseRange({ range: '30d' });
    const [numbers, types] = await Promise.all([
      campaignNumbers(ctx.sql, { campaignIds: items.map((c) => c.id), start: rangeStart(last30), end: last30.end }),
      eventTypes(),
    ]);
    return (
      <CampaignsPage
        page={page}
        campaigns={items}
        numbers={numbers}
        nextCursor={nextCursor}
        values={input.values}
        errors={input.errors}
        done={input.done}
        eventTypes={types}
        holdbackDefault={ctx.config.holdbackDays}
      />
    ) as string;
  }

  async function editView(page: AdminPage, campaign: Campaign, values: CampaignValues, errors?: FormErrors) {
    return (<EditPage page={page} campaign={campaign} values={values} errors={errors} eventTypes={await eventTypes()} holdbackDefault={ctx.config.holdbackDays} />) as string;
  }

  /**
   * Create (campaign null) or save: validates the form with the API's schemas, then calls the
   * service; "Add another rule" (without script) only redraws the form with one more empty row.
   */
  async function submit(page: AdminPage, form: Record<string, string>, campaign: Campaign | null): Promise<Response> {
    const { removed, ...values } = readValues(form);
    const redraw = async (v: CampaignValues, errors: FormErrors | undefined, status: number) =>
      render(campaign ? await editView(page, campaign, v, errors) : await listView(page, { values: v, errors }), { status });
    // back from the preview step: the editor as it was typed, nothing saved
    if (form._edit !== undefined) return redraw(values, undefined, 200);
    if (form._more !== undefined) {
      const kept = values.rows.filter((row, i) => !removed.has(i) && !isBlank(row));
      return redraw({ ...values, rows: [...kept, blankRow()] }, undefined, 200);
    }
    const { rules, rowOf, tierOf, errors } = rowsToRules(values.rows, removed);
    const recruiter = readRecruiterPercent(values.recruiterPercent);
    if (recruiter.error) errors.recruiterPercent = recruiter.error;
    let holdbackDays: number | null = null;
    if (values.holdbackDays !== '') {
      if (/^[0-9]{1,4}$/.test(values.holdbackDays) && Number(values.holdbackDays) <= 3650) holdbackDays = Number(values.holdbackDays);
      else errors.holdbackDays = 'a whole number of days, 0 to 3650 (empty: the default)';
    }
    const fields = schemaErrors(t.Omit(CreateCampaignBody, ['rules', 'holdbackDays']), { name: values.name, destinationUrl: values.destinationUrl, currency: values.currency });
    // the service's own wording for a bad destination is clearer than the schema's length check
    if (fields.destinationUrl && values.destinationUrl !== '') fields.destinationUrl = destinationProblem(values.destinationUrl) ?? fields.destinationUrl;
    for (const [k, message] of Object.entries(fields)) errors[k] ??= message;
    if (Object.keys(errors).length > 0) return redraw(values, errors, 400);
    const input = { name: values.name, destinationUrl: values.destinationUrl, currency: values.currency, holdbackDays, rules: rules as Rule[], recruiterPercent: recruiter.value };
    if (campaign && form._preview !== undefined) {
      const days = readPreviewDays(values.previewDays);
      if (days.error) return redraw(values, { previewDays: days.error }, 400);
      return previewStep(page, campaign, form, values, input.rules, days.value, { rowOf, tierOf });
    }
    try {
      const saved = campaign ? await updateCampaign(ctx.sql, campaign.id, input) : await createCampaign(ctx.sql, input);
      return seeOther(`${campaignPath(saved.id)}?done=${campaign ? 'saved' : 'created'}`);
    } catch (error) {
      const problems = serviceErrors(error, { rowOf, tierOf }, FORM_FIELDS);
      if (!problems) throw error;
      return redraw(values, problems, (error as AppError).status);
    }
  }

  /**
   * The preview step: the draft rules replayed over the campaign's last `days` of events (nothing
   * written); a refusal of the rules shows beside their fields in the editor, as a save would.
   */
  async function previewStep(
    page: AdminPage,
    campaign: Campaign,
    form: Record<string, string>,
    values: CampaignValues,
    rules: Rule[],
    days: number,
    at: { rowOf: number[]; tierOf: number[][] },
  ): Promise<Response> {
    let answer: PreviewAnswer;
    try {
      answer = await previewRules(ctx.sql, { campaignId: campaign.id, rules, days });
    } catch (error) {
      const problems = serviceErrors(error, at, FORM_FIELDS);
      if (!problems) throw error;
      return render(await editView(page, campaign, values, problems), { status: (error as AppError).status });
    }
    const names = new Map((await partnersByIds(ctx.sql, answer.partners.map((p) => p.partnerId))).map((p) => [p.id, p.name]));
    const holdbackDays = /^[0-9]{1,4}$/.test(values.holdbackDays) ? Number(values.holdbackDays) : ctx.config.holdbackDays;
    return render(
      <PreviewPage page={page} campaign={campaign} action={campaignPath(campaign.id)} form={form} rules={rules} holdbackDays={holdbackDays} answer={answer} names={names} />,
    );
  }

  /** The campaign of the URL, or the 404 page. */
  async function withCampaign(page: AdminPage, id: string, act: (campaign: Campaign) => Promise<Response>): Promise<Response> {
    const campaign = await findCampaign(ctx.sql, id);
    if (!campaign) return render(<NotFoundPage page={page} what="campaign" back={LIST} />, { status: 404 });
    return act(campaign);
  }

  async function campaignView(page: AdminPage, campaign: Campaign, query: Record<string, string | undefined>) {
    const range = parseRange(query);
    const span = { start: rangeStart(range), end: range.end };
    const [current, previous, partners, links, codes] = await Promise.all([
      campaignTotals(ctx.sql, { campaignId: campaign.id, ...span }),
      range.previous ? campaignTotals(ctx.sql, { campaignId: campaign.id, ...range.previous }) : Promise.resolve(null),
      campaignPartners(ctx.sql, { campaignId: campaign.id, currency: campaign.currency, limit: TABLE_ROWS, ...span }),
      campaignLinks(ctx.sql, { campaignId: campaign.id, currency: campaign.currency, limit: TABLE_ROWS, ...span }),
      loadCodes(ctx, { campaignId: campaign.id }),
    ]);
    return (
      <CampaignPage
        page={page}
        campaign={campaign}
        range={range}
        current={current}
        previous={previous}
        partners={partners}
        links={links}
        codes={codes}
        holdbackDefault={ctx.config.holdbackDays}
        linkBase={ctx.config.baseUrl}
        done={query.done}
      />
    ) as string;
  }

  /** The archive (or unarchive) confirmation as a page: no script, a direct visit, or an unconfirmed post. */
  const archivePage = (page: AdminPage, campaign: Campaign) =>
    render(
      <AdminLayout page={page} title={campaign.name} current={LIST}>
        <ConfirmPanel {...archiveConfirm(campaign, page.csrf)} back={campaignPath(campaign.id)} />
      </AdminLayout>,
    );

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) => kit.page(request, async (page) => render(await listView(page, query))),
      { query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(LIST, ({ request, body }) => kit.form(request, body, LIST, (page, form) => submit(page, form, null)))
    // the editor's summary in words, redrawn as the rules are typed (htmx posts the whole form here)
    .post(`${LIST}/summary`, ({ request, body }) =>
      kit.form(request, body, LIST, async (_page, form) => {
        const { removed, ...values } = readValues(form);
        const kept = { ...values, rows: values.rows.filter((_, i) => !removed.has(i)) };
        return fragment((<FormSummary values={kept} holdbackDefault={ctx.config.holdbackDays} />) as string);
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) => kit.page(request, (page) => withCampaign(page, params.id, async (campaign) => render(await campaignView(page, campaign, query)))),
      { params: Params, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })), ...RangeQuery }) },
    )
    .get(
      `${LIST}/:id/edit`,
      ({ request, params }) => kit.page(request, (page) => withCampaign(page, params.id, async (campaign) => render(await editView(page, campaign, campaignToValues(campaign))))),
      { params: Params },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) => kit.form(request, body, editPath(params.id), (page, form) => withCampaign(page, params.id, (campaign) => submit(page, form, campaign))),
      { params: Params },
    )
    .get(
      `${LIST}/:id/archive`,
      ({ request, params }) => kit.page(request, (page) => withCampaign(page, params.id, async (campaign) => archivePage(page, campaign))),
      { params: Params },
    )
    .post(
      `${LIST}/:id/archive`,
      ({ request, body, params }) =>
        kit.form(request, body, campaignPath(params.id), (page, form) =>
          withCampaign(page, params.id, async (campaign) => {
            // archiving stops new links: nothing changes until the confirmation is posted
            if (!isConfirmed(form)) return archivePage(page, campaign);
            const archived = campaign.archivedAt === null;
            await updateCampaign(ctx.sql, campaign.id, { archived });
            return seeOther(`${campaignPath(campaign.id)}?done=${archived ? 'archived' : 'unarchived'}`);
          }),
        ),
      { params: Params },
    );
}

// ---------------------------------------------------------------------------------------------
// Views

/** Archive (or unarchive) in words, for the dialog and the no-script confirm page. */
function archiveConfirm(c: Campaign, csrf: string) {
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

/** Live campaigns take new links; archived ones keep theirs. */
function campaignBadge(c: Campaign): { tone: Tone; label: string; title: string } {
  return c.archivedAt
    ? { tone: 'grey', label: 'Archived', title: 'Archived: existing links keep working; partners cannot create new ones until unarchived' }
    : { tone: 'green', label: 'Live', title: 'Live: partners holding it can create links and earn commissions' };
}

const count = (n: number) => n.toLocaleString('en-US');

/** Earnings per click: commissions over clicks, in minor units (rounded down); "–" without clicks. */
function epc(n: Numbers, currency: string): string {
  return n.clicks > 0 ? formatMoney(n.commissions / BigInt(n.clicks), currency) : '–';
}

/** Basis points of a rate, for comparing rates in points. */
const basisPoints = (num: number, den: number) => (den > 0 ? Math.round((num * 10000) / den) : 0);

function CampaignsPage(props: {
  page: AdminPage;
  campaigns: Campaign[];
  numbers: Map<string, CampaignNumbers>;
  nextCursor: string | null;
  values?: CampaignValues;
  errors?: FormErrors;
  done?: string;
  eventTypes: string[];
  holdbackDefault: number;
}) {
  const values = props.values ?? { name: '', destinationUrl: '', currency: 'USD', holdbackDays: '', recruiterPercent: '', previewDays: '', rows: [] };
  return (
    <AdminLayout page={props.page} title="Campaigns" current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <h1>Campaigns</h1>
      <Done texts={DONE} done={props.done} />
      {props.campaigns.length === 0 ? (
        <EmptyState
          title="No campaigns yet"
          text="A campaign says where share links land and what partners earn. Create one to invite partners to it."
          action={{ href: '#new', label: 'Create a campaign' }}
        />
      ) : (
        <div class="table-wrap">
          <table id="campaigns" class="stack">
            <caption class="vh">Campaigns, newest first, with their last 30 days</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <NumHead label="Partners" />
                <NumHead label="Clicks" />
                <NumHead label="Conversions" />
                <NumHead label="Revenue" />
                <NumHead label="Commissions" />
              </tr>
            </thead>
            <tbody>
              {props.campaigns.map((c) => {
                const n = props.numbers.get(c.id);
                return (
                  <tr data-id={c.id}>
                    <td class="lead fill">
                      <Trunc text={c.name} href={campaignPath(c.id)} wide />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...campaignBadge(c)} />
                    </td>
                    <td class="num" data-label="Partners" data-stat="partners" safe>
                      {count(n?.partners ?? 0)}
                    </td>
                    <td class="num" data-label="Clicks (30 d)" data-stat="clicks" safe>
                      {count(n?.clicks ?? 0)}
                    </td>
                    <td class="num" data-label="Conversions (30 d)" data-stat="conversions" safe>
                      {count(n?.conversions ?? 0)}
                    </td>
                    <td class="num" data-label="Revenue (30 d)" data-stat="revenue" safe>
                      {formatMoney(n?.revenue ?? 0n, c.currency)}
                    </td>
                    <td class="num money" data-label="Commissions (30 d)" data-stat="commissions" safe>
                      {formatMoney(n?.commissions ?? 0n, c.currency)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {props.campaigns.length > 0 && <p class="hint">Numbers of the last 30 days, money in each campaign's currency.</p>}
      <OlderLink path={LIST} cursor={props.nextCursor} label="Older campaigns" />
      <h2 id="new">New campaign</h2>
      <CampaignForm
        page={props.page}
        action={LIST}
        values={values}
        errors={props.errors}
        submit="Create campaign"
        eventTypes={props.eventTypes}
        holdbackDefault={props.holdbackDefault}
      />
    </AdminLayout>
  );
}

function CampaignPage(props: {
  page: AdminPage;
  campaign: Campaign;
  range: DateRange;
  current: CampaignNumbers;
  previous: CampaignNumbers | null;
  partners: Awaited<ReturnType<typeof campaignPartners>>;
  links: Awaited<ReturnType<typeof campaignLinks>>;
  codes: CodesData;
  holdbackDefault: number;
  linkBase: string;
  done?: string;
}) {
  const c = props.campaign;
  const cur = props.current;
  const prev = props.previous;
  const versus = props.range.previousLabel || undefined;
  const change = (now: bigint | number, before: bigint | number | undefined) => (prev && before !== undefined ? compare(now, before) : undefined);
  const prevEpc = prev && prev.clicks > 0 ? prev.commissions / BigInt(prev.clicks) : 0n;
  const curEpc = cur.clicks > 0 ? cur.commissions / BigInt(cur.clicks) : 0n;
  const others = cur.money.filter((m) => m.currency !== c.currency);
  const terms = describeTerms({ rules: c.rules, currency: c.currency, holdbackDays: c.holdbackDays ?? props.holdbackDefault });
  const confirm = archiveConfirm(c, props.page.csrf);
  return (
    <AdminLayout page={props.page} title={c.name} current={LIST} scripts={['/assets/copy.js']}>
      <p class="back">
        <a href={LIST}>All campaigns</a>
      </p>
      <div class="page-head">
        <h1 safe>{c.name}</h1>
        <div class="actions own-actions">
          <a class="button" href={editPath(c.id)}>
            Edit campaign
          </a>
          <ConfirmTrigger href={archivePath(c.id)} dialog="archive-dialog" label={c.archivedAt ? 'Unarchive' : 'Archive'} secondary />
        </div>
      </div>
      <Done texts={DONE} done={props.done} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge {...campaignBadge(c)} id="campaign-status" />
        </dd>
        <dt>Links land on</dt>
        <dd safe>{c.destinationUrl}</dd>
        <dt>Currency</dt>
        <dd safe>{c.currency}</dd>
      </dl>

      <section aria-labelledby="stats-title">
        <h2 id="stats-title" class="vh">
          Numbers
        </h2>
        <RangePicker action={campaignPath(c.id)} range={props.range} />
        <ul class="cards" id="stats">
          <Kpi id="kpi-clicks" label="Clicks" value={count(cur.clicks)} change={change(cur.clicks, prev?.clicks)} versus={versus} />
          <Kpi id="kpi-conversions" label="Conversions" value={count(cur.conversions)} change={change(cur.conversions, prev?.conversions)} versus={versus} />
          <Kpi
            id="kpi-rate"
            label="Conversion rate"
            value={formatRate(cur.conversions, cur.clicks)}
            change={prev ? comparePoints(basisPoints(cur.conversions, cur.clicks), basisPoints(prev.conversions, prev.clicks)) : undefined}
            versus={versus}
          />
          <Kpi id="kpi-revenue" label="Revenue" value={formatMoney(cur.revenue, c.currency)} change={change(cur.revenue, prev?.revenue)} versus={versus} />
          <Kpi
            id="kpi-commissions"
            label="Commissions"
            value={formatMoney(cur.commissions, c.currency)}
            change={change(cur.commissions, prev?.commissions)}
            versus={versus}
            href={href('/admin/commissions', { campaignId: c.id })}
          />
          <Kpi id="kpi-epc" label="Earnings per click" value={epc(cur, c.currency)} change={change(curEpc, prev ? prevEpc : undefined)} versus={versus} />
        </ul>
        {others.length > 0 && (
          <p class="hint" safe>
            {`Also in other currencies: ${others.map((m) => `revenue ${formatMoney(m.revenue, m.currency)}, commissions ${formatMoney(m.commissions, m.currency)}`).join('; ')}.`}
          </p>
        )}
      </section>

      <h2 id="terms-title">Commission terms</h2>
      <TermsSummary rules={c.rules} terms={terms} id="terms" />

      <h2 id="partners-title">Partners</h2>
      {props.partners.total === 0 ? (
        <EmptyState title="No partners in this campaign yet" text="Partners holding a campaign can create share links for it." action={{ href: '/admin/partners', label: 'Add partners' }} />
      ) : (
        <>
          <div class="table-wrap">
            <table id="campaign-partners" class="stack">
              <caption class="vh" safe>
                {`Partners holding this campaign, ${props.range.label}`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Partner</th>
                  <th scope="col">Status</th>
                  <NumHeads />
                </tr>
              </thead>
              <tbody>
                {props.partners.partners.map((p) => (
                  <tr data-id={p.id}>
                    <td class="lead fill">
                      <Trunc text={p.name} href={`/admin/partners/${encodeURIComponent(p.id)}`} />
                    </td>
                    <td class="badge-cell" data-label="Status">
                      <Badge {...partnerBadge(p)} />
                    </td>
                    <NumCells n={p} currency={c.currency} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <TableNote shown={props.partners.partners.length} total={props.partners.total} what="partners" order="most commissions first" />
        </>
      )}

      <h2 id="links-title">Links</h2>
      {props.links.total === 0 ? (
        <EmptyState title="No links yet" text="Partners create share links for the campaigns they hold, in their portal." />
      ) : (
        <>
          <div class="table-wrap">
            <table id="campaign-links" class="stack">
              <caption class="vh" safe>
                {`Share links of this campaign, ${props.range.label}`}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Link</th>
                  <th scope="col">Partner</th>
                  <NumHeads />
                </tr>
              </thead>
              <tbody>
                {props.links.links.map((l) => {
                  return (
                    <tr data-slug={l.slug}>
                      <td class="lead fill">
                        <div class="copy">
                          <label class="vh" for={`url-${l.id}`} safe>
                            {`Link ${l.slug}`}
                          </label>
                          <input id={`url-${l.id}`} value={`${props.linkBase}/r/${l.slug}`} readonly />
                          <button type="button" class="secondary" data-copy={`#url-${l.id}`} aria-label={attr(`Copy link ${l.slug}`)}>
                            Copy
                          </button>
                        </div>
                      </td>
                      <td data-label="Partner">
                        <Trunc text={l.partnerName} href={`/admin/partners/${encodeURIComponent(l.partnerId)}`} />
                      </td>
                      <NumCells n={l} currency={c.currency} />
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <TableNote shown={props.links.links.length} total={props.links.total} what="links" order="most clicks first" />
        </>
      )}
      <CodesSection page={props.page} from={{ kind: 'campaign', id: c.id }} data={props.codes} done={props.done} />
      <p class="hint">
        <a href={href('/admin/commissions', { campaignId: c.id })}>All commissions of this campaign</a>
        {' · '}
        <span safe>{`Created ${day(c.createdAt)} · ${c.id}`}</span>
      </p>
      <ConfirmDialog id="archive-dialog" {...confirm} />
    </AdminLayout>
  );
}

function NumHeads() {
  return (
    <>
      <NumHead label="Clicks" />
      <NumHead label="Conversions" />
      <NumHead label="Revenue" />
      <NumHead label="Commissions" />
    </>
  );
}

function NumCells(props: { n: Numbers; currency: string }) {
  return (
    <>
      <td class="num" data-label="Clicks" data-stat="clicks" safe>
        {count(props.n.clicks)}
      </td>
      <td class="num" data-label="Conversions" data-stat="conversions" safe>
        {count(props.n.conversions)}
      </td>
      <td class="num" data-label="Revenue" data-stat="revenue" safe>
        {formatMoney(props.n.revenue, props.currency)}
      </td>
      <MoneyCell amount={props.n.commissions} currency={props.currency} label="Commissions" />
    </>
  );
}

function TableNote(props: { shown: number; total: number; what: string; order: string }) {
  return props.total > props.shown ? (
    <p class="hint" safe>
      {`The ${props.shown} with ${props.order.replace(' first', '')} of ${count(props.total)} ${props.what}.`}
    </p>
  ) : (
    ''
  );
}


function EditPage(props: { page: AdminPage; campaign: Campaign; values: CampaignValues; errors?: FormErrors; eventTypes: string[]; holdbackDefault: number }) {
  const c = props.campaign;
  return (
    <AdminLayout page={props.page} title={`Edit ${c.name}`} current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <p class="back">
        <a href={campaignPath(c.id)} safe>
          {`Back to ${c.name}`}
        </a>
      </p>
      <h1 safe>{`Edit ${c.name}`}</h1>
      <CampaignForm
        page={props.page}
        action={campaignPath(c.id)}
        values={props.values}
        errors={props.errors}
        submit="Save campaign"
        eventTypes={props.eventTypes}
        holdbackDefault={props.holdbackDefault}
        cancel={campaignPath(c.id)}
        preview
      />
    </AdminLayout>
  );
}

/** A piece of a page for htmx to swap in (no doctype), with the page headers. */
function fragment(html: string): Response {
  return new Response(html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
  });
}

/** The form's rules in words (rows with problems left out), with the holdback typed or the default. */
function FormSummary(props: { values: CampaignValues; errors?: FormErrors; holdbackDefault: number }) {
  const v = props.values;
  const currency = /^[A-Z]{3}$/.test(v.currency) ? v.currency : 'USD';
  const holdback = /^[0-9]{1,4}$/.test(v.holdbackDays) ? Number(v.holdbackDays) : props.holdbackDefault;
  const rules = summaryRules(v.rows, props.errors) as Rule[];
  return <TermsSummary rules={rules} terms={describeTerms({ rules, currency, holdbackDays: holdback })} id="rule-summary" />;
}

function CampaignForm(props: {
  page: AdminPage;
  action: string;
  values: CampaignValues;
  errors?: FormErrors;
  submit: string;
  eventTypes: string[];
  holdbackDefault: number;
  cancel?: string;
  /** An existing campaign: its editor offers the preview step before saving. */
  preview?: boolean;
}) {
  const v = props.values;
  const e = props.errors ?? {};
  const currency = /^[A-Z]{3}$/.test(v.currency) ? v.currency : 'the campaign currency';
  const errorCount = Object.keys(e).length;
  return (
    <form
      method="post"
      action={props.action}
      novalidate
      id="campaign-form"
      class="campaign-form"
      hx-post={`${LIST}/summary`}
      hx-trigger="change delay:200ms, input delay:500ms, rules-changed"
      hx-target="#rule-summary"
      hx-swap="outerHTML"
      hx-sync="this:replace"
    >
      <CsrfInput token={props.page.csrf} />
      {errorCount > 0 && (
        <Notice kind="error" text={e._form ?? `${errorCount === 1 ? 'One field needs' : `${errorCount} fields need`} attention; nothing was saved.`} />
      )}
      <div class="narrow">
        <Field name="name" label="Name" value={v.name} error={e.name} required />
        <Field name="destinationUrl" label="Destination URL" hint="Where share links land, e.g. https://app.example.com/signup" value={v.destinationUrl} error={e.destinationUrl} required />
        <Field name="currency" label="Currency" hint="ISO 4217 code, e.g. USD or EUR; flat amounts are in it" value={v.currency} error={e.currency} required />
        <Field
          name="holdbackDays"
          label="Holdback days (optional)"
          hint={`Days before a commission is approved; empty: the service default (${props.holdbackDefault}).`}
          value={v.holdbackDays}
          error={e.holdbackDays}
        />
        <Field
          name="recruiterPercent"
          label="Recruiter percent (optional)"
          hint="Two-tier rewards: a partner who recruited another earns this percent of each commission the recruit earns in this campaign, as its own commission. Empty: off."
          value={v.recruiterPercent}
          error={e.recruiterPercent}
        />
      </div>
      <h2 id="rules-title">Commission rules</h2>
      <p class="hint">Each rule reads as a sentence. Rules are tried in order; the first that matches an event pays. Leave a row empty to skip it.</p>
      <RuleRows rows={v.rows} errors={e} eventTypes={props.eventTypes} currency={currency} />
      <div class="actions">
        <button type="submit" name="_more" value="1" class="secondary" data-add-rule>
          Add another rule
        </button>
      </div>
      <section class="summary" aria-labelledby="summary-title">
        <h3 id="summary-title">In plain words</h3>
        <FormSummary values={v} errors={props.errors} holdbackDefault={props.holdbackDefault} />
      </section>
      {!!props.preview && (
        <section class="preview-ask" aria-labelledby="preview-ask-title">
          <h3 id="preview-ask-title">Before saving: what would these rules have paid?</h3>
          <p class="hint">Replays this campaign's events under the rules above and shows, per partner, what they earned and what they would have earned. Nothing is saved until you confirm.</p>
          <div class="preview-row">
            <Field name="previewDays" label="Replay the last (days)" hint="1 to 365; empty: 30" value={v.previewDays} error={e.previewDays} />
            <button type="submit" name="_preview" value="1" class="secondary" id="preview-button">
              Preview the change
            </button>
          </div>
        </section>
      )}
      <div class="actions">
        <button type="submit" safe>
          {props.submit}
        </button>
        {!!props.cancel && (
          <a class="button secondary" href={props.cancel}>
            Cancel
          </a>
        )}
      </div>
    </form>
  );
}

