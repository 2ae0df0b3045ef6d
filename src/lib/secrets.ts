// Encryption of secrets kept in the database (tax ids, dates of birth): AES-256-GCM under
// ENCRYPTION_KEY, each value tagged with the id of the key that sealed it so that a rotated key
// (ENCRYPTION_KEY_PREVIOUS) still opens what it sealed. See docs/tax.md, "Keys and rotation".
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The keys a process holds: the one that seals, and older ones that only open. */
export type Keyring = { current: Buffer; previous: Buffer[] };

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A key's id: 8 hex characters of its SHA-256, stored beside each value (never the key itself). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** Whether text is the base64 of exactly 32 bytes (what ENCRYPTION_KEY must be). */
export function isKeyText(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}

/** A keyring from the variables' text: the current key and any previous ones (comma list). */
export function keyringOf(current: string, previous: string[] = []): Keyring {
  return { current: Buffer.from(current, 'base64'), previous: previous.map((k) => Buffer.from(k, 'base64')) };
}

/**
 * Seals text: `v1:<key id>:<base64url of 12-byte IV, ciphertext, 16-byte tag>`. A fresh random IV
 * each time, so equal values never look equal at rest. `context` (e.g. the partner id and the field)
 * is bound as associated data: a sealed value copied to another row or field does not open.
 */
export function seal(ring: Keyring, plain: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}:${keyId(ring.current)}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

export class SecretUnreadable extends Error {}

/** Opens a sealed value with whichever key of the ring sealed it; throws SecretUnreadable otherwise. */
export function open(ring: Keyring, sealed: string, context: string): string {
  const [version, id, data] = sealed.split(':');
  if (version !== VERSION || !id || !data) throw new SecretUnreadable('not a sealed value');
  const key = [ring.current, ...ring.previous].find((k) => keyId(k) === id);
  if (!key) throw new SecretUnreadable(`sealed with key ${id}, which is neither ENCRYPTION_KEY nor in ENCRYPTION_KEY_PREVIOUS`);
  const bytes = Buffer.from(data, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadable('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadable('sealed value failed its integrity check');
  }
}

/** Whether a value was sealed with an older key (re-sealing it moves it to the current one). */
export function sealedWithOldKey(ring: Keyring, sealed: string): boolean {
  return sealed.split(':')[1] !== keyId(ring.current);
}
