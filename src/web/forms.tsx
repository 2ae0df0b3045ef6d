// Form helpers: fields that show their validation error beside them, and errors read from AppError.
import type { TSchema } from '@sinclair/typebox';
import { AppError, problemsOf, type FieldProblem } from '../lib/errors';
import { CSRF_FIELD } from './csrf';
import { fieldWords } from './field-words';

/** Field name -> message; `_form` holds a problem that belongs to no single field. */
export type FormErrors = Record<string, string>;

/**
 * The field problems of a refused call, in the shape the fields show. AppErrors without details
 * (a 403, a 409 without a field) become the form-level message; anything else is not ours to show.
 */
export function formErrors(error: unknown, fields: string[]): FormErrors | null {
  if (!(error instanceof AppError) || error.status >= 500) return null;
  const out: FormErrors = {};
  const details = Array.isArray(error.details) ? (error.details as FieldProblem[]) : [];
  for (const d of details) {
    const field = fields.find((f) => d.field === f || d.field.startsWith(`${f}.`));
    if (field) out[field] ??= d.message;
    else out._form ??= `${fieldWords(d.field)}: ${d.message}`;
  }
  if (Object.keys(out).length === 0) out._form = error.message;
  return out;
}

/** The hidden CSRF input every state-changing form carries. */
export function CsrfInput(props: { token: string }): JSX.Element {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** A labelled input; with an error, it is marked invalid and the message is tied to it. */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  placeholder?: string;
}): JSX.Element {
  const id = `f-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id} safe>
        {props.label}
      </label>
      {!!props.hint && (
        <small id={`${id}-hint`} safe>
          {props.hint}
        </small>
      )}
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        autocomplete={props.autocomplete}
        placeholder={props.placeholder}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {!!props.error && (
        <p class="error" id={`${id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** The code input of the admin and portal promotion-code forms: the API's rule, said once. */
export function CodeField(props: { value?: string; error?: string }): JSX.Element {
  return (
    <Field
      name="code"
      label="Code"
      value={props.value}
      error={props.error}
      hint="3-40 letters, digits, _ or -; unique ignoring case"
      required
      autocomplete="off"
      placeholder="PODCAST20"
    />
  );
}

/** A labelled select with the same error display as Field. */
export function SelectField(props: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  value?: string;
  error?: string;
}): JSX.Element {
  const id = `f-${props.name}`;
  return (
    <div class={props.error ? 'field invalid' : 'field'}>
      <label for={id} safe>
        {props.label}
      </label>
      <select id={id} name={props.name} aria-invalid={props.error ? 'true' : undefined} aria-describedby={props.error ? `${id}-error` : undefined}>
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value} safe>
            {o.label}
          </option>
        ))}
      </select>
      {!!props.error && (
        <p class="error" id={`${id}-error`} safe>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A form's string fields; anything else (files, repeated keys) is dropped. */
export function formFields(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** The values of a repeated field (ticked checkboxes of one name): one value or several. */
export function formList(body: unknown, name: string, maxLength = 64): string[] {
  const raw = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return [...new Set(list.filter((v): v is string => typeof v === 'string' && v.length <= maxLength))];
}

/** Schema problems of a form, as field -> message (the API's own schemas, so the rules stay one). */
export function schemaErrors(schema: TSchema, value: unknown): FormErrors {
  const problems = problemsOf(schema, value, { root: '_form', message: (e) => fieldMessage(e.value, e.schema as { format?: string; maxLength?: number }) });
  return Object.fromEntries(problems.map((p) => [p.field, p.message]));
}

function fieldMessage(value: unknown, schema: { format?: string; maxLength?: number }): string {
  if (value === undefined || value === '') return 'required';
  if (schema.format === 'email') return 'must be an email address';
  if (schema.maxLength !== undefined && typeof value === 'string' && value.length > schema.maxLength) return `at most ${schema.maxLength} characters`;
  return 'not a valid value';
}
