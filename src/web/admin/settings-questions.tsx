// The settings page's signup questions (settings.applicationQuestions): what the sign-up page asks
// under review, one fieldset per question (label, key, kind, required, hint, longest answer), checked
// by lib/questions.ts exactly as PATCH /v1/settings checks them. Works without script: "Add a
// question" posts the form back with one more empty question, a ticked "Remove" drops one, an empty
// question is skipped; a refused save shows each problem beside its field and changes nothing.
import { MAX_QUESTIONS, QUESTION_TYPES, questionProblems, type ApplicationQuestion, type QuestionType } from '../../lib/questions';
import { CsrfInput, Field, SelectField, type FormErrors } from '../forms';
import { Notice } from '../layout';

export const QUESTIONS_PATH = '/admin/settings/questions';

/** One question as its fieldset holds it: every field as typed. */
export type QuestionRow = { key: string; label: string; type: string; required: boolean; hint: string; maxLength: string; remove: boolean };

const TEXT_FIELDS = ['key', 'label', 'type', 'hint', 'maxLength'] as const;

const TYPE_OPTIONS: { value: QuestionType; label: string }[] = [
  { value: 'line', label: 'One line of text' },
  { value: 'text', label: 'A few lines of text' },
  { value: 'url', label: 'A web address (http or https)' },
];

/** What the schema's words would say less clearly. */
const PLAIN: Record<string, string> = {
  key: 'a lower-case letter, then up to 39 lower-case letters, digits or _',
  label: 'required, at most 200 characters',
  maxLength: 'a whole number of characters, 1 to 5000 (empty: the default)',
};

const blankRow = (): QuestionRow => ({ key: '', label: '', type: 'line', required: false, hint: '', maxLength: '', remove: false });
const isBlank = (r: QuestionRow) => r.key === '' && r.label === '' && r.hint === '' && r.maxLength === '';

export const toQuestionRows = (questions: ApplicationQuestion[]): QuestionRow[] =>
  questions.map((q) => ({ key: q.key, label: q.label, type: q.type, required: q.required, hint: q.hint ?? '', maxLength: q.maxLength === undefined ? '' : String(q.maxLength), remove: false }));

/** The form's questions (`q<i>_<field>`, `questionCount` of them), as typed. */
export function readQuestionRows(form: Record<string, string>): QuestionRow[] {
  const count = Math.min(Number.parseInt(form.questionCount ?? '0', 10) || 0, MAX_QUESTIONS + 1);
  const rows: QuestionRow[] = [];
  for (let i = 0; i < count; i++) {
    const row = blankRow();
    for (const f of TEXT_FIELDS) row[f] = (form[`q${i}_${f}`] ?? (f === 'type' ? 'line' : '')).trim();
    row.required = form[`q${i}_required`] === 'on';
    row.remove = form[`q${i}_remove`] === 'on';
    rows.push(row);
  }
  return rows;
}

/** "Add a question": the rows kept (removed and empty ones dropped) and one empty row. */
export const withOneMore = (rows: QuestionRow[]): QuestionRow[] => [...rows.filter((r) => !r.remove && !isBlank(r)), blankRow()].slice(0, MAX_QUESTIONS);

/**
 * The questions to save (removed and empty rows skipped) and the problems found, keyed
 * `q<row>_<field>` (the form's row, not the question's place in the list); `_questions` for the list.
 */
