// Admin partner groups: the list (name, partners, rules in words), create, and a group's page with
// its edit form (name, holdback, rules per campaign or for every campaign) and its members. A
// group's rules win over a campaign's for its members (a commission snapshot still wins over them);
// the rules and checks are the API's (groups/service.ts), the editor is the campaigns' one.
import { Elysia, t } from 'elysia';
import type { AppContext } from '../../context';
import type { AppError } from '../../lib/errors';
import type { GroupRule } from '../../modules/campaigns/rules';
import { listCampaigns } from '../../modules/campaigns/service';
import { CreateGroupBody } from '../../modules/groups/model';
import { createGroup, findGroup, groupMemberCounts, listGroups, updateGroup, type Group } from '../../modules/groups/service';
import { seenEventTypes } from '../../modules/reports/campaigns';
import { Field, schemaErrors, type FormErrors } from '../forms';
import { PAGE_CSP, render, seeOther } from '../render';
import type { AdminPage } from '../session';
import { describeRule, describeTerms, STANDARD_EVENT_TYPES } from '../terms';
import { EmptyState, href, NumHead, Trunc } from '../ui';
import { AdminLayout, can, day, Done, NotFoundPage, type AdminKit } from './kit';
import { RuleForm, RulesSection, SubmitActions, SummarySection } from './kit/rule-form';
import { moreRows, readRows, ruleToRow, RuleRows, rowsToRules, serviceErrors, summaryRules, TermsSummary, type RuleRow } from './rule-editor';

const LIST = '/admin/groups';
const FORM_FIELDS = ['name', 'holdbackDays'];
const DONE = { created: 'Group created.', saved: 'Group saved.' };
const Params = t.Object({ id: t.String({ maxLength: 64 }) });
/** Flat amounts of a rule for every campaign are in each campaign's own currency. */
const ANY_CURRENCY = '(campaign currency)';
const groupPath = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

type Campaigns = { id: string; name: string; currency: string }[];
type GroupValues = { name: string; holdbackDays: string; rows: RuleRow[] };

const groupToValues = (g: Group): GroupValues => ({ name: g.name, holdbackDays: g.holdbackDays === null ? '' : String(g.holdbackDays), rows: g.rules.map(ruleToRow) });

function readValues(form: Record<string, string>): GroupValues & { removed: Set<number> } {
  const { rows, removed } = readRows(form);
  return { name: (form.name ?? '').trim(), holdbackDays: (form.holdbackDays ?? '').trim(), rows, removed };
}

/** One group rule in words: "In Pro plan: 25% of every paid invoice" (or "In every campaign: …"). */
export function describeGroupRule(rule: GroupRule, campaigns: Campaigns): string {
  const campaign = rule.campaignId === undefined ? undefined : campaigns.find((c) => c.id === rule.campaignId);
  const where = rule.campaignId === undefined ? 'In every campaign' : `In ${campaign?.name ?? rule.campaignId}`;
  return `${where}: ${describeRule(rule, campaign?.currency ?? ANY_CURRENCY)}`;
}

