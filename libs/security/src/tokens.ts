import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const REF_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Project ref: 20 lowercase letters and digits, uniformly random. */
export function generateProjectRef(): string {
  let ref = '';
  for (let i = 0; i < 20; i++) ref += REF_ALPHABET[randomInt(REF_ALPHABET.length)];
  return ref;
}

export const PROJECT_REF_PATTERN = /^[a-z0-9]{20}$/;
export const isProjectRef = (value: string): boolean => PROJECT_REF_PATTERN.test(value);

/** A random secret of `bytes` bytes, base64url. */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Prefix that tells personal access tokens from login JWTs at a glance. */
export const PERSONAL_TOKEN_PREFIX = 'bp_pat_';
export const generatePersonalToken = (): string =>
  PERSONAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** SHA-256 hex digest; used to store high-entropy tokens and to show secret fingerprints. */
export const sha256Hex = (value: string): string =>
  createHash('sha256').update(value, 'utf8').digest('hex');

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
