// Secrets: generation, hashing at rest, constant-time comparison.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 hex digest: how keys, tokens and session ids are stored, and every click's address
 * hash (Bun's one-shot hash: a quarter of node:crypto's createHash per call, the same digest).
 */
export function sha256(value: string): string {
  return Bun.SHA256.hash(value, 'hex');
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
