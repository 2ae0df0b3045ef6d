// Admin campaigns: the list with each campaign's last 30 days, a campaign's page (numbers for a date
// range, its partners and links, its terms in words), the rule editor (create and edit), archive and
// unarchive behind a confirmation. The rules' schema and checks are the API's (campaigns/rules.ts,
// campaigns/service.ts); this file turns form rows into Rule objects and problems back into
// messages beside their fields. assets/rules.js adds and removes rows without a reload.
import { Value } from '@sinclair/typebox/value';
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError, type FieldProblem } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { CreateCampaignBody } from '../../modules/campaigns/model';
import { Rule as RuleSchema, type Rule } from '../../modules/campaigns/rules';
import { createCampaign, destinationProblem, findCampaign, listCampaigns, updateCampaign, type Campaign } from '../../modules/campaigns/service';
import { campaignLinks, campaignNumbers, campaignPartners, campaignTotals, seenEventTypes, type CampaignNumbers, type Numbers } from '../../modules/reports/campaigns';
import { ConfirmDialog, ConfirmPanel, ConfirmTrigger, isConfirmed } from '../confirm';
import { CsrfInput, Field, schemaErrors, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { compare, comparePoints, parseRange, RangePicker, rangeStart, type DateRange } from '../range';
import { PAGE_CSP, render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { describeTerms, STANDARD_EVENT_TYPES, EVENT_WORDS } from '../terms';
import { CodesSection, loadCodes, type CodesData } from './codes';
import { AdminLayout, day, Done, NotFoundPage, type AdminKit } from './kit';
import { attr, Badge, EmptyState, formatMoney, formatRate, href, Kpi, MoneyCell, partnerBadge, Trunc, type Tone, NumHead } from '../ui';

const LIST = '/admin/campaigns';
const DONE = {
  created: 'Campaign created.',
  saved: 'Campaign saved.',
  archived: 'Campaign archived: partners can no longer create links for it.',
  unarchived: 'Campaign is live again.',
};
const RULE_FIELDS = ['eventType', 'kind', 'percent', 'amount', 'maxOccurrences', 'durationDays', 'match'] as const;
const MAX_ROWS = 100;
/** The event-type picker's "Other (custom name)…" choice. */
const OTHER = '__other';
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

/** One rule as its form row shows it: every field a string. */
type RuleRow = Record<(typeof RULE_FIELDS)[number], string>;
/** The campaign form as typed. */
type CampaignValues = { name: string; destinationUrl: string; currency: string; holdbackDays: string; rows: RuleRow[] };

const blankRow = (): RuleRow => ({ eventType: '', kind: 'percent', percent: '', amount: '', maxOccurrences: '', durationDays: '', match: '' });

function ruleToRow(rule: Rule): RuleRow {
  return {
    eventType: rule.eventType,
    kind: rule.kind,
    percent: rule.percent === undefined ? '' : String(rule.percent),
    amount: rule.amount ?? '',
    maxOccurrences: rule.maxOccurrences === undefined ? '' : String(rule.maxOccurrences),
    durationDays: rule.durationDays === undefined ? '' : String(rule.durationDays),
    match: Object.entries(rule.match ?? {})
      .map(([k, v]) => `${k}=${typeof v === 'string' && /^(true|false|-?[0-9]+(\.[0-9]+)?|".*")$/.test(v) ? `"${v}"` : String(v)}`)
      .join('\n'),
  };
}

function campaignToValues(c: Campaign): CampaignValues {
  return {
    name: c.name,
    destinationUrl: c.destinationUrl,
    currency: c.currency,
    holdbackDays: c.holdbackDays === null ? '' : String(c.holdbackDays),
    rows: c.rules.map(ruleToRow),
  };
}

/**
 * The form's rows (fields `r<i>_<name>`, `ruleCount` of them; a ticked `r<i>_remove` drops one; rows
 * the script removed are simply missing). The event type is the picker's choice, or the typed name
 * when the picker says "Other" or nothing. Only the amount field the kind needs is read: the other
 * one is cleared (without script both show).
 */
function readValues(form: Record<string, string>): CampaignValues & { removed: Set<number> } {
  const count = Math.min(Number.parseInt(form.ruleCount ?? '0', 10) || 0, MAX_ROWS + 1);
  const rows: RuleRow[] = [];
  const removed = new Set<number>();
  for (let i = 0; i < count; i++) {
    // a row the script removed is not in the form at all; the rest are renumbered in order
    if (form[`r${i}_kind`] === undefined && form[`r${i}_eventPick`] === undefined && form[`r${i}_eventType`] === undefined) continue;
    const row = blankRow();
    for (const f of RULE_FIELDS) row[f] = (form[`r${i}_${f}`] ?? (f === 'kind' ? 'percent' : '')).trim();
    const pick = (form[`r${i}_eventPick`] ?? '').trim();
    if (pick !== '' && pick !== OTHER) row.eventType = pick;
    if (row.kind === 'flat') row.percent = '';
    else row.amount = '';
    if (form[`r${i}_remove`] === 'on') removed.add(rows.length);
    rows.push(row);
  }
  return {
    name: (form.name ?? '').trim(),
    destinationUrl: (form.destinationUrl ?? '').trim(),
    currency: (form.currency ?? '').trim().toUpperCase(),
    holdbackDays: (form.holdbackDays ?? '').trim(),
    rows,
    removed,
  };
}

/** `key=value` lines: true/false are booleans, plain numbers are numbers, "quoted" text is text. */
function parseMatch(text: string): { match?: Record<string, string | number | boolean>; problem?: string } {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return {};
  const match: Record<string, string | number | boolean> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at <= 0) return { problem: `"${line.slice(0, 40)}" is not key=value` };
    const key = line.slice(0, at).trim();
    const raw = line.slice(at + 1).trim();
    if (raw === 'true' || raw === 'false') match[key] = raw === 'true';
    else if (/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) match[key] = Number(raw);
    else if (/^".*"$/.test(raw)) match[key] = raw.slice(1, -1);
    else match[key] = raw;
  }
  return { match };
}

