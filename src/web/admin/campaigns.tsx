// Admin campaigns: list, create, edit with the commission-rule editor, archive and unarchive.
// The rules' schema and checks are the API's (campaigns/rules.ts, campaigns/service.ts); this file
// only turns form rows into Rule objects and problems back into messages beside their fields.
import { Value } from '@sinclair/typebox/value';
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import { AppError, type FieldProblem } from '../../lib/errors';
import { paginate, readPage } from '../../lib/http';
import { CreateCampaignBody } from '../../modules/campaigns/model';
import { Rule as RuleSchema, type Rule } from '../../modules/campaigns/rules';
import { createCampaign, destinationProblem, findCampaign, listCampaigns, updateCampaign, type Campaign } from '../../modules/campaigns/service';
import { CsrfInput, Field, schemaErrors, SelectField, type FormErrors } from '../forms';
import { Notice, OlderLink } from '../layout';
import { render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { AdminLayout, day, Done, NotFoundPage, type AdminKit } from './kit';
import { Badge, Trunc, type Tone } from '../ui';

const LIST = '/admin/campaigns';
const DONE = { created: 'Campaign created.', saved: 'Campaign saved.', archived: 'Campaign archived: partners can no longer create links for it.', unarchived: 'Campaign is live again.' };
const STANDARD_EVENTS = ['signup', 'trial_started', 'subscription_created', 'invoice_paid'];
const RULE_FIELDS = ['eventType', 'kind', 'percent', 'amount', 'maxOccurrences', 'durationDays', 'match'] as const;
const MAX_ROWS = 100;
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
const editPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

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

/** The form's rows (field `r<i>_<name>`, `ruleCount` of them; a ticked `r<i>_remove` drops one). */
function readValues(form: Record<string, string>): CampaignValues & { removed: Set<number> } {
  const count = Math.min(Number.parseInt(form.ruleCount ?? '0', 10) || 0, MAX_ROWS + 1);
  const rows: RuleRow[] = [];
  const removed = new Set<number>();
  for (let i = 0; i < count; i++) {
    const row = blankRow();
    for (const f of RULE_FIELDS) row[f] = (form[`r${i}_${f}`] ?? (f === 'kind' ? 'percent' : '')).trim();
    if (form[`r${i}_remove`] === 'on') removed.add(i);
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

/**
 * The rows as Rule objects (blank and removed rows skipped) and the problems found on the way,
 * keyed `r<row>_<field>`; `rowOf[i]` is the form row of rule i (for the service's own problems).
 */
function rowsToRules(rows: RuleRow[], removed: Set<number>): { rules: Rule[]; rowOf: number[]; errors: FormErrors } {
  const rules: Rule[] = [];
  const rowOf: number[] = [];
  const errors: FormErrors = {};
  rows.forEach((row, i) => {
    if (removed.has(i)) return;
    const blank = RULE_FIELDS.every((f) => f === 'kind' || row[f] === '');
    if (blank) return;
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

export function campaignRoutes(ctx: AppContext, kit: AdminKit) {
  async function listView(page: AdminPage, input: { cursor?: string; values?: CampaignValues; errors?: FormErrors; done?: string }) {
    const p = readPage({ cursor: input.cursor }, 'campaign');
    const { items, nextCursor } = paginate(await listCampaigns(ctx.sql, p), p.limit);
    return (<CampaignsPage page={page} campaigns={items} nextCursor={nextCursor} values={input.values} errors={input.errors} done={input.done} />) as string;
  }

  /**
   * Create (campaign undefined) or save: validates the form with the API's schemas, then calls the
   * service; "Add a rule" only redraws the form with one more empty row.
   */
  async function submit(page: AdminPage, form: Record<string, string>, campaign: Campaign | null): Promise<Response> {
    const { removed, ...values } = readValues(form);
    const redraw = (v: CampaignValues, errors: FormErrors | undefined, status: number) =>
      campaign
        ? render(<CampaignPage page={page} campaign={campaign} values={v} errors={errors} />, { status })
        : listView(page, { values: v, errors }).then((html) => render(html, { status }));
    if (form._more !== undefined) {
      const kept = values.rows.filter((_, i) => !removed.has(i));
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
      return seeOther(`${editPath(saved.id)}?done=${campaign ? 'saved' : 'created'}`);
    } catch (error) {
      const problems = serviceErrors(error, rowOf);
      if (!problems) throw error;
      return redraw(values, problems, (error as AppError).status);
    }
  }

  return new Elysia({ detail: { hide: true } })
    .get(
      LIST,
      ({ request, query }) => kit.page(request, async (page) => render(await listView(page, query))),
      { query: t.Object({ cursor: t.Optional(t.String({ maxLength: 64 })), done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(LIST, ({ request, body }) => kit.form(request, body, LIST, (page, form) => submit(page, form, null)))
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) =>
        kit.page(request, async (page) => {
          const campaign = await findCampaign(ctx.sql, params.id);
          if (!campaign) return render(<NotFoundPage page={page} what="campaign" back={LIST} />, { status: 404 });
          return render(<CampaignPage page={page} campaign={campaign} values={campaignToValues(campaign)} done={query.done} />);
        }),
      { params: Params, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) =>
        kit.form(request, body, editPath(params.id), async (page, form) => {
          const campaign = await findCampaign(ctx.sql, params.id);
          if (!campaign) return render(<NotFoundPage page={page} what="campaign" back={LIST} />, { status: 404 });
          return submit(page, form, campaign);
        }),
      { params: Params },
    )
    .post(
      `${LIST}/:id/archive`,
      ({ request, body, params }) =>
        kit.form(request, body, editPath(params.id), async (page, form) => {
          const campaign = await findCampaign(ctx.sql, params.id);
          if (!campaign) return render(<NotFoundPage page={page} what="campaign" back={LIST} />, { status: 404 });
          const archived = form.archived !== 'false';
          await updateCampaign(ctx.sql, campaign.id, { archived });
          return seeOther(`${editPath(campaign.id)}?done=${archived ? 'archived' : 'unarchived'}`);
        }),
      { params: Params },
    );
}

// ---------------------------------------------------------------------------------------------
// Views

function CampaignsPage(props: { page: AdminPage; campaigns: Campaign[]; nextCursor: string | null; values?: CampaignValues; errors?: FormErrors; done?: string }) {
  const values = props.values ?? { name: '', destinationUrl: '', currency: 'USD', holdbackDays: '', rows: [] };
  return (
    <AdminLayout page={props.page} title="Campaigns" current={LIST}>
      <h1>Campaigns</h1>
      <Done texts={DONE} done={props.done} />
      {props.campaigns.length === 0 ? (
        <p class="empty">No campaigns yet.</p>
      ) : (
        <div class="table-wrap">
          <table id="campaigns" class="stack">
            <caption class="vh">Campaigns, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Currency</th>
                <th scope="col" class="num">
                  Rules
                </th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.campaigns.map((c) => (
                <tr data-id={c.id}>
                  <td class="lead fill">
                    <Trunc text={c.name} href={editPath(c.id)} wide />
                  </td>
                  <td data-label="Currency" safe>
                    {c.currency}
                  </td>
                  <td class="num" data-label="Rules">
                    {c.rules.length}
                  </td>
                  <td class="badge-cell" data-label="Status">
                    <Badge {...campaignBadge(c)} />
                  </td>
                  <td data-label="Created" safe>
                    {day(c.createdAt)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OlderLink path={LIST} cursor={props.nextCursor} label="Older campaigns" />
      <h2 id="new">New campaign</h2>
      <CampaignForm page={props.page} action={LIST} values={values} errors={props.errors} submit="Create campaign" />
    </AdminLayout>
  );
}

/** Live campaigns take new links; archived ones keep theirs. */
function campaignBadge(c: Campaign): { tone: Tone; label: string; title: string } {
  return c.archivedAt
    ? { tone: 'grey', label: 'Archived', title: 'Archived: existing links keep working; partners cannot create new ones until unarchived' }
    : { tone: 'green', label: 'Live', title: 'Live: partners holding it can create links and earn commissions' };
}

function CampaignPage(props: { page: AdminPage; campaign: Campaign; values: CampaignValues; errors?: FormErrors; done?: string }) {
  const c = props.campaign;
  return (
    <AdminLayout page={props.page} title={c.name} current={LIST}>
      <p class="back">
        <a href={LIST}>All campaigns</a>
      </p>
      <h1 safe>{c.name}</h1>
      <Done texts={DONE} done={props.done} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Badge {...campaignBadge(c)} id="campaign-status" />
        </dd>
        <dt>Id</dt>
        <dd>
          <code safe>{c.id}</code>
        </dd>
      </dl>
      <CampaignForm page={props.page} action={editPath(c.id)} values={props.values} errors={props.errors} submit="Save campaign" />
      <h2>Archive</h2>
      <form method="post" action={`${editPath(c.id)}/archive`}>
        <CsrfInput token={props.page.csrf} />
        <input type="hidden" name="archived" value={c.archivedAt ? 'false' : 'true'} />
        {c.archivedAt ? (
          <button type="submit" class="secondary">
            Unarchive campaign
          </button>
        ) : (
          <>
            <p class="hint">Archived campaigns keep their links and commissions; partners can no longer create links for them.</p>
            <button type="submit" class="danger">
              Archive campaign
            </button>
          </>
        )}
      </form>
    </AdminLayout>
  );
}

function CampaignForm(props: { page: AdminPage; action: string; values: CampaignValues; errors?: FormErrors; submit: string }) {
  const v = props.values;
  const e = props.errors ?? {};
  // every saved rule, plus one empty row for a new rule
  const rows = v.rows.length === 0 || RULE_FIELDS.some((f) => f !== 'kind' && v.rows[v.rows.length - 1]![f] !== '') ? [...v.rows, blankRow()] : v.rows;
  return (
    <form method="post" action={props.action} novalidate id="campaign-form">
      <CsrfInput token={props.page.csrf} />
      {!!e._form && <Notice kind="error" text={e._form} />}
      <div class="narrow">
        <Field name="name" label="Name" value={v.name} error={e.name} required />
        <Field name="destinationUrl" label="Destination URL" hint="Where share links land, e.g. https://app.example.com/signup" value={v.destinationUrl} error={e.destinationUrl} required />
        <Field name="currency" label="Currency" hint="ISO 4217 code, e.g. USD or EUR" value={v.currency} error={e.currency} required />
        <Field name="holdbackDays" label="Holdback days (optional)" hint="Days before a commission is approved; empty: the service default." value={v.holdbackDays} error={e.holdbackDays} />
      </div>
      <h2>Commission rules</h2>
      <p class="hint">
        One rule per event type. Percent rules pay a share of the event value, flat rules a fixed amount. Leave a row empty to skip it.
      </p>
      <datalist id="event-types">
        {STANDARD_EVENTS.map((name) => (
          <option value={name}></option>
        ))}
      </datalist>
      <input type="hidden" name="ruleCount" value={String(rows.length)} />
      {rows.map((row, i) => (
        <fieldset class="rule" data-row={String(i)}>
          <legend safe>{`Rule ${i + 1}`}</legend>
          <div class="rule-grid">
            <RuleField i={i} name="eventType" label="Event type" hint="signup, trial_started, subscription_created, invoice_paid or a custom name" row={row} errors={e} list="event-types" />
            <SelectField
              name={`r${i}_kind`}
              label="Kind"
              value={row.kind}
              options={[
                { value: 'percent', label: 'Percent of the event value' },
                { value: 'flat', label: 'Flat amount' },
              ]}
              error={e[`r${i}_kind`]}
            />
            <RuleField i={i} name="percent" label="Percent" hint="Percent rules, e.g. 20" row={row} errors={e} />
            <RuleField i={i} name="amount" label="Amount" hint="Flat rules, in the campaign currency" row={row} errors={e} />
            <RuleField i={i} name="maxOccurrences" label="Max occurrences" hint="Per referred user; empty: no limit" row={row} errors={e} />
            <RuleField i={i} name="durationDays" label="Duration (days)" hint="Only events this many days after the referral; empty: forever" row={row} errors={e} />
          </div>
          <MatchField i={i} row={row} error={e[`r${i}_match`]} />
          {i < v.rows.length && (
            <label class="check">
              <input type="checkbox" name={`r${i}_remove`} /> Remove this rule
            </label>
          )}
        </fieldset>
      ))}
      <div class="actions">
        <button type="submit" safe>
          {props.submit}
        </button>
        <button type="submit" name="_more" value="1" class="secondary">
          Add another rule
        </button>
      </div>
    </form>
  );
}

function RuleField(props: { i: number; name: keyof RuleRow; label: string; hint: string; row: RuleRow; errors: FormErrors; list?: string }) {
  const name = `r${props.i}_${props.name}`;
  const id = `f-${name}`;
  const error = props.errors[name];
  return (
    <div class={error ? 'field invalid' : 'field'}>
      <label for={id} safe>
        {props.label}
      </label>
      <small id={`${id}-hint`} safe>
        {props.hint}
      </small>
      <input
        id={id}
        name={name}
        value={props.row[props.name]}
        list={props.list}
        autocomplete="off"
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
      />
      {!!error && (
        <p class="error" id={`${id}-error`} safe>
          {error}
        </p>
      )}
    </div>
  );
}

function MatchField(props: { i: number; row: RuleRow; error?: string }) {
  const name = `r${props.i}_match`;
  const id = `f-${name}`;
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id}>Metadata match (optional)</label>
      <small id={`${id}-hint`}>One key=value per line; the event's metadata must hold all of them. true/false and numbers match as such, "quoted" as text.</small>
      <textarea
        id={id}
        name={name}
        rows="2"
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={`${id}-hint${props.error ? ` ${id}-error` : ''}`}
        safe
      >
        {props.row.match}
      </textarea>
      {!!props.error && (
        <p class="error" id={`${id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}
