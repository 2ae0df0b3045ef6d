// Small shared pieces of the HTTP layer: pagination query, list filters, answer schemas, JSON null.
import type { TArray, TString } from '@sinclair/typebox';
import { t, type TSchema } from 'elysia';
import { AppError, ERROR_STATUS, type ErrorCode } from './errors';
import { isId, type IdKind } from './ids';

type TNullable<T extends TSchema> = ReturnType<typeof t.Nullable<T>>;

/** `limit` 1-200 (default 100) and an opaque `cursor`, the same on every list. */
export const PageQuery = {
  limit: t.Optional(t.String({ maxLength: 10, description: 'Page size, 1-200 (default 100).' })),
  cursor: t.Optional(t.String({ maxLength: 64, description: 'nextCursor of the previous page.' })),
};

export type Page = { limit: number; cursor?: string };

/**
 * An optional query parameter taking one of `values` (a list filter such as `status`). Absent, it
 * filters nothing. Not a bare `t.Optional(t.UnionEnum(...))`: Elysia gives a UnionEnum its first
 * value as a `default`, and fills defaults into absent query parameters, so `GET /commissions`
 * would list only `accrued` ones. The schema keeps `enum` (OpenAPI, "must be one of" errors).
 */
export function QueryEnum<const T extends Readonly<[string, ...string[]]>>(values: T, options: { description?: string } = {}) {
  const { default: _first, ...schema } = t.UnionEnum(values, options);
  return t.Optional(schema as ReturnType<typeof t.UnionEnum<T>>);
}

/** Checks the cursor has the shape of the list's ids; a garbled cursor is a 400, not an empty page. */
export function readPage(query: { limit?: string; cursor?: string }, kind: IdKind): Page {
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (!/^[0-9]{1,3}$/.test(query.limit ?? '100') || limit < 1 || limit > 200) {
    throw new AppError('invalid_query', 'limit: must be an integer from 1 to 200', [
      { field: 'limit', message: 'must be an integer from 1 to 200' },
    ]);
  }
  if (query.cursor !== undefined && !isId(kind, query.cursor)) {
    throw new AppError('invalid_query', 'cursor: not a cursor from this list', [
      { field: 'cursor', message: 'not a cursor from this list' },
    ]);
  }
  return { limit, cursor: query.cursor };
}

/** Given limit+1 rows, answers the page and the cursor of the next one. */
export function paginate<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

export function jsonNull(): Response {
  return new Response('null', { headers: { 'content-type': 'application/json' } });
}

/** The body of every error answer: one shape, one vocabulary (lib/errors.ts). */
export const ErrorResponse = t.Object(
  {
    code: t.UnionEnum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: t.String(),
    details: t.Optional(t.Unknown({ description: 'For invalid_body / invalid_query: [{field, message}].' })),
  },
  { description: 'An error.' },
);

type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/**
 * The error statuses a route can answer, for its `response` map: `{...errors(400, 404), 200: X}`.
 * Every route can also fail inside (500).
 */
export function errors<const S extends ErrorStatus>(...statuses: S[]): Record<S | 500, typeof ErrorResponse> {
  return Object.fromEntries([...statuses, 500].map((s) => [s, ErrorResponse])) as Record<S | 500, typeof ErrorResponse>;
}

/** ISO 8601 UTC with milliseconds, as every answer writes times. */
export const Timestamp = t.String({ format: 'date-time', examples: ['2026-01-31T09:30:00.000Z'] });

/** A list page: `{<items>: [...], nextCursor}`. */
export function listOf<const K extends string, T extends TSchema>(key: K, item: T, description?: string) {
  return t.Object({ [key]: t.Array(item), nextCursor: t.Nullable(t.String({ description: 'Cursor of the next page; null on the last.' })) } as {
    [P in K]: TArray<T>;
  } & { nextCursor: TNullable<TString> }, description ? { description } : {});
}
