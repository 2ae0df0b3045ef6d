// The commission rule editor shared by campaigns and partner groups: form rows <-> Rule objects,
// problems back beside their fields, and each rule drawn as a sentence of inline controls with its
// tiers (pay more once the partner's trailing revenue or new customers reach a threshold). The
// rules' schema and checks are the API's (campaigns/rules.ts); assets/rules.js adds and removes
// rows without a reload. A group rule may also name the one campaign it applies in. The row model is
// rule-model.ts, the drawing rule-row.tsx; both are re-exported here.
import { Value } from '@sinclair/typebox/value';
import { AppError, type FieldProblem } from '../../lib/errors';
import { GroupRule as GroupRuleSchema, Rule as RuleSchema, ruleProblems, type GroupRule, type Rule } from '../../modules/campaigns/rules';
import type { FormErrors } from '../forms';
import { describeTerms } from '../terms';
import { blankRow, blankTier, eventLabel, isBlank, MAX_ROWS, MAX_TIERS, OTHER, RULE_FIELDS, TIER_FIELDS, tierBlank, type RuleRow, type TierRow } from './rule-model';

export { blankRow, blankTier, eventLabel, isBlank, MAX_ROWS, RULE_FIELDS, type RuleRow, type TierRow } from './rule-model';
export { RuleRows, type RowContext } from './rule-row';

const num = (n: number | undefined) => (n === undefined ? '' : String(n));

export function ruleToRow(rule: Rule | GroupRule): RuleRow {
  return {
    eventType: rule.eventType,
    kind: rule.kind,
    percent: num(rule.percent),
    amount: rule.amount ?? '',
    maxOccurrences: num(rule.maxOccurrences),
    durationDays: num(rule.durationDays),
    match: Object.entries(rule.match ?? {})
      .map(([k, v]) => `${k}=${typeof v === 'string' && /^(true|false|-?[0-9]+(\.[0-9]+)?|".*")$/.test(v) ? `"${v}"` : String(v)}`)
      .join('\n'),
    periodDays: num(rule.periodDays),
    campaignId: 'campaignId' in rule ? (rule.campaignId ?? '') : '',
    tiers: (rule.tiers ?? []).map((t) => ({ minRevenue: t.minRevenue ?? '', minCustomers: num(t.minCustomers), percent: num(t.percent), amount: t.amount ?? '' })),
  };
}


/**
 * The form's rows (fields `r<i>_<name>`, `ruleCount` of them; a ticked `r<i>_remove` drops one; rows
 * the script removed are simply missing). The event type is the picker's choice, or the typed name
 * when the picker says "Other" or nothing. Only the amount field the kind needs is read: the other
 * one is cleared (without script both show); the same for each tier (`r<i>_t<k>_<name>`). A row's
 * "Add another tier" without script (`_tier` = its form number) gives that row one more empty tier.
 */
export function readRows(form: Record<string, string>): { rows: RuleRow[]; removed: Set<number> } {
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
    const tierCount = Math.min(Number.parseInt(form[`r${i}_tierCount`] ?? '0', 10) || 0, MAX_TIERS + 1);
    for (let k = 0; k < tierCount; k++) {
      const tier = blankTier();
      for (const f of TIER_FIELDS) tier[f] = (form[`r${i}_t${k}_${f}`] ?? '').trim();
      row.tiers.push(tier);
    }
    if (form._tier === String(i) && row.tiers.length < MAX_TIERS) row.tiers.push(blankTier());
    if (row.kind === 'flat') {
      row.percent = '';
      for (const t of row.tiers) t.percent = '';
    } else {
      row.amount = '';
      for (const t of row.tiers) t.amount = '';
    }
    if (form[`r${i}_remove`] === 'on') removed.add(rows.length);
    rows.push(row);
  }
  return { rows, removed };
}

/**
 * The rows to redraw when the form asked for one more row rather than a save: "Add another rule"
 * (`_more`: blank and removed rows dropped, one empty row added) or "Add another tier" (`_tier`: the
 * rows as typed, removed ones dropped; readRows gave the asked row its empty tier). Null for a save.
 */
