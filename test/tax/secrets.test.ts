// Sealing tax ids at rest: AES-256-GCM, tagged with the key id, rotation through ENCRYPTION_KEY_PREVIOUS.
import { describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config';
import { keyId, keyringOf, open, seal, sealedWithOldKey, SecretUnreadable } from '../../src/lib/secrets';

const newKey = () => randomBytes(32).toString('base64');

describe('secrets', () => {
  test('a sealed value opens to itself, never shows the text, and differs every time', () => {
    const ring = keyringOf(newKey());
    const a = seal(ring, '123-45-6789', 'ptn_1:tin');
    const b = seal(ring, '123-45-6789', 'ptn_1:tin');
    expect(a).not.toBe(b);
    expect(a).not.toContain('6789');
    expect(a.startsWith(`v1:${keyId(ring.current)}:`)).toBe(true);
    expect(open(ring, a, 'ptn_1:tin')).toBe('123-45-6789');
  });

  test('a value moved to another row or field, or altered, does not open', () => {
    const ring = keyringOf(newKey());
    const sealed = seal(ring, '1990-04-01', 'ptn_1:dateOfBirth');
    expect(() => open(ring, sealed, 'ptn_2:dateOfBirth')).toThrow(SecretUnreadable);
    const [v, id, data] = sealed.split(':');
    const flipped = `${v}:${id}:${data!.slice(0, 20)}${data![20] === 'A' ? 'B' : 'A'}${data!.slice(21)}`;
    expect(() => open(ring, flipped, 'ptn_1:dateOfBirth')).toThrow(SecretUnreadable);
  });

  test('rotation: the old key, kept as previous, still opens; a ring without it says which key is missing', () => {
    const oldKey = newKey();
    const sealed = seal(keyringOf(oldKey), '12-3456789', 'ptn_1:tin');
    const rotated = keyringOf(newKey(), [oldKey]);
    expect(open(rotated, sealed, 'ptn_1:tin')).toBe('12-3456789');
    expect(sealedWithOldKey(rotated, sealed)).toBe(true);
    expect(sealedWithOldKey(rotated, seal(rotated, 'x', 'c'))).toBe(false);
    expect(() => open(keyringOf(newKey()), sealed, 'ptn_1:tin')).toThrow(/ENCRYPTION_KEY_PREVIOUS/);
  });

  test('ENCRYPTION_KEY must be the base64 of 32 bytes; the start names it without echoing it', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    expect(bad({ ENCRYPTION_KEY: 'c2hvcnQ=' })).toEqual([expect.stringMatching(/^ENCRYPTION_KEY: must be the base64 of 32 bytes/)]);
    expect(bad({ ENCRYPTION_KEY: 'c2hvcnQ=' }).join()).not.toContain('c2hvcnQ=');
    expect(bad({ ENCRYPTION_KEY: newKey(), ENCRYPTION_KEY_PREVIOUS: `${newKey()},nope` })).toEqual([expect.stringMatching(/^ENCRYPTION_KEY_PREVIOUS:/)]);
    expect(bad({ INVOICE_PREFIX: 'P D' })).toEqual([expect.stringMatching(/^INVOICE_PREFIX:/)]);
    const config = loadConfig({ ENCRYPTION_KEY: newKey() });
    expect(config.encryption?.current.length).toBe(32);
    expect(config.invoicePrefix).toBe('PD');
    expect(loadConfig({}).encryption).toBeNull();
  });
});