export function groupRoutes(ctx: AppContext, kit: AdminKit) {
  async function choices() {
    const [campaigns, types] = await Promise.all([listCampaigns(ctx.sql, { limit: 500 }), seenEventTypes(ctx.sql, { exclude: STANDARD_EVENT_TYPES })]);
    return {
      campaigns: campaigns.slice(0, 500).map((c) => ({ id: c.id, name: c.name, currency: c.currency })),
      eventTypes: [...STANDARD_EVENT_TYPES, ...types],
    };
  }

  async function listView(page: AdminPage, input: { values?: GroupValues; errors?: FormErrors; done?: string } = {}) {
    const groups = (await listGroups(ctx.sql, { limit: 200 })).slice(0, 200);
    const [counts, c] = await Promise.all([groupMemberCounts(ctx.sql, groups.map((g) => g.id)), choices()]);
    return (<GroupsPage page={page} groups={groups} counts={counts} {...c} {...input} holdbackDefault={ctx.config.holdbackDays} />) as string;
  }

  async function groupView(page: AdminPage, group: Group, input: { values?: GroupValues; errors?: FormErrors; done?: string } = {}) {
    const [counts, c] = await Promise.all([groupMemberCounts(ctx.sql, [group.id]), choices()]);
    return (
      <GroupPage page={page} group={group} members={counts.get(group.id) ?? 0} values={input.values ?? groupToValues(group)} errors={input.errors} done={input.done} {...c} holdbackDefault={ctx.config.holdbackDays} />
    ) as string;
  }

  /** Create (group null) or save, checked with the API's schemas first, then by the service. */
  async function submit(page: AdminPage, form: Record<string, string>, group: Group | null): Promise<Response> {
    const { removed, ...values } = readValues(form);
    const redraw = async (v: GroupValues, errors: FormErrors | undefined, status: number) =>
      render(group ? await groupView(page, group, { values: v, errors }) : await listView(page, { values: v, errors }), { status });
    const more = moreRows(form, values.rows, removed);
    if (more) return redraw({ ...values, rows: more }, undefined, 200);
    const { rules, rowOf, tierOf, errors } = rowsToRules(values.rows, removed, { group: true });
    let holdbackDays: number | null = null;
    if (values.holdbackDays !== '') {
      if (/^[0-9]{1,4}$/.test(values.holdbackDays) && Number(values.holdbackDays) <= 3650) holdbackDays = Number(values.holdbackDays);
      else errors.holdbackDays = "a whole number of days, 0 to 3650 (empty: the campaign's)";
    }
    for (const [k, message] of Object.entries(schemaErrors(t.Object({ name: CreateGroupBody.properties.name }), { name: values.name }))) errors[k] ??= message;
    if (Object.keys(errors).length > 0) return redraw(values, errors, 400);
    try {
      const input = { name: values.name, holdbackDays, rules };
      const saved = group ? await updateGroup(ctx.sql, group.id, input) : await createGroup(ctx.sql, input);
      return seeOther(`${groupPath(saved.id)}?done=${group ? 'saved' : 'created'}`);
    } catch (error) {
      const problems = serviceErrors(error, { rowOf, tierOf }, FORM_FIELDS);
      if (!problems) throw error;
      return redraw(values, problems, (error as AppError).status);
    }
  }

  async function withGroup(page: AdminPage, id: string, act: (group: Group) => Promise<Response>): Promise<Response> {
    const group = await findGroup(ctx.sql, id);
    if (!group) return render(<NotFoundPage page={page} what="group" back={LIST} />, { status: 404 });
    return act(group);
  }

  return new Elysia({ detail: { hide: true } })
    .get(LIST, ({ request, query }) => kit.page(request, async (page) => render(await listView(page, { done: query.done }))), {
      query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }),
    })
    .post(LIST, ({ request, body }) => kit.form(request, body, LIST, (page, form) => submit(page, form, null)))
    // the editor's summary in words, redrawn as the rules are typed (htmx posts the whole form here)
    .post(`${LIST}/summary`, ({ request, body }) =>
      kit.form(request, body, LIST, async (_page, form) => {
        const { removed, ...values } = readValues(form);
        const { campaigns } = await choices();
        const html = (<GroupSummary values={{ ...values, rows: values.rows.filter((_, i) => !removed.has(i)) }} campaigns={campaigns} holdbackDefault={ctx.config.holdbackDays} />) as string;
        return new Response(html, {
          headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' },
        });
      }),
    )
    .get(
      `${LIST}/:id`,
      ({ request, params, query }) => kit.page(request, (page) => withGroup(page, params.id, async (group) => render(await groupView(page, group, { done: query.done })))),
      { params: Params, query: t.Object({ done: t.Optional(t.String({ maxLength: 20 })) }) },
    )
    .post(
      `${LIST}/:id`,
      ({ request, body, params }) => kit.form(request, body, groupPath(params.id), (page, form) => withGroup(page, params.id, (group) => submit(page, form, group))),
      { params: Params },
    );
}

