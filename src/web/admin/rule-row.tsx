// A rule drawn as a sentence of inline controls, with its tiers and its problems beside their fields;
// the editor's rows plus the template assets/rules.js clones for a new one.
import { DEFAULT_PERIOD_DAYS } from '../../modules/campaigns/rules';
import type { FormErrors } from '../forms';
import { blankRow, blankTier, eventLabel, MAX_TIERS, OTHER, type RuleRow, type TierRow } from './rule-model';

/** Everything a rule row needs besides its values. */
export type RowContext = {
  errors: FormErrors;
  eventTypes: string[];
  currency: string;
  /** Group rules: the campaigns a rule may be limited to ("every campaign" when none is chosen). */
  campaigns?: { id: string; name: string }[];
};

/** The editor's rows (one empty row when there are none), the row count, and the templates the script clones (a rule, a tier). */
export function RuleRows(props: RowContext & { rows: RuleRow[] }) {
  // the rows as they are: an empty one only for a form without rules ("Add another rule" adds more)
  const rows = props.rows.length === 0 ? [blankRow()] : props.rows;
  return (
    <>
      <input type="hidden" name="ruleCount" value={String(rows.length)} data-rule-count />
      <div class="rules" id="rules" data-rules>
        {rows.map((row, i) => (
          <RuleRowView i={String(i)} n={i + 1} row={row} {...props} saved={i < props.rows.length} />
        ))}
      </div>
      <template id="rule-template">
        <RuleRowView i="__i__" n={0} row={blankRow()} {...props} errors={{}} saved />
      </template>
      <template id="tier-template">
        <TierRowView i="__i__" k="__k__" n="__n__" tier={blankTier()} errors={{}} currency={props.currency} />
      </template>
    </>
  );
}

type RowProps = RowContext & { i: string; n: number; row: RuleRow; saved: boolean };

/** A row's field names (`r<i>_<name>`), their error links, and its plain inputs. */
function rowSlots(props: RowProps) {
  const { i, row, errors } = props;
  const key = (f: string) => `r${i}_${f}`;
  const described = (f: string) => (errors[key(f)] ? `f-${key(f)}-error` : undefined);
  const invalid = (f: string) => (errors[key(f)] ? 'true' : undefined);
  const input = (f: string, label: string, extra: { placeholder?: string; numeric?: boolean; cls?: string } = {}) => (
    <SlotInput id={key(f)} label={label} value={(row as unknown as Record<string, string>)[f] ?? ''} {...extra} invalid={invalid(f)} described={described(f)} />
  );
  return { key, described, invalid, input };
}

