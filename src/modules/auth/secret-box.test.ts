import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createSecretBox,
  KEY_FILE_NAME,
  keyFilePath,
  readOrCreateKeyFile,
  SealedSecretError,
  SecretKeyMissingError,
  secretKeySource,
} from './secret-box.js';

const KEY = 'k'.repeat(32);
const scratchDir = () => mkdtempSync(join(tmpdir(), 'cinelog-key-'));

describe('secret box', () => {
  it('seals so that only the same key and context open it, and never twice alike', () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'two-factor:1');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(box.seal('JBSWY3DPEHPK3PXP', 'two-factor:1')).not.toBe(sealed);
    expect(box.open(sealed, 'two-factor:1')).toBe('JBSWY3DPEHPK3PXP');
    // Another user's row, another key, a changed byte: refused, never garbage.
    expect(() => box.open(sealed, 'two-factor:2')).toThrow(SealedSecretError);
    expect(() => createSecretBox('another key of enough characters!').open(sealed, 'two-factor:1')).toThrow(
      SealedSecretError,
    );
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(() => box.open(`v1.${bytes.toString('base64url')}`, 'two-factor:1')).toThrow(SealedSecretError);
    for (const broken of ['', 'v1.', 'v2.abc', 'v1.AAAA', 'plaintext']) {
      expect(() => box.open(broken, 'two-factor:1')).toThrow(SealedSecretError);
    }
  });

  it('uses SECRET_KEY when it is set, on either engine, and makes no file', () => {
    const dir = scratchDir();
    for (const databaseUrl of [`sqlite:${join(dir, 'db.sqlite')}`, 'postgres://u@localhost/db']) {
      const source = secretKeySource({ secretKey: KEY, databaseUrl });
      expect(source.available).toBe(true);
      const sealed = source.box().seal('secret', 'c');
      expect(createSecretBox(KEY).open(sealed, 'c')).toBe('secret');
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('on PostgreSQL without SECRET_KEY has no key at all', () => {
    const source = secretKeySource({ secretKey: null, databaseUrl: 'postgres://u@localhost/db' });
    expect(source.available).toBe(false);
    expect(() => source.box()).toThrow(SecretKeyMissingError);
  });

  it('on SQLite without SECRET_KEY makes secret.key beside the database on first use, mode 0600, and reads it back', () => {
    const dir = scratchDir();
    const databaseUrl = `sqlite:${join(dir, 'data', 'cinelog.sqlite')}`;
    const file = join(dir, 'data', KEY_FILE_NAME);
    expect(keyFilePath(databaseUrl)).toBe(file);
    const source = secretKeySource({ secretKey: null, databaseUrl });
    expect(source.available).toBe(true);
    // Nothing is made before a secret is sealed.
    expect(existsSync(file)).toBe(false);
    const sealed = source.box().seal('secret', 'c');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8').trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    // Another process (a restart) reads the same key; the key file's content works as SECRET_KEY.
    const again = secretKeySource({ secretKey: null, databaseUrl });
    expect(again.box().open(sealed, 'c')).toBe('secret');
    expect(secretKeySource({ secretKey: key, databaseUrl: 'postgres://x/y' }).box().open(sealed, 'c')).toBe(
      'secret',
    );
    // No temporary file left behind.
    expect(readdirSync(join(dir, 'data'))).toEqual([KEY_FILE_NAME]);
  });

  it('keeps the key file that is there, and refuses one that holds no usable key', () => {
    const dir = scratchDir();
    const file = join(dir, KEY_FILE_NAME);
    writeFileSync(file, `${'z'.repeat(40)}\n`);
    expect(readOrCreateKeyFile(file)).toBe('z'.repeat(40));
    writeFileSync(file, 'short\n');
    expect(() => readOrCreateKeyFile(file)).toThrow(/no usable key/);
  });

  it('gives an in-memory SQLite database a key of the process', () => {
    const source = secretKeySource({ secretKey: null, databaseUrl: 'sqlite::memory:' });
    expect(keyFilePath('sqlite::memory:')).toBeNull();
    const box = source.box();
    expect(box.open(box.seal('x', 'c'), 'c')).toBe('x');
  });
});
