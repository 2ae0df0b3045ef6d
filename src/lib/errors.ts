// The one error vocabulary of the API. Services throw AppError; only the HTTP edge (app.ts onError)
// turns it into `{code, message, details?}` with the status from this table.

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

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details);
export const forbidden = (message = 'this key may not do that') => new AppError('forbidden', message);
export const invalidBody = (message: string, details?: unknown) => new AppError('invalid_body', message, details);

/** A field-level problem, as listed in `details` of invalid_body / invalid_query. */
export type FieldProblem = { field: string; message: string };

export function invalidField(field: string, message: string, code: 'invalid_body' | 'invalid_query' = 'invalid_body') {
  return new AppError(code, `${field}: ${message}`, [{ field, message }] satisfies FieldProblem[]);
}

/** A 400 listing every problem, when there are any. */
export function throwFieldProblems(problems: FieldProblem[], code: 'invalid_body' | 'invalid_query' = 'invalid_body'): void {
  if (problems.length > 0) throw new AppError(code, problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
}
