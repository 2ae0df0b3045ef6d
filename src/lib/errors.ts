// The one error vocabulary of the API. Services throw AppError; only the HTTP edge (app.ts onError)
// turns it into `{code, message, details?}` with the status from this table.
import type { TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';

export const ERROR_STATUS = {
  invalid_body: 400,
  invalid_query: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorBody = { code: ErrorCode; message: string; details?: unknown };

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** A 429 that says when to try again: app.ts sends `retryAfterSeconds` as the Retry-After header. */
export class RateLimited extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `too many requests; try again in ${retryAfterSeconds} s`);
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details);
export const forbidden = (message = 'this key may not do that') => new AppError('forbidden', message);
export const invalidBody = (message: string, details?: unknown) => new AppError('invalid_body', message, details);

/** A field-level problem, as listed in `details` of invalid_body / invalid_query. */
export type FieldProblem = { field: string; message: string };

export function invalidField(field: string, message: string, code: 'invalid_body' | 'invalid_query' = 'invalid_body') {
  return invalidFields([{ field, message }], code);
}

// ---- the validation kit: one way to name what is wrong with a request, whoever checks it

/** One or more field problems as one 400: the message lists each, `details` holds them. */
export function invalidFields(problems: FieldProblem[], code: 'invalid_body' | 'invalid_query' = 'invalid_body'): AppError {
  return new AppError(code, problems.map((p) => `${p.field}: ${p.message}`).join('; ') || 'invalid request', problems);
}

type SchemaLike = { type?: string; anyOf?: SchemaLike[]; enum?: unknown[]; const?: unknown; minimum?: number; maximum?: number; format?: string };

/** What a schema checker reports (TypeBox's ValueError, as Elysia passes it on too). */
export type ValueErrorLike = { path: string; message: string; value?: unknown; summary?: string; schema?: SchemaLike; type?: number };

/** The error kind of a property the schema does not declare (additionalProperties: false). */
const ADDITIONAL_PROPERTY = ValueErrorType.ObjectAdditionalProperties;
export const UNKNOWN_FIELD = 'unknown field';

/**
 * Field problems from a schema checker's errors: one per field (the first), the field as a dotted
 * path (`(body)` for the whole value), the message in words. An unknown field is named itself.
 */
export function fieldProblems(errors: Iterable<ValueErrorLike>, options: { root?: string; message?: (error: ValueErrorLike) => string } = {}): FieldProblem[] {
  const seen = new Map<string, string>();
  for (const e of errors) {
    const field = e.path.replace(/^\//, '').replace(/\//g, '.') || (options.root ?? '(body)');
    if (seen.has(field)) continue;
    // TypeBox points at the unknown property itself
    if (e.type === ADDITIONAL_PROPERTY) seen.set(field, UNKNOWN_FIELD);
    else seen.set(field, options.message?.(e) ?? (e.schema && allowedValues(e.schema)) ?? e.summary ?? e.message);
  }
  return [...seen].map(([field, message]) => ({ field, message }));
}

/** The problems of `value` against `schema`, as fieldProblems() words them; none when it passes. */
export function problemsOf(schema: TSchema, value: unknown, options: { root?: string; message?: (error: ValueErrorLike) => string } = {}): FieldProblem[] {
  if (Value.Check(schema, value)) return [];
  return fieldProblems(Value.Errors(schema, value) as Iterable<ValueErrorLike>, options);
}

/**
 * What a schema allows, in words, for the schemas whose generated messages say nothing useful: enums
 * ("should be one of: 'integer', 'integer'" for a bounded integer that may also arrive as a string).
 */
export function allowedValues(schema: SchemaLike): string | undefined {
  const flat = schema.anyOf?.flatMap((s) => s.anyOf ?? [s]);
  const options = flat?.filter((s) => s.const !== undefined || s.type === 'null').map((s) => (s.type === 'null' ? null : s.const)) ?? schema.enum;
  if (options && options.length > 0) return `must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
  const numeric = schema.anyOf?.find((s) => s.type === 'integer' || s.type === 'number') ?? (schema.type === 'integer' || schema.type === 'number' ? schema : undefined);
  if (!numeric) return undefined;
  const kind = numeric.type === 'integer' ? 'an integer' : 'a number';
  const { minimum: min, maximum: max } = numeric;
  if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
  if (min !== undefined) return `must be ${kind} of at least ${min}`;
  if (max !== undefined) return `must be ${kind} of at most ${max}`;
  return `must be ${kind}`;
}

/**
 * PostgreSQL refuses some values the schemas let through (a NUL character, a number out of range):
 * class 22 "data exception". That is bad input, not a server fault: the one place that says so.
 */
export function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && error.name === 'PostgresError' && typeof code === 'string' && code.startsWith('22');
}

/** The 400 a class-22 error becomes. */
export function dataExceptionError(code: 'invalid_body' | 'invalid_query' = 'invalid_body'): AppError {
  return new AppError(code, 'a value in the request cannot be stored (for example a NUL character or a number out of range)');
}

/** A 400 listing every problem, when there are any. */
export function throwFieldProblems(problems: FieldProblem[], code: 'invalid_body' | 'invalid_query' = 'invalid_body'): void {
  if (problems.length > 0) throw new AppError(code, problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
}
