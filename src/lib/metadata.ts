// Free-form metadata objects: plain JSON objects (not arrays), at most 16 KiB serialised, nested at
// most MAX_METADATA_DEPTH levels, holding only text PostgreSQL can store. The one check of every
// metadata field (partners, events alone and in a batch, links): the depth is bounded first, with
// a walk of its own stack, so neither measuring nor storing can overflow the call stack.
import { t } from 'elysia';
import { invalidField } from './errors';
import { UNSTORABLE, unstorablePath } from './storable';

/**
 * Schema for a metadata field. Declared as unknown on purpose: Elysia's normaliser would turn a JSON
 * array into an object before a record schema sees it; checkMetadata() does the real check.
 */
export const Metadata = t.Unknown({ description: 'Free-form JSON object, at most 16 KiB and 32 levels deep.' });

export const MAX_METADATA_BYTES = 16_384;
export const MAX_METADATA_DEPTH = 32;

/** How deep a JSON value nests, counting stops at `limit + 1` (so a 100,000-level value costs little). */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    for (const inner of Array.isArray(item) ? item : Object.values(item)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
    }
  }
  return false;
}

/** What is wrong with a metadata value (undefined: absent, fine), or null when nothing is. */
export function metadataProblem(value: unknown): { field: string; message: string } | null {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { field: '', message: 'must be a JSON object' };
  if (depthOver(value, MAX_METADATA_DEPTH)) return { field: '', message: `nested deeper than ${MAX_METADATA_DEPTH} levels` };
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES) return { field: '', message: 'larger than 16 KiB' };
  return unstorablePath(value) === null ? null : { field: '', message: UNSTORABLE };
}

/** Throws a 400 naming the field when `value` is not acceptable metadata. */
export function checkMetadata(value: unknown, field = 'metadata'): asserts value is Record<string, unknown> | undefined {
  const problem = metadataProblem(value);
  if (problem) throw invalidField(problem.field ? `${field}.${problem.field}` : field, problem.message);
}

/** The metadata as stored: `{}` when absent, else the checked object. */
export function readMetadata(value: unknown, field = 'metadata'): Record<string, unknown> {
  checkMetadata(value, field);
  return value ?? {};
}