/** One rule as a sentence: "On [event] pay [20] % of the value, for the first [12] per customer, within [365] days". */
function RuleRowView(props: RowProps) {
  const { i, row, errors } = props;
  const { key, invalid, described, input } = rowSlots(props);
  const problems = Object.keys(errors).filter((k) => k.startsWith(`r${i}_`));
  return (
    <fieldset class={problems.length ? 'rule has-error' : 'rule'} data-rule-row={i}>
      <legend data-rule-legend>{props.n > 0 ? `Rule ${props.n}` : 'New rule'}</legend>
      {!!props.campaigns && <CampaignSentence {...props} campaigns={props.campaigns} />}
      <EventSentence {...props} />
      <p class="hint no-script-hint">Percent is read for percent rules only, the amount for flat rules only; the other is ignored.</p>
      <div class="rule-sentence">
        <span class="word">for the first</span>
        <span class="slot">{input('maxOccurrences', 'Max occurrences per customer', { placeholder: 'any', numeric: true })}</span>
        <span class="word">per customer, within</span>
        <span class="slot">{input('durationDays', 'Duration in days', { placeholder: 'any', numeric: true })}</span>
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
      <TiersDetails {...props} problems={problems} />
      {problems.length > 0 && <RowProblems i={i} errors={errors} problems={problems} />}
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

/** A group rule's campaign: "In [every campaign]". */
function CampaignSentence(props: RowProps & { campaigns: { id: string; name: string }[] }) {
  const { row } = props;
  const { key, invalid, described } = rowSlots(props);
  return (
    <div class="rule-sentence">
      <span class="word">In</span>
      <span class="slot">
        <label class="vh" for={`f-${key('campaignId')}`}>
          Campaign
        </label>
        <select id={`f-${key('campaignId')}`} name={key('campaignId')} aria-invalid={invalid('campaignId')} aria-describedby={described('campaignId')}>
          <option value="" selected={row.campaignId === ''}>
            every campaign
          </option>
          {props.campaigns.map((c) => (
            <option value={c.id} selected={row.campaignId === c.id} safe>
              {c.name}
            </option>
          ))}
          {row.campaignId !== '' && !props.campaigns.some((c) => c.id === row.campaignId) && (
            <option value={row.campaignId} selected safe>
              {row.campaignId}
            </option>
          )}
        </select>
      </span>
    </div>
  );
}

/** "On [event] pay [a percent of the value] [20] %": the event picker, the kind and its value. */
function EventSentence(props: RowProps) {
  const { row } = props;
  const { key, invalid, described, input } = rowSlots(props);
  const known = props.eventTypes.includes(row.eventType);
  const pick = row.eventType === '' ? '' : known ? row.eventType : OTHER;
  return (
    <div class="rule-sentence">
      <span class="word">On</span>
      <span class="slot">
        <label class="vh" for={`f-${key('eventPick')}`}>
          Event type
        </label>
        <select id={`f-${key('eventPick')}`} name={key('eventPick')} data-event-pick aria-invalid={invalid('eventType')} aria-describedby={described('eventType')}>
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
        {input('percent', 'Percent')}
        <span class="unit">%</span>
      </span>
      <span class="slot" data-kind-field="flat">
        {input('amount', 'Amount')}
        <span class="unit" safe>
          {props.currency}
        </span>
      </span>
    </div>
  );
}

/** The rule's tiers: the period they measure over, one row per tier, and "Add another tier". */
function TiersDetails(props: RowProps & { problems: string[] }) {
  const { i, row } = props;
  const { key, input } = rowSlots(props);
  // the tiers as they are: a saved rule's tiers, or the rows asked for; no empty row unless asked
  const tiers = row.tiers.slice(0, MAX_TIERS);
  const tiersOpen = tiers.length > 0 || row.periodDays !== '' || props.problems.some((k) => /_t[0-9]+_|_periodDays$/.test(k));
  return (
    <details class="rule-match rule-tiers" open={tiersOpen} data-tiers>
      <summary>Tiers: pay more as the partner sells more</summary>
      <p class="hint">
        The partner's attributed revenue (or new referred customers) in the campaign over the period before each event picks the highest tier reached; below
        every tier the rule's own value pays. A tier with both thresholds needs both.
      </p>
      <div class="rule-sentence">
        <span class="word">Measure over the last</span>
        <span class="slot">{input('periodDays', 'Tier period in days', { placeholder: String(DEFAULT_PERIOD_DAYS), numeric: true })}</span>
        <span class="word">days</span>
      </div>
      <input type="hidden" name={key('tierCount')} value={String(tiers.length)} data-tier-count />
      <ol class="tier-rows" data-tier-rows>
        {tiers.map((tier, k) => (
          <TierRowView i={i} k={String(k)} n={String(k + 1)} tier={tier} errors={props.errors} currency={props.currency} />
        ))}
      </ol>
      <div class="actions">
        <button type="submit" name="_tier" value={i} class="secondary" data-add-tier hidden={tiers.length >= MAX_TIERS}>
          Add another tier
        </button>
      </div>
      <p class="hint">An empty tier row is skipped.</p>
    </details>
  );
}

/** One tier as a sentence: "From [100] EUR revenue and/or [3] new customers, pay [30] %" (`k` and `n` may be the template's placeholders). */
export function TierRowView(props: { i: string; k: string; n: string; tier: TierRow; errors: FormErrors; currency: string }) {
  const { i, k, tier, errors } = props;
  const key = (f: string) => `r${i}_t${k}_${f}`;
  const tierInput = (f: keyof TierRow, label: string, numeric = false) => (
    <SlotInput
      id={key(f)}
      label={`Tier ${props.n} ${label}`}
      value={tier[f]}
      numeric={numeric}
      invalid={errors[key(f)] ? 'true' : undefined}
      described={errors[key(f)] ? `f-${key(f)}-error` : undefined}
    />
  );
  return (
    <li class="rule-sentence tier-row" data-tier-row={k}>
      <span class="word">From</span>
      <span class="slot">
        {tierInput('minRevenue', 'minimum revenue')}
        <span class="unit" safe>
          {`${props.currency} revenue`}
        </span>
      </span>
      <span class="word">and/or</span>
      <span class="slot">
        {tierInput('minCustomers', 'minimum new customers', true)}
        <span class="unit">new customers, pay</span>
      </span>
      <span class="slot" data-tier-kind="percent">
        {tierInput('percent', 'percent')}
        <span class="unit">%</span>
      </span>
      <span class="slot" data-tier-kind="flat">
        {tierInput('amount', 'amount')}
        <span class="unit" safe>
          {props.currency}
        </span>
      </span>
    </li>
  );
}

/** The row's problems, each named and linked from its field. */
function RowProblems(props: { i: string; errors: FormErrors; problems: string[] }) {
  const { i, errors, problems } = props;
  return (
    <ul class="rule-errors">
      {problems.map((k) => (
        <li>
          <strong safe>{fieldName(k.slice(`r${i}_`.length))}</strong>
          {': '}
          <span class="error" id={`f-${k}-error`} safe>
            {errors[k]}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** A labelled input of a rule sentence (the label for screen readers only). */
function SlotInput(props: { id: string; label: string; value: string; numeric?: boolean; cls?: string; placeholder?: string; invalid?: string; described?: string }) {
  return (
    <>
      <label class="vh" for={`f-${props.id}`} safe>
        {props.label}
      </label>
      <input
        id={`f-${props.id}`}
        name={props.id}
        value={props.value}
        inputmode={props.numeric ? 'numeric' : 'decimal'}
        class={props.cls ?? 'short'}
        placeholder={props.placeholder}
        autocomplete="off"
        aria-invalid={props.invalid}
        aria-describedby={props.described}
      />
    </>
  );
}

const FIELD_NAMES: Record<string, string> = {
  eventType: 'Event type',
  kind: 'Kind',
  percent: 'Percent',
  amount: 'Amount',
  maxOccurrences: 'For the first',
  durationDays: 'Within days',
  match: 'Metadata match',
  periodDays: 'Tier period',
  campaignId: 'Campaign',
  minRevenue: 'revenue',
  minCustomers: 'new customers',
};

/** `percent` -> "Percent", `t1_minRevenue` -> "Tier 2 revenue". */
function fieldName(field: string): string {
  const tier = /^t([0-9]+)_(.+)$/.exec(field);
  if (tier) return `Tier ${Number(tier[1]) + 1} ${(FIELD_NAMES[tier[2]!] ?? tier[2]!).toLowerCase()}`;
  return FIELD_NAMES[field] ?? field;
}