function numberMessage(schema: { minimum?: number; maximum?: number; exclusiveMinimum?: number; maxLength?: number; maxProperties?: number }, value: unknown): string {
  if (value === undefined || value === '') return 'required';
  if (schema.maxProperties !== undefined) return `at most ${schema.maxProperties} lines`;
  if (schema.maxLength !== undefined && typeof value === 'string' && value.length > schema.maxLength) return `at most ${schema.maxLength} characters`;
  const low = schema.exclusiveMinimum !== undefined ? `more than ${schema.exclusiveMinimum}` : schema.minimum !== undefined ? `at least ${schema.minimum}` : '';
  const high = schema.maximum !== undefined ? `at most ${schema.maximum}` : '';
  return [low, high].filter(Boolean).join(' and ') || 'not a valid value';
}

const isBlank = (row: RuleRow) => RULE_FIELDS.every((f) => f === 'kind' || row[f] === '');

/**
 * The rows as Rule objects (blank and removed rows skipped) and the problems found on the way,
 * keyed `r<row>_<field>`; `rowOf[i]` is the form row of rule i (for the service's own problems).
 */
function rowsToRules(rows: RuleRow[], removed: Set<number>): { rules: Rule[]; rowOf: number[]; errors: FormErrors } {
  const rules: Rule[] = [];
  const rowOf: number[] = [];
  const errors: FormErrors = {};
  rows.forEach((row, i) => {
    if (removed.has(i) || isBlank(row)) return;
    const rule: Record<string, unknown> = { eventType: row.eventType, kind: row.kind };
    if (row.percent !== '') {
      const n = Number(row.percent);
      if (Number.isFinite(n)) rule.percent = n;
      else errors[`r${i}_percent`] = 'must be a number, e.g. 20 or 12.5';
    }
    if (row.amount !== '') rule.amount = row.amount;
    for (const f of ['maxOccurrences', 'durationDays'] as const) {
      if (row[f] === '') continue;
      if (/^[0-9]{1,6}$/.test(row[f])) rule[f] = Number(row[f]);
      else errors[`r${i}_${f}`] = 'must be a whole number';
    }
    const { match, problem } = parseMatch(row.match);
    if (problem) errors[`r${i}_match`] = problem;
    else if (match) rule.match = match;
    for (const e of Value.Errors(RuleSchema, rule)) {
      const field = e.path.split('/')[1] ?? 'eventType';
      const key = `r${i}_${RULE_FIELDS.includes(field as never) ? field : 'eventType'}`;
      if (field === 'amount') errors[key] ??= 'a decimal amount, e.g. 5 or 12.50';
      else if (field === 'eventType' && (e.value === undefined || e.value === '')) errors[key] ??= 'choose an event type';
      else errors[key] ??= numberMessage(e.schema as never, e.value);
    }
    rules.push(rule as Rule);
    rowOf.push(i);
  });
  return { rules, rowOf, errors };
}

