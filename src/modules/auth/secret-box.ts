import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MIN_SECRET_KEY_LENGTH } from '../../config.js';

/**
 * Encrypts the few secrets the server must read back (two-factor secrets) with AES-256-GCM under a key
 * that is not in the database: a copy of the database, or a backup of it, reveals none of them.
 */
export interface SecretBox {
  /** `plaintext` encrypted; `context` (say `totp:<user id>`) must be given again to open it. */
  seal(plaintext: string, context: string): string;
  /** The plaintext; SealedSecretError for another key, another context or a changed value. */
  open(sealed: string, context: string): string;
}

/** Where the key comes from, and whether there is one. */
export interface SecretKeySource {
  /** False only on PostgreSQL without SECRET_KEY: nothing can be sealed then. */
  readonly available: boolean;
  /**
   * The box. Without SECRET_KEY on SQLite, the key file beside the database is read, or made on this
   * first use. SecretKeyMissingError when not available.
   */
  box(): SecretBox;
}

/** The key file made beside a SQLite database when SECRET_KEY is not set. */
export const KEY_FILE_NAME = 'secret.key';

/** No SECRET_KEY, and no SQLite file to keep a key beside (PostgreSQL). */
export class SecretKeyMissingError extends Error {
  override name = 'SecretKeyMissingError';
  constructor() {
    super('SECRET_KEY is not set: with PostgreSQL, every instance must be given the same SECRET_KEY');
  }
}

/** A sealed value that this key cannot open: another key (SECRET_KEY changed or lost), or tampering. */
export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
  constructor() {
    super('a sealed secret cannot be opened with this server key');
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A box over the key text (SECRET_KEY, or the key file's content). */
export function createSecretBox(keyText: string): SecretBox {
  // HKDF: any key text of enough entropy becomes exactly 256 bits, for this use alone.
  const key = Buffer.from(hkdfSync('sha256', keyText, 'cinelog', 'cinelog secret box v1', 32));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, context) {
      const [version, payload] = sealed.split('.');
      const bytes = Buffer.from(payload ?? '', 'base64url');
      if (version !== VERSION || bytes.length < IV_BYTES + TAG_BYTES) throw new SealedSecretError();
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        throw new SealedSecretError();
      }
    },
  };
}

/** The key file of a `sqlite:<path>` database: beside it. Null for PostgreSQL and in-memory SQLite. */
export function keyFilePath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? null : join(dirname(resolve(path)), KEY_FILE_NAME);
}

/**
 * The server key: SECRET_KEY when set; otherwise, on SQLite, a random key kept in `secret.key` beside
 * the database file (made on first use, mode 0600); on PostgreSQL none, since several instances would
 * each make their own.
 */
export function secretKeySource(options: { secretKey: string | null; databaseUrl: string }): SecretKeySource {
  const { secretKey, databaseUrl } = options;
  const sqlite = databaseUrl.startsWith('sqlite:');
  let box: SecretBox | null = null;
  return {
    available: secretKey !== null || sqlite,
    box() {
      if (box) return box;
      if (secretKey !== null) box = createSecretBox(secretKey);
      else if (!sqlite) throw new SecretKeyMissingError();
      else {
        const file = keyFilePath(databaseUrl);
        // An in-memory database lives no longer than the process: neither need its key.
        box = createSecretBox(file === null ? randomKeyText() : readOrCreateKeyFile(file));
      }
      return box;
    },
  };
}

const randomKeyText = () => randomBytes(32).toString('base64url');

/**
 * The key in `file`, made first if there is none. Written to a temporary file and linked into place, so
 * two processes starting at once agree on one key and nobody reads a half-written one.
 */
export function readOrCreateKeyFile(file: string): string {
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${randomKeyText()}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    // Another process made it first: its key is the one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  const made = readKeyFile(file);
  if (made === null) throw new Error(`${file} vanished while it was being made`);
  return made;
}

function readKeyFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (text.length < MIN_SECRET_KEY_LENGTH) {
    throw new Error(`${file} holds no usable key (fewer than ${MIN_SECRET_KEY_LENGTH} characters)`);
  }
  return text;
}
