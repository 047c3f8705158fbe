import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import pg from 'pg';
import { registerGeneration } from './generation.js';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connections per process. */
  poolSize?: number;
  /**
   * SQLite commits: `normal` (default) syncs the WAL at checkpoints, not on every commit; a commit then
   * survives a crash of the process but may be lost to a power cut. `full` syncs every commit (10x slower writes).
   */
  synchronous?: 'normal' | 'full';
}

/** Opens the database named by a `DATABASE_URL` value: `sqlite:<path>` or `postgres://...`. */
export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:'))
    return openSqlite(url.slice('sqlite:'.length), options.synchronous ?? 'normal');
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options.poolSize ?? 10);
  throw new Error('DATABASE_URL must be sqlite:<path> or postgres://user:pass@host:port/db');
}

/** Writes through every SQLite connection of this process (one counter, so any connection sees them). */
let processWrites = 0;

function openSqlite(path: string, synchronous: 'normal' | 'full'): DatabaseHandle {
  const memory = path === ':memory:';
  if (!memory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new SqliteDatabase(memory ? ':memory:' : resolve(path));
  sqlite.pragma('journal_mode = WAL');
  // Wait for another process's write instead of failing with SQLITE_BUSY.
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`synchronous = ${synchronous}`);
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let otherCommits: unknown = null;
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite, () => processWrites++) }),
  });
  // Writes through any connection of this process, and other processes' commits (which data_version
  // counts), change the generation. Reading data_version takes the WAL index lock, so it is read once
  // per turn of the event loop: a request arriving later always sees other processes' commits.
  registerGeneration(db, () => {
    if (otherCommits === null) {
      otherCommits = dataVersion.get();
      setImmediate(() => {
        otherCommits = null;
      });
    }
    return `${processWrites}:${otherCommits}`;
  });
  return { db, engine: 'sqlite', close: () => db.destroy() };
}

/** A statement that changes data (or begins or ends a transaction) reports each run. */
function countingWrites(statement: SqliteDatabase.Statement, onWrite: () => void): SqliteDatabase.Statement {
  // Kysely reads only `reader` and calls only `run` on a statement that returns no rows.
  return {
    reader: false,
    run: (...parameters: unknown[]) => {
      onWrite();
      return statement.run(...parameters);
    },
  } as unknown as SqliteDatabase.Statement;
}

/** Distinct SQL texts kept prepared; the app has far fewer, so the cap only guards against a leak. */
const STATEMENT_CACHE_SIZE = 2000;

/**
 * Kysely prepares every query anew; preparing costs more than running a small one. The statements
 * of each distinct SQL text are kept and reused (better-sqlite3 runs one statement at a time).
 */
function withStatementCache(
  sqlite: SqliteDatabase.Database,
  onWrite: () => void,
): SqliteDialectConfig['database'] {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = sqlite.prepare(sql);
        if (!statement.reader) statement = countingWrites(statement, onWrite);
        statements.set(sql, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  } as SqliteDialectConfig['database'];
}

/**
 * SQLite transactions take the write lock when they begin (`BEGIN IMMEDIATE`). A deferred transaction
 * that reads and then writes cannot wait for another process's writer: it fails with SQLITE_BUSY at
 * once. Taking the lock up front lets busy_timeout queue writers from any number of processes.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #settings: SqliteDialectConfig;
  constructor(settings: SqliteDialectConfig) {
    super(settings);
    this.#settings = settings;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#settings);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

// COUNT(*) and other int8 results arrive as strings by default; ours always fit a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function openPostgres(url: string, poolSize: number): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client's connection dropping (server restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', close: () => db.destroy() };
}
