// "Can PostgreSQL store this text?": text and jsonb hold neither U+0000 nor an unpaired UTF-16
// surrogate. Strings carrying either are refused as a 400 before any SQL, instead of failing in
// the database as a 500 (or, for buffered clicks, after the answer). The one check of that rule.
import { invalidField } from './errors';

export const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates';

/** True when PostgreSQL can store the string as text. */
export function storableText(value: string): boolean {
  return !value.includes('\0') && value.isWellFormed();
}

/**
 * The dotted path of the first string (value or object key) PostgreSQL could not store, `''` for
 * the value itself, or null when all can be. Walks with its own stack: no nesting overflows it.
 */
export function unstorablePath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === 'string') {
      if (!storableText(item)) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], path ? `${path}.${i}` : String(i)]);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        if (!storableText(key)) return path;
        stack.push([inner, path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

/** Throws a 400 naming `field` when its value holds text PostgreSQL cannot store. */
export function checkStorable(field: string, value: unknown): void {
  const path = unstorablePath(value);
  if (path !== null) throw invalidField(path ? `${field}.${path}` : field, UNSTORABLE);
}

/** An onBeforeHandle hook (or a check of its own): the query and body hold only storable text. */
export function rejectUnstorable({ body, query }: { body: unknown; query: unknown }): void {
  for (const [value, code] of [[query, 'invalid_query'], [body, 'invalid_body']] as const) {
    const path = unstorablePath(value);
    if (path !== null) throw invalidField(path || '(body)', UNSTORABLE, code);
  }
}
