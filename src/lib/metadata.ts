// Free-form metadata objects: plain JSON objects (not arrays), at most 16 KiB serialised.
import { t } from 'elysia';
import { AppError } from './errors';

/**
 * Schema for a metadata field. Declared as unknown on purpose: Elysia's normaliser would turn a JSON
 * array into an object before a record schema sees it; checkMetadata() does the real check.
 */
export const Metadata = t.Unknown({ description: 'Free-form JSON object, at most 16 KiB.' });

export const MAX_METADATA_BYTES = 16_384;

export function checkMetadata(value: unknown, field = 'metadata'): asserts value is Record<string, unknown> | undefined {
  if (value === undefined) return;
  const problem =
    value === null || typeof value !== 'object' || Array.isArray(value)
      ? 'must be a JSON object'
      : Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES
        ? 'larger than 16 KiB'
        : null;
  if (problem) throw new AppError('invalid_body', `${field}: ${problem}`, [{ field, message: problem }]);
}
