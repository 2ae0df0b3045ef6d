// Ids for envelopes and deliveries written by set-based statements (approval job, payout run), where
// one INSERT ... SELECT writes thousands of rows and calling enqueueEvent per row would be far too slow.
// The rows are the same as enqueueEvent writes: one webhook_events row per envelope and one
// webhook_deliveries row per active endpoint subscribed to its type (or to "*").
import { newId } from '../../lib/ids';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id prefix for one statement: `evt_` + 10 time characters + 8 random ones. SQL appends 8 hex
 * characters (hex digits are in the id alphabet) from a row number, so ids stay `evt_<26 chars>`,
 * time-sortable across statements and unique within one.
 */
export function idBase(): string {
  const time = newId('event').slice(4, 14);
  const random = crypto.getRandomValues(new Uint8Array(8));
  let tail = '';
  for (const byte of random) tail += ALPHABET[byte & 31];
  return `evt_${time}${tail}`;
}
