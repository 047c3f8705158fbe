import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type DatabaseHandle, type Engine, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';

/** The engine this test project runs on: SQLite always; PostgreSQL when TEST_DATABASE_URL is set. */
export const TEST_ENGINE: Engine = process.env.CINELOG_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase extends DatabaseHandle {
  /** A DATABASE_URL for this database, for a CLI or a server process. */
  url: string;
  /** Closes it and deletes it (file or PostgreSQL database). */
  destroy(): Promise<void>;
}

/** URL of the same PostgreSQL server with another database name. */
export function withDatabaseName(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database of the test engine, its own for this test: a new SQLite file, or a new PostgreSQL
 * database. Migrated, unless `empty` (for migration tests).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (TEST_ENGINE === 'postgres') {
    const name = `cinelog_t_${randomBytes(6).toString('hex')}`;
    // Cloning a migrated template is much faster than migrating every database.
    const template = options.empty ? 'template0' : inject('postgresTemplate');
    await adminQuery(`create database ${name} template ${template}`);
    const url = withDatabaseName(process.env.TEST_DATABASE_URL!, name);
    const handle = openDatabase(url, { poolSize: 5 });
    return {
      ...handle,
      url,
      async destroy() {
        await handle.close();
        await adminQuery(`drop database if exists ${name} with (force)`);
      },
    };
  }
  return createSqliteTestDatabase(options);
}

/**
 * A fresh SQLite file in a folder of its own, whatever the test project's engine (for tests of the
 * SQLite driver itself). Migrated, unless `empty`.
 */
export async function createSqliteTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'cinelog-test-'));
  const url = `sqlite:${join(dir, 'test.sqlite')}`;
  const handle = openDatabase(url);
  if (!options.empty) await migrateToLatest(handle.db);
  return {
    ...handle,
    url,
    async destroy() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