// ---------------------------------------------------------------------------------------------
// Views

/** The form's rules in words, each with the campaign it applies in. */
function GroupSummary(props: { values: GroupValues; errors?: FormErrors; campaigns: Campaigns; holdbackDefault: number }) {
  const rules = summaryRules(props.values.rows, props.errors, { group: true });
  const words = describeTerms({ rules, currency: ANY_CURRENCY, holdbackDays: /^[0-9]{1,4}$/.test(props.values.holdbackDays) ? Number(props.values.holdbackDays) : props.holdbackDefault });
  const terms = { ...words, rules: rules.map((r) => describeGroupRule(r, props.campaigns)), shadowed: shadowedGroupRules(rules) };
  if (props.values.holdbackDays === '') terms.holdback = "Each campaign's holdback applies.";
  return <TermsSummary rules={rules} terms={terms} id="rule-summary" empty="No rules: members earn under each campaign's own rules." />;
}

/** A rule never pays when an earlier rule for the same event and the same (or every) campaign has no conditions. */
function shadowedGroupRules(rules: GroupRule[]): number[] {
  const out: number[] = [];
  rules.forEach((rule, i) => {
    const earlier = rules
      .slice(0, i)
      .some(
        (r) =>
          r.eventType === rule.eventType &&
          (r.campaignId === undefined || r.campaignId === rule.campaignId) &&
          r.match === undefined &&
          r.maxOccurrences === undefined &&
          r.durationDays === undefined,
      );
    if (earlier) out.push(i);
  });
  return out;
}

function GroupForm(props: {
  page: AdminPage;
  action: string;
  values: GroupValues;
  errors?: FormErrors;
  submit: string;
  eventTypes: string[];
  campaigns: Campaigns;
  holdbackDefault: number;
  cancel?: string;
}) {
  const v = props.values;
  const e = props.errors ?? {};
  return (
    <RuleForm id="group-form" action={props.action} summaryAction={`${LIST}/summary`} csrf={props.page.csrf} errors={e}>
      <div class="narrow">
        <Field name="name" label="Name" hint="e.g. Top affiliates, Agencies" value={v.name} error={e.name} required />
        <Field
          name="holdbackDays"
          label="Holdback days (optional)"
          hint={`Days before a member's commission is approved; empty: the campaign's holdback (default ${props.holdbackDefault}).`}
          value={v.holdbackDays}
          error={e.holdbackDays}
        />
      </div>
      <h2 id="rules-title">Rules for members</h2>
      <p class="hint">
        A member earns under the first of these rules that matches an event (a rule for that campaign first, then one for every campaign); when none matches, the
        campaign's own rules apply. A partner's commission snapshot still wins over the group.
      </p>
      <RulesSection>
        <RuleRows rows={v.rows} errors={e} eventTypes={props.eventTypes} currency="campaign currency" campaigns={props.campaigns} />
      </RulesSection>
      <SummarySection>
        <GroupSummary values={v} errors={props.errors} campaigns={props.campaigns} holdbackDefault={props.holdbackDefault} />
      </SummarySection>
      <SubmitActions submit={props.submit} cancel={props.cancel} />
    </RuleForm>
  );
}