/** A refused create/update as messages beside the fields (`rules.<i>.<field>` -> `r<row>_<field>`). */
function serviceErrors(error: unknown, rowOf: number[]): FormErrors | null {
  if (!(error instanceof AppError) || error.status >= 500) return null;
  const out: FormErrors = {};
  const details = Array.isArray(error.details) ? (error.details as FieldProblem[]) : [];
  for (const d of details) {
    const m = /^rules\.([0-9]+)\.([A-Za-z]+)/.exec(d.field);
    if (m) out[`r${rowOf[Number(m[1])] ?? 0}_${m[2]}`] ??= d.message;
    else if (['name', 'destinationUrl', 'currency', 'holdbackDays'].includes(d.field)) out[d.field] ??= d.message;
    else out._form ??= `${d.field}: ${d.message}`;
  }
  if (Object.keys(out).length === 0) out._form = error.message;
  return out;
}

/** The rules the summary can describe: the valid rows, in order (rows with problems are left out). */
function summaryRules(values: CampaignValues, errors: FormErrors | undefined): Rule[] {
  const { rules, rowOf, errors: own } = rowsToRules(values.rows, new Set());
  const bad = (i: number) => Object.keys({ ...own, ...errors }).some((k) => k.startsWith(`r${i}_`));
  return rules.filter((_, n) => !bad(rowOf[n]!)).filter((r) => Value.Check(RuleSchema, r));
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
    if (form._more !== undefined) {
      const kept = values.rows.filter((row, i) => !removed.has(i) && !isBlank(row));
      return redraw({ ...values, rows: [...kept, blankRow()] }, undefined, 200);
    }
    const { rules, rowOf, errors } = rowsToRules(values.rows, removed);
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
    const input = { name: values.name, destinationUrl: values.destinationUrl, currency: values.currency, holdbackDays, rules };
    try {
      const saved = campaign ? await updateCampaign(ctx.sql, campaign.id, input) : await createCampaign(ctx.sql, input);
      return seeOther(`${campaignPath(saved.id)}?done=${campaign ? 'saved' : 'created'}`);
    } catch (error) {
      const problems = serviceErrors(error, rowOf);
      if (!problems) throw error;
      return redraw(values, problems, (error as AppError).status);
    }
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
  const values = props.values ?? { name: '', destinationUrl: '', currency: 'USD', holdbackDays: '', rows: [] };
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

/** The rules in words, with a warning on each rule that never pays because an earlier one matches first. */
function TermsSummary(props: { rules: Rule[]; terms: ReturnType<typeof describeTerms>; id: string }) {
  if (props.rules.length === 0) {
    return (
      <div id={props.id} class="terms" role="status">
        <p>No rules: this campaign pays no commissions. Add a rule to pay partners.</p>
      </div>
    );
  }
  return (
    <div id={props.id} class="terms" role="status">
      <ol class="terms-rules">
        {props.terms.rules.map((text, i) => (
          <li data-rule={String(i)}>
            <span safe>{`${text[0]!.toUpperCase()}${text.slice(1)}.`}</span>
            {props.terms.shadowed.includes(i) && (
              <p class="warn" safe>
                {`Never pays: an earlier rule for the same event (${eventLabel(props.rules[i]!.eventType)}) always matches first. Move this rule up or remove it.`}
              </p>
            )}
          </li>
        ))}
      </ol>
      <p class="hint" safe>
        {`${props.terms.holdback} The first rule that matches an event pays.`}
      </p>
    </div>
  );
}

/** An event type as the picker names it. */
const eventLabel = (type: string) => (EVENT_WORDS[type] ? `${EVENT_WORDS[type].one[0]!.toUpperCase()}${EVENT_WORDS[type].one.slice(1)} (${type})` : type);

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
  const rules = summaryRules(v, props.errors);
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
}) {
  const v = props.values;
  const e = props.errors ?? {};
  // every rule row, plus one empty row for a new rule
  const rows = v.rows.length === 0 || !isBlank(v.rows[v.rows.length - 1]!) ? [...v.rows, blankRow()] : v.rows;
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
      </div>
      <h2 id="rules-title">Commission rules</h2>
      <p class="hint">Each rule reads as a sentence. Rules are tried in order; the first that matches an event pays. Leave a row empty to skip it.</p>
      <input type="hidden" name="ruleCount" value={String(rows.length)} data-rule-count />
      <div class="rules" id="rules" data-rules>
        {rows.map((row, i) => (
          <RuleRowView i={String(i)} n={i + 1} row={row} errors={e} eventTypes={props.eventTypes} currency={currency} saved={i < v.rows.length} />
        ))}
      </div>
      <template id="rule-template">
        <RuleRowView i="__i__" n={0} row={blankRow()} errors={{}} eventTypes={props.eventTypes} currency={currency} saved />
      </template>
      <div class="actions">
        <button type="submit" name="_more" value="1" class="secondary" data-add-rule>
          Add another rule
        </button>
      </div>
      <section class="summary" aria-labelledby="summary-title">
        <h3 id="summary-title">In plain words</h3>
        <FormSummary values={v} errors={props.errors} holdbackDefault={props.holdbackDefault} />
      </section>
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

/** One rule as a sentence: "On [event] pay [20] % of the value, for the first [12] per customer, within [365] days". */
function RuleRowView(props: { i: string; n: number; row: RuleRow; errors: FormErrors; eventTypes: string[]; currency: string; saved: boolean }) {
  const { i, row, errors } = props;
  const key = (f: string) => `r${i}_${f}`;
  const known = props.eventTypes.includes(row.eventType);
  const pick = row.eventType === '' ? '' : known ? row.eventType : OTHER;
  const problems = RULE_FIELDS.filter((f) => errors[key(f)]);
  const described = (f: string) => (errors[key(f)] ? `f-${key(f)}-error` : undefined);
  const invalid = (f: string) => (errors[key(f)] ? 'true' : undefined);
  return (
    <fieldset class={problems.length ? 'rule has-error' : 'rule'} data-rule-row={i}>
      <legend data-rule-legend>
        {props.n > 0 ? `Rule ${props.n}` : 'New rule'}
      </legend>
      <div class="rule-sentence">
        <span class="word">On</span>
        <span class="slot">
          <label class="vh" for={`f-${key('eventPick')}`}>
            Event type
          </label>
          <select
            id={`f-${key('eventPick')}`}
            name={key('eventPick')}
            data-event-pick
            aria-invalid={invalid('eventType')}
            aria-describedby={described('eventType')}
          >
            <option value="" selected={pick === ''}>
              Choose an event…
            </option>
            {props.eventTypes.map((type) => (
              <option value={type} selected={pick === type} safe>
                {eventLabel(type)}
              </option>
            ))}
            <option value={OTHER} selected={pick === OTHER}>
              Other (custom name)…
            </option>
          </select>
        </span>
        <span class="slot" data-event-other>
          <label for={`f-${key('eventType')}`} class="inline-label">
            custom name
          </label>
          <input
            id={`f-${key('eventType')}`}
            name={key('eventType')}
            value={pick === OTHER ? row.eventType : ''}
            autocomplete="off"
            class="event-name"
            aria-invalid={invalid('eventType')}
            aria-describedby={described('eventType')}
          />
        </span>
        <span class="word">pay</span>
        <span class="slot">
          <label class="vh" for={`f-${key('kind')}`}>
            Kind
          </label>
          <select id={`f-${key('kind')}`} name={key('kind')} data-kind aria-invalid={invalid('kind')} aria-describedby={described('kind')}>
            <option value="percent" selected={row.kind !== 'flat'}>
              a percent of the value
            </option>
            <option value="flat" selected={row.kind === 'flat'}>
              a flat amount
            </option>
          </select>
        </span>
        <span class="slot" data-kind-field="percent">
          <label class="vh" for={`f-${key('percent')}`}>
            Percent
          </label>
          <input
            id={`f-${key('percent')}`}
            name={key('percent')}
            value={row.percent}
            inputmode="decimal"
            class="short"
            autocomplete="off"
            aria-invalid={invalid('percent')}
            aria-describedby={described('percent')}
          />
          <span class="unit">%</span>
        </span>
        <span class="slot" data-kind-field="flat">
          <label class="vh" for={`f-${key('amount')}`}>
            Amount
          </label>
          <input
            id={`f-${key('amount')}`}
            name={key('amount')}
            value={row.amount}
            inputmode="decimal"
            class="short"
            autocomplete="off"
            aria-invalid={invalid('amount')}
            aria-describedby={described('amount')}
          />
          <span class="unit" safe>
            {props.currency}
          </span>
        </span>
      </div>
      <p class="hint no-script-hint">Percent is read for percent rules only, the amount for flat rules only; the other is ignored.</p>
      <div class="rule-sentence">
        <span class="word">for the first</span>
        <span class="slot">
          <label class="vh" for={`f-${key('maxOccurrences')}`}>
            Max occurrences per customer
          </label>
          <input
            id={`f-${key('maxOccurrences')}`}
            name={key('maxOccurrences')}
            value={row.maxOccurrences}
            inputmode="numeric"
            class="short"
            placeholder="any"
            autocomplete="off"
            aria-invalid={invalid('maxOccurrences')}
            aria-describedby={described('maxOccurrences')}
          />
        </span>
        <span class="word">per customer, within</span>
        <span class="slot">
          <label class="vh" for={`f-${key('durationDays')}`}>
            Duration in days
          </label>
          <input
            id={`f-${key('durationDays')}`}
            name={key('durationDays')}
            value={row.durationDays}
            inputmode="numeric"
            class="short"
            placeholder="any"
            autocomplete="off"
            aria-invalid={invalid('durationDays')}
            aria-describedby={described('durationDays')}
          />
        </span>
        <span class="word">days of the first conversion</span>
      </div>
      <p class="hint">Empty: no limit.</p>
      <details class="rule-match" open={row.match !== '' || !!errors[key('match')]}>
        <summary>Only when the event's metadata matches</summary>
        <div class={errors[key('match')] ? 'field invalid' : 'field'}>
          <label for={`f-${key('match')}`}>Metadata match</label>
          <small id={`f-${key('match')}-hint`}>One key=value per line; all must hold. true/false and numbers match as such, "quoted" as text.</small>
          <textarea
            id={`f-${key('match')}`}
            name={key('match')}
            rows="2"
            aria-invalid={invalid('match')}
            aria-describedby={`f-${key('match')}-hint${errors[key('match')] ? ` f-${key('match')}-error` : ''}`}
            safe
          >
            {row.match}
          </textarea>
        </div>
      </details>
      {problems.length > 0 && (
        <ul class="rule-errors">
          {problems.map((f) => (
            <li>
              <strong safe>{FIELD_NAMES[f]}</strong>
              {': '}
              <span class="error" id={`f-${key(f)}-error`} safe>
                {errors[key(f)]}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div class="rule-remove">
        {props.saved && (
          <label class="check" data-remove-check>
            <input type="checkbox" name={key('remove')} /> Remove this rule
          </label>
        )}
        <button type="button" class="link" data-remove-rule hidden>
          Remove this rule
        </button>
      </div>
    </fieldset>
  );
}

const FIELD_NAMES: Record<(typeof RULE_FIELDS)[number], string> = {
  eventType: 'Event type',
  kind: 'Kind',
  percent: 'Percent',
  amount: 'Amount',
  maxOccurrences: 'For the first',
  durationDays: 'Within days',
  match: 'Metadata match',
};
