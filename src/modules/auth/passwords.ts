import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the library exports it as a const enum, which isolated modules cannot read.
const ARGON2ID = 2;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 512;

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's baseline). */
export const hashPassword = (password: string) => hash(password, { algorithm: ARGON2ID });

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
