import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  close(): Promise<void>;
}

/** Opens the database named by a `DATABASE_URL` value. */
export function openDatabase(url: string): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  throw new Error('DATABASE_URL: PostgreSQL is not supported yet; use sqlite:<path>');
}

function openSqlite(path: string): DatabaseHandle {
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SqliteDatabase(memory ? ':memory:' : resolve(path));
  sqlite.pragma('journal_mode = WAL');
  // Wait for another writer instead of failing with SQLITE_BUSY.
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, engine: 'sqlite', close: () => db.destroy() };
}
