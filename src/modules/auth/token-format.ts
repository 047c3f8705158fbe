import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every token starts with this, so secret scanners and people recognise a leaked one. */
export const TOKEN_PREFIX = 'cinelog_';
const RANDOM_BYTES = 32; // 256 bits
const TOKEN_PATTERN = /^cinelog_[A-Za-z0-9_-]{43}$/;
const DISPLAY_CHARS = 8;

export interface NewTokenValue {
  /** The full secret, shown once and never stored. */
  value: string;
  /** SHA-256 of the value, hex: the only thing stored. */
  hash: string;
  /** Non-secret start of the value, shown in lists to tell tokens apart. */
  displayPrefix: string;
}

export function generateTokenValue(): NewTokenValue {
  const value = TOKEN_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
  return { value, hash: hashToken(value), displayPrefix: displayPrefixOf(value) };
}

export const isWellFormedToken = (value: string) => TOKEN_PATTERN.test(value);

// A fast hash is right for 256-bit random secrets: no dictionary to guess from, and auth stays cheap.
export const hashToken = (value: string) => hash('sha256', value, 'hex');

export const displayPrefixOf = (value: string) => value.slice(0, TOKEN_PREFIX.length + DISPLAY_CHARS);

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