function GroupsPage(props: {
  page: AdminPage;
  groups: Group[];
  counts: Map<string, number>;
  campaigns: Campaigns;
  eventTypes: string[];
  values?: GroupValues;
  errors?: FormErrors;
  done?: string;
  holdbackDefault: number;
}) {
  // a role that may not change groups reads them, without the buttons and forms that would
  const write = can(props.page, 'POST', LIST);
  return (
    <AdminLayout page={props.page} title="Groups" current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <div class="page-head">
        <h1>Groups</h1>
        {write && (
          <div class="actions">
            <a class="button" href="#new">
              New group
            </a>
          </div>
        )}
      </div>
      <p class="hint page-intro">Groups give their members their own rates: a group's rules win over a campaign's. Move partners into a group from the partners list or a partner's page.</p>
      <Done texts={DONE} done={props.done} />
      {props.groups.length === 0 ? (
        <EmptyState title="No groups yet" text="Create a group to pay some partners differently, e.g. a higher rate for your top affiliates." action={write ? { href: '#new', label: 'Create a group' } : undefined} />
      ) : (
        <div class="table-wrap">
          <table id="groups" class="stack">
            <caption class="vh">Partner groups, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <NumHead label="Partners" />
                <th scope="col">Rules</th>
                <th scope="col">Holdback</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.groups.map((g) => {
                const n = props.counts.get(g.id) ?? 0;
                const rules = g.rules.length === 0 ? "None: the campaigns' rules" : g.rules.map((r) => describeGroupRule(r, props.campaigns)).join('; ');
                return (
                  <tr data-id={g.id}>
                    <td class="lead">
                      <Trunc text={g.name} href={groupPath(g.id)} />
                    </td>
                    <td class="num" data-label="Partners" data-stat="partners">
                      <a href={href('/admin/partners', { group: g.id })} safe>
                        {n.toLocaleString('en-US')}
                      </a>
                    </td>
                    <td data-label="Rules" class="rules-cell" data-stat="rules">
                      <Trunc text={rules} wide />
                    </td>
                    <td data-label="Holdback" safe>
                      {g.holdbackDays === null ? "campaign's" : `${g.holdbackDays} days`}
                    </td>
                    <td data-label="Created" class="date" safe>
                      {day(g.createdAt)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {write && (
        <>
          <h2 id="new">New group</h2>
          <GroupForm
            page={props.page}
            action={LIST}
            values={props.values ?? { name: '', holdbackDays: '', rows: [] }}
            errors={props.errors}
            submit="Create group"
            eventTypes={props.eventTypes}
            campaigns={props.campaigns}
            holdbackDefault={props.holdbackDefault}
          />
        </>
      )}
    </AdminLayout>
  );
}

function GroupPage(props: {
  page: AdminPage;
  group: Group;
  members: number;
  values: GroupValues;
  errors?: FormErrors;
  done?: string;
  campaigns: Campaigns;
  eventTypes: string[];
  holdbackDefault: number;
}) {
  const g = props.group;
  const write = can(props.page, 'POST', `${LIST}/:id`);
  return (
    <AdminLayout page={props.page} title={g.name} current={LIST} scripts={['/assets/htmx.js', '/assets/rules.js']}>
      <p class="back">
        <a href={LIST}>All groups</a>
      </p>
      <div class="page-head">
        <h1 safe>{g.name}</h1>
        <div class="actions">
          <a class="button secondary" href={href('/admin/partners', { group: g.id })} id="members-link" safe>
            {`${props.members.toLocaleString('en-US')} member${props.members === 1 ? '' : 's'}`}
          </a>
        </div>
      </div>
      <Done texts={DONE} done={props.done} />
      <dl class="facts">
        <dt>Members</dt>
        <dd safe>{`${props.members.toLocaleString('en-US')} partner${props.members === 1 ? '' : 's'}`}</dd>
        <dt>Created</dt>
        <dd safe>{day(g.createdAt)}</dd>
        <dt>Id</dt>
        <dd>
          <code safe>{g.id}</code>
        </dd>
        {!write && (
          <>
            <dt>Rules</dt>
            <dd safe>{g.rules.length === 0 ? "None: the campaigns' rules" : g.rules.map((r) => describeGroupRule(r, props.campaigns)).join('; ')}</dd>
            <dt>Holdback</dt>
            <dd safe>{g.holdbackDays === null ? "The campaign's" : `${g.holdbackDays} days`}</dd>
          </>
        )}
      </dl>
      {write && (
        <>
          <h2 id="edit">Edit group</h2>
          <GroupForm
            page={props.page}
            action={groupPath(g.id)}
            values={props.values}
            errors={props.errors}
            submit="Save group"
            eventTypes={props.eventTypes}
            campaigns={props.campaigns}
            holdbackDefault={props.holdbackDefault}
            cancel={LIST}
          />
        </>
      )}
    </AdminLayout>
  );
}