export function moreRows(form: Record<string, string>, rows: RuleRow[], removed: Set<number>): RuleRow[] | null {
  if (form._tier !== undefined) return rows.filter((_, i) => !removed.has(i));
  if (form._more !== undefined) return [...rows.filter((row, i) => !removed.has(i) && !isBlank(row)), blankRow()];
  return null;
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


const WHOLE = /^[0-9]{1,9}$/;

/**
 * The rows as Rule objects (blank and removed rows and blank tiers skipped) and the problems found
 * on the way, keyed `r<row>_<field>` and `r<row>_t<tier>_<field>`; `rowOf[i]` is the form row of
 * rule i and `tierOf[i][j]` the form tier of its tier j (for the service's own problems).
 */
export function rowsToRules(rows: RuleRow[], removed: Set<number>, options: { group?: boolean } = {}): { rules: GroupRule[]; rowOf: number[]; tierOf: number[][]; errors: FormErrors } {
  const rules: GroupRule[] = [];
  const rowOf: number[] = [];
  const tierOf: number[][] = [];
  const errors: FormErrors = {};
  const schema = options.group ? GroupRuleSchema : RuleSchema;
  rows.forEach((row, i) => {
    if (removed.has(i) || isBlank(row)) return;
    const rule: Record<string, unknown> = { eventType: row.eventType, kind: row.kind };
    if (options.group && row.campaignId !== '') rule.campaignId = row.campaignId;
    const decimal = (text: string, key: string) => {
      const n = Number(text);
      if (Number.isFinite(n)) return n;
      errors[key] = 'must be a number, e.g. 20 or 12.5';
      return undefined;
    };
    if (row.percent !== '') rule.percent = decimal(row.percent, `r${i}_percent`);
    if (row.amount !== '') rule.amount = row.amount;
    for (const f of ['maxOccurrences', 'durationDays', 'periodDays'] as const) {
      if (row[f] === '') continue;
      if (WHOLE.test(row[f])) rule[f] = Number(row[f]);
      else errors[`r${i}_${f}`] = 'must be a whole number';
    }
    const { match, problem } = parseMatch(row.match);
    if (problem) errors[`r${i}_match`] = problem;
    else if (match) rule.match = match;
    const tiers: Record<string, unknown>[] = [];
    const tierRows: number[] = [];
    row.tiers.forEach((t, k) => {
      if (tierBlank(t)) return;
      const tier: Record<string, unknown> = {};
      if (t.minRevenue !== '') tier.minRevenue = t.minRevenue;
      if (t.minCustomers !== '') {
        if (WHOLE.test(t.minCustomers)) tier.minCustomers = Number(t.minCustomers);
        else errors[`r${i}_t${k}_minCustomers`] = 'must be a whole number';
      }
      if (t.percent !== '') tier.percent = decimal(t.percent, `r${i}_t${k}_percent`);
      if (t.amount !== '') tier.amount = t.amount;
      if (t.minRevenue === '' && t.minCustomers === '') errors[`r${i}_t${k}_minRevenue`] = 'give a revenue or a number of new customers (or both)';
      tiers.push(tier);
      tierRows.push(k);
    });
    if (tiers.length > 0) rule.tiers = tiers;
    for (const e of Value.Errors(schema, rule)) {
      const parts = e.path.split('/').slice(1);
      let key: string;
      if (parts[0] === 'tiers' && parts[1] !== undefined) {
        const k = tierRows[Number(parts[1])] ?? 0;
        const field = (TIER_FIELDS as readonly string[]).includes(parts[2] ?? '') ? parts[2] : 'minRevenue';
        key = `r${i}_t${k}_${field}`;
      } else {
        const field = parts[0] ?? 'eventType';
        key = `r${i}_${(RULE_FIELDS as readonly string[]).includes(field) ? field : 'eventType'}`;
      }
      if (key.endsWith('_amount') || key.endsWith('_minRevenue')) errors[key] ??= 'a decimal amount, e.g. 5 or 12.50';
      else if (key === `r${i}_eventType` && (e.value === undefined || e.value === '')) errors[key] ??= 'choose an event type';
      else errors[key] ??= numberMessage(e.schema as never, e.value);
    }
    rules.push(rule as GroupRule);
    rowOf.push(i);
    tierOf.push(tierRows);
  });
  return { rules, rowOf, tierOf, errors };
}

/**
 * A refused create/update as messages beside the fields: `rules.<i>.<field>` -> `r<row>_<field>`,
 * `rules.<i>.tiers.<j>[.<field>]` -> `r<row>_t<tier>_<field>`; `fields` are the form's own fields.
 */
export function serviceErrors(error: unknown, at: { rowOf: number[]; tierOf: number[][] }, fields: string[]): FormErrors | null {
  if (!(error instanceof AppError) || error.status >= 500) return null;
  const out: FormErrors = {};
  const details = Array.isArray(error.details) ? (error.details as FieldProblem[]) : [];
  for (const d of details) {
    const tier = /^rules\.([0-9]+)\.tiers\.([0-9]+)(?:\.([A-Za-z]+))?/.exec(d.field);
    const rule = /^rules\.([0-9]+)\.([A-Za-z]+)/.exec(d.field);
    if (tier) {
      const i = Number(tier[1]);
      const k = at.tierOf[i]?.[Number(tier[2])] ?? 0;
      out[`r${at.rowOf[i] ?? 0}_t${k}_${tier[3] ?? 'minRevenue'}`] ??= d.message;
    } else if (rule) out[`r${at.rowOf[Number(rule[1])] ?? 0}_${rule[2]}`] ??= d.message;
    else if (fields.includes(d.field)) out[d.field] ??= d.message;
    else out._form ??= `${d.field}: ${d.message}`;
  }
  if (Object.keys(out).length === 0) out._form = error.message;
  return out;
}

/** The rules the summary can describe: the valid rows, in order (rows with problems are left out). */
export function summaryRules(rows: RuleRow[], errors: FormErrors | undefined, options: { group?: boolean } = {}): GroupRule[] {
  const { rules, rowOf, errors: own } = rowsToRules(rows, new Set(), options);
  const bad = (i: number) => Object.keys({ ...own, ...errors }).some((k) => k.startsWith(`r${i}_`));
  const schema = options.group ? GroupRuleSchema : RuleSchema;
  // a rule still missing what its kind needs (a flat rule without its amount) is not described yet
  return rules.filter((_, n) => !bad(rowOf[n]!)).filter((r) => Value.Check(schema, r) && ruleProblems([r], 'rules').length === 0);
}


/** The rules in words, with a warning on each rule that never pays because an earlier one matches first. */
export function TermsSummary(props: { rules: Rule[]; terms: ReturnType<typeof describeTerms>; id: string; empty?: string; prefix?: (i: number) => string }) {
  if (props.rules.length === 0) {
    return (
      <div id={props.id} class="terms" role="status">
        <p safe>{props.empty ?? 'No rules: this campaign pays no commissions. Add a rule to pay partners.'}</p>
      </div>
    );
  }
  return (
    <div id={props.id} class="terms" role="status">
      <ol class="terms-rules">
        {props.terms.rules.map((text, i) => (
          <li data-rule={String(i)}>
            <span safe>{`${props.prefix?.(i) ?? ''}${text[0]!.toUpperCase()}${text.slice(1)}.`}</span>
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
