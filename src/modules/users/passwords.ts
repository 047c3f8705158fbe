import { createRequire } from 'node:module';
import type Argon2 from '@node-rs/argon2';

/** Loaded on the first password to hash or check: an API-only server never holds it in memory. */
let argon2: typeof Argon2 | null = null;
const library = () => (argon2 ??= createRequire(import.meta.url)('@node-rs/argon2') as typeof Argon2);

// Algorithm.Argon2id; the library exports it as a const enum, which isolated modules cannot read.
const ARGON2ID = 2;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 512;

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's baseline). */
export const hashPassword = (password: string) => library().hash(password, { algorithm: ARGON2ID });

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await library().verify(passwordHash, password);
  } catch {
    return false;
  }
}