export function rowsToQuestions(rows: QuestionRow[]): { questions: ApplicationQuestion[]; errors: FormErrors } {
  const questions: ApplicationQuestion[] = [];
  const rowOf: number[] = [];
  const errors: FormErrors = {};
  rows.forEach((r, i) => {
    if (r.remove || isBlank(r)) return;
    const q: ApplicationQuestion = { key: r.key, label: r.label, type: r.type as QuestionType, required: r.required };
    if (r.hint !== '') q.hint = r.hint;
    if (r.maxLength !== '') {
      if (/^[0-9]{1,4}$/.test(r.maxLength)) q.maxLength = Number(r.maxLength);
      else errors[`q${i}_maxLength`] = PLAIN.maxLength!;
    }
    if (!(QUESTION_TYPES as readonly string[]).includes(r.type)) errors[`q${i}_type`] = 'choose what kind of answer it takes';
    questions.push(q);
    rowOf.push(i);
  });
  for (const p of questionProblems(questions)) {
    const at = /^applicationQuestions\.([0-9]+)\.([A-Za-z]+)/.exec(p.field);
    const field = at?.[2] ?? '';
    if (at && (TEXT_FIELDS as readonly string[]).includes(field)) {
      const key = `q${rowOf[Number(at[1])]}_${field}`;
      errors[key] ??= p.message.startsWith('the key') || p.message.includes('taken') ? p.message : (PLAIN[field] ?? p.message);
    } else errors._questions ??= p.field === 'applicationQuestions' ? `At most ${MAX_QUESTIONS} questions: remove one; nothing was saved.` : `${p.field}: ${p.message}`;
  }
  return { questions, errors };
}

/** The section: the questions in order, "Add a question" and "Save questions". */
export function SignupQuestions(props: { rows: QuestionRow[]; errors: FormErrors; csrf: string }) {
  // one empty question for a program that asks none ("Add a question" adds more)
  const rows = props.rows.length === 0 ? [blankRow()] : props.rows;
  const problems = Object.keys(props.errors).length;
  return (
    <section aria-labelledby="questions-heading" id="questions">
      <h2 id="questions-heading">Signup questions</h2>
      <p class="hint">
        Asked on the sign-up page when self-signup is set to review; you read the answers on each application. A changed key leaves earlier answers
        under the old key. An empty question is skipped.
      </p>
      {problems > 0 && (
        <Notice kind="error" text={props.errors._questions ?? `${problems === 1 ? 'One field needs' : `${problems} fields need`} attention; nothing was saved.`} />
      )}
      <form method="post" action={QUESTIONS_PATH} novalidate class="questions-form">
        <CsrfInput token={props.csrf} />
        <input type="hidden" name="questionCount" value={String(rows.length)} />
        {rows.map((r, i) => (
          <QuestionFieldset i={i} row={r} errors={props.errors} />
        ))}
        <div class="actions">
          <button type="submit">Save questions</button>
          {rows.length < MAX_QUESTIONS && (
            <button type="submit" name="_more" value="1" class="secondary">
              Add a question
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

function QuestionFieldset(props: { i: number; row: QuestionRow; errors: FormErrors }) {
  const { i, row, errors } = props;
  const name = (f: string) => `q${i}_${f}`;
  const mine = Object.keys(errors).some((k) => k.startsWith(`q${i}_`));
  return (
    <fieldset class={mine ? 'question has-error' : 'question'} data-question={String(i)}>
      <legend safe>{row.label === '' ? `Question ${i + 1}` : `Question ${i + 1}: ${row.label}`}</legend>
      <div class="wide">
        <Field name={name('label')} label="Question" hint="As the sign-up page asks it." value={row.label} error={errors[name('label')]} />
      </div>
      <Field
        name={name('key')}
        label="Key"
        hint="Its name in applicationAnswers: a-z, 0-9 and _, e.g. youtube."
        value={row.key}
        error={errors[name('key')]}
        autocomplete="off"
      />
      <SelectField name={name('type')} label="Answer" value={row.type} options={TYPE_OPTIONS} error={errors[name('type')]} />
      <Field name={name('hint')} label="Hint (optional)" hint="A line under the question." value={row.hint} error={errors[name('hint')]} />
      <Field
        name={name('maxLength')}
        label="Longest answer (optional)"
        hint="Characters, 1 to 5000; empty: the kind's default."
        value={row.maxLength}
        error={errors[name('maxLength')]}
      />
      <label class="check">
        <input type="checkbox" name={name('required')} checked={row.required} /> Required
      </label>
      <label class="check">
        <input type="checkbox" name={name('remove')} checked={row.remove} /> Remove this question
      </label>
    </fieldset>
  );
}
