// PostgreSQL text cannot hold U+0000: strings carrying it are refused as a 400 before any SQL,
// instead of failing in the database as a 500 (or, for buffered clicks, after the answer).
import { AppError } from './errors';

function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const found = findNul(key, path) ?? findNul(inner, path ? `${path}.${key}` : key);
      if (found !== null) return found;
    }
  }
  return null;
}

/** An onBeforeHandle hook for route groups that store what they are given. */
export function rejectNul({ body, query }: { body: unknown; query: unknown }): void {
  for (const [value, code] of [[query, 'invalid_query'], [body, 'invalid_body']] as const) {
    const field = findNul(value, '');
    if (field !== null) {
      const name = field || '(body)';
      throw new AppError(code, `${name}: must not contain NUL characters`, [{ field: name, message: 'must not contain NUL characters' }]);
    }
  }
}
