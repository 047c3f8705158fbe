import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import type Pg from 'pg';
import { ANY_TABLE, registerGeneration } from './generation.js';
import type { Database } from './schema.js';
import { GroupCommitSqliteDialect } from './sqlite-driver.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  close(): Promise<void>;
}

/**
 * What the process's database connections are doing, for monitoring. PostgreSQL: the pool. SQLite:
 * the one writer connection every write goes through (reads never wait: they have their own).
 */
export interface PoolStats {
  engine: Engine;
  /** Connections the pool may open (SQLite: 1, the writer). */
  max: number;
  /** Connections open now. */
  open: number;
  /** Open connections no one is using. */
  idle: number;
  /** Queries or transactions waiting for a connection (SQLite: for the writer). */
  waiting: number;
}

const poolStatsOf = new WeakMap<Kysely<Database>, () => PoolStats>();

/** The pool statistics of a database opened by openDatabase; undefined for any other Kysely. */
export function poolStats(db: Kysely<Database>): PoolStats | undefined {
  return poolStatsOf.get(db)?.();
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

/**
 * Commits through every SQLite connection of this process (counters of the process, so any connection
 * sees them): all of them, and per table changed (see `GroupCommitSqliteDriver`'s `onCommit`).
 */
let processCommits = 0;
const commitsChanging = new Map<string, number>();

function countCommit(changed: ReadonlySet<string>): void {
  processCommits++;
  for (const table of changed) commitsChanging.set(table, (commitsChanging.get(table) ?? 0) + 1);
}

/** Commits of this process that changed one of `tables` (or an unknown table); all commits without `tables`. */
function commitsOf(tables: readonly string[] | undefined): number {
  if (tables === undefined) return processCommits;
  let count = commitsChanging.get(ANY_TABLE) ?? 0;
  for (const table of tables) count += commitsChanging.get(table) ?? 0;
  return count;
}

function openSqlite(path: string, synchronous: 'normal' | 'full'): DatabaseHandle {
  const memory = path === ':memory:';
  const file = memory ? ':memory:' : resolve(path);
  if (!memory) mkdirSync(dirname(file), { recursive: true });
  const writer = new SqliteDatabase(file);
  writer.pragma('journal_mode = WAL');
  // Wait for another process's write instead of failing with SQLITE_BUSY.
  writer.pragma('busy_timeout = 10000');
  writer.pragma('foreign_keys = ON');
  writer.pragma(`synchronous = ${synchronous}`);
  // A checkpoint once the WAL holds 4,000 pages, not SQLite's 1,000: a page written again and again (a
  // user's row, the last pages of the tables and indexes a play adds to) is copied back once per
  // checkpoint, so fewer, larger checkpoints copy less in all (one-play POSTs 1.08-1.13 x paired, about
  // 5 % less CPU each; a checkpoint holds the event loop longer, once per about 1,000 plays; the WAL file
  // grows to 16 MB). 4,000 frames stay within the first block of the WAL's index (4,062 frames), so a
  // read looks a page up in one hash table (docs/performance.md, "Group commit on SQLite").
  writer.pragma('wal_autocheckpoint = 4000');
  // A second connection for reads (WAL: readers never wait for the writer). Opened once the file is
  // in WAL mode; an in-memory database exists for one connection only.
  const reader = memory ? null : new SqliteDatabase(file, { readonly: true });
  reader?.pragma('busy_timeout = 10000');
  const dataVersion = writer.prepare('pragma data_version').pluck();
  let otherCommits: number | null = null;
  const dialect = new GroupCommitSqliteDialect({ writer, reader, onCommit: countCommit });
  const db = new Kysely<Database>({ dialect });
  poolStatsOf.set(db, () => {
    const { busy, waiting } = dialect.driver?.writerStats() ?? { busy: false, waiting: 0 };
    return { engine: 'sqlite', max: 1, open: 1, idle: busy ? 0 : 1, waiting };
  });
  // Commits through any connection of this process that changed the tables asked about, and other
  // processes' commits (which data_version counts; they may have changed anything), grow the generation:
  // both counts only grow. Reading data_version takes the WAL index lock, so it is read once per turn
  // of the event loop: a request arriving later always sees other processes' commits.
  registerGeneration(db, (tables) => {
    if (otherCommits === null) {
      otherCommits = dataVersion.get() as number;
      setImmediate(() => {
        otherCommits = null;
      });
    }
    return commitsOf(tables) + otherCommits;
  });
  return { db, engine: 'sqlite', close: () => db.destroy() };
}

/** node-postgres, loaded on first use: a SQLite server never holds it in memory. */
let postgresDriver: typeof Pg | null = null;
function loadPg(): typeof Pg {
  if (!postgresDriver) {
    postgresDriver = createRequire(import.meta.url)('pg') as typeof Pg;
    // COUNT(*) and other int8 results arrive as strings by default; ours always fit a JS number.
    postgresDriver.types.setTypeParser(postgresDriver.types.builtins.INT8, (value) => Number(value));
  }
  return postgresDriver;
}

function openPostgres(url: string, poolSize: number): DatabaseHandle {
  const pg = loadPg();
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client's connection dropping (server restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  poolStatsOf.set(db, () => ({
    engine: 'postgres',
    max: poolSize,
    open: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
  }));
  return { db, engine: 'postgres', close: () => db.destroy() };
}
