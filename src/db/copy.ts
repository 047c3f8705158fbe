import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { DatabaseHandle, Engine } from './database.js';
import type { Database } from './schema.js';

/**
 * Every app table in an order that satisfies the foreign keys (parents first), with the key that
 * orders and pages its rows. A table a migration adds must be added here: copying fails loudly until then.
 */
const COPY_ORDER: readonly { table: string; key: readonly string[] }[] = [
  { table: 'users', key: ['id'] },
  { table: 'api_tokens', key: ['id'] },
  { table: 'collections', key: ['id'] },
  { table: 'movies', key: ['id'] },
  { table: 'genres', key: ['id'] },
  { table: 'movie_genres', key: ['movie_id', 'genre_id'] },
  { table: 'people', key: ['id'] },
  { table: 'movie_cast', key: ['movie_id', 'cast_order'] },
  { table: 'movie_crew', key: ['movie_id', 'person_id', 'job'] },
  { table: 'companies', key: ['id'] },
  { table: 'movie_companies', key: ['movie_id', 'company_id'] },
  { table: 'countries', key: ['code'] },
  { table: 'movie_countries', key: ['movie_id', 'country_code'] },
  { table: 'languages', key: ['code'] },
  { table: 'movie_languages', key: ['movie_id', 'language_code'] },
  { table: 'watch_dates', key: ['id'] },
  { table: 'tags', key: ['id'] },
  { table: 'entry_tags', key: ['tag_id', 'watch_date_id'] },
  { table: 'watchlist', key: ['id'] },
  { table: 'ratings', key: ['user_id', 'movie_id'] },
  { table: 'user_external_ids', key: ['user_id', 'source', 'external_id'] },
  { table: 'likes', key: ['user_id', 'movie_id'] },
  { table: 'lists', key: ['id'] },
  { table: 'list_movies', key: ['list_id', 'movie_id'] },
  // The statistics' aggregates (migration 0017), as they are: what is pending stays pending.
  { table: 'statistics_movies', key: ['user_id', 'movie_id', 'scope'] },
  { table: 'statistics_groups', key: ['user_id', 'kind', 'scope', 'item'] },
  { table: 'statistics_days', key: ['user_id', 'watched_at'] },
  { table: 'statistics_pending', key: ['user_id', 'noted_at', 'movie_id', 'watched_at'] },
  { table: 'statistics_counting', key: ['user_id', 'movie_id', 'watched_at'] },
  { table: 'webhooks', key: ['id'] },
  { table: 'webhook_events', key: ['id'] },
  { table: 'feeds', key: ['id'] },
  // Saved media-server connections move sealed, as two-factor secrets do; and a backfill's fetched
  // pages, so that a job moved mid-way goes on from its last page.
  { table: 'media_server_connections', key: ['id'] },
  { table: 'media_server_backfill_pages', key: ['job_id', 'seq'] },
  // Open rate-limit windows: copied too, so a move does not hand out fresh allowances.
  { table: 'rate_limits', key: ['key'] },
  // Sign-ins and open reset links move too: nobody is signed out by a move.
  { table: 'sessions', key: ['id'] },
  { table: 'password_resets', key: ['id'] },
  // Two-factor secrets move sealed: the target needs the same server key (SECRET_KEY or secret.key).
  { table: 'two_factor', key: ['user_id'] },
  { table: 'two_factor_recovery_codes', key: ['id'] },
  { table: 'two_factor_challenges', key: ['id'] },
  // Single sign-on links, and sign-ins on their way to the issuer (migration 0025).
  { table: 'user_identities', key: ['id'] },
  { table: 'oidc_logins', key: ['id'] },
  // Pending jobs move with the data they work on, and the recent ones stay listed.
  { table: 'jobs', key: ['id'] },
];

/** Rows per INSERT, unless the table's columns would pass the engine's limit on bound parameters. */
const BATCH_ROWS = 500;
const MAX_PARAMETERS: Record<Engine, number> = { sqlite: 32_766, postgres: 65_535 };

type Row = Record<string, unknown>;
/** The app tables seen without their types: the copy moves rows it does not interpret. */
type AnyTables = Record<string, Row>;

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface TableCopied {
  table: string;
  rows: number;
}

export interface CopyOptions {
  /** Called after each batch, and once for an empty table; `copied === total` ends a table. */
  onProgress?: (progress: CopyProgress) => void;
  batchRows?: number;
}

/** A copy that cannot be done, or failed; the message is one line and the target holds no copied row. */
export class DatabaseCopyError extends Error {
  override name = 'DatabaseCopyError';
}

/**
 * Copies every row of every app table from `source` into the empty `target`, ids included. Both must
 * be migrated to the same schema. The source is read from one snapshot; the target is written in one
 * transaction, so a failure leaves it empty. Returns the rows copied per table, in copy order.
 */
export async function copyDatabase(
  source: DatabaseHandle,
  target: DatabaseHandle,
  options: CopyOptions = {},
): Promise<TableCopied[]> {
  const tables = await checkSameSchema(source, target);
  return inSnapshot(source, async (reader) => {
    const totals = new Map<string, number>();
    for (const { table } of tables) totals.set(table, await countRows(reader, table));
    try {
      return await target.db.transaction().execute(async (writer) => {
        const holding = await findTableWithRows(writer);
        if (holding) throw targetNotEmpty(holding);
        const copied: TableCopied[] = [];
        for (const { table, key, columns } of tables) {
          const total = totals.get(table) ?? 0;
          const batchRows = Math.min(
            options.batchRows ?? BATCH_ROWS,
            Math.floor(MAX_PARAMETERS[target.engine] / columns.length),
          );
          const rows = await copyTable(reader, writer, { table, key, batchRows }, (done) =>
            options.onProgress?.({ table, copied: done, total }),
          );
          if (rows === 0) options.onProgress?.({ table, copied: 0, total: 0 });
          copied.push({ table, rows });
        }
        if (target.engine === 'postgres') await resetIdentitySequences(writer, tables);
        return copied;
      });
    } catch (error) {
      if (error instanceof DatabaseCopyError) throw error;
      throw new DatabaseCopyError(`${errorLine(error)}; nothing was copied: the target is unchanged`);
    }
  });
}

/** The first app table that holds rows, if any: the target of a copy must have none. */
export async function findTableWithRows(
  db: Kysely<Database>,
): Promise<{ table: string; rows: number } | undefined> {
  for (const table of await appTableNames(db)) {
    const rows = await countRows(db, table);
    if (rows > 0) return { table, rows };
  }
  return undefined;
}

export function targetNotEmpty(holding: { table: string; rows: number }): DatabaseCopyError {
  return new DatabaseCopyError(
    `the target database is not empty (table ${holding.table} holds ${holding.rows} ${holding.rows === 1 ? 'row' : 'rows'}): ` +
      'db copy only fills an empty database, it never merges or overwrites',
  );
}

interface CopiedTable {
  table: string;
  key: readonly string[];
  columns: readonly string[];
}

/** The tables to copy, in order; fails unless both databases have exactly the known tables and columns. */
async function checkSameSchema(source: DatabaseHandle, target: DatabaseHandle): Promise<CopiedTable[]> {
  const [from, to] = await Promise.all([tableColumns(source.db), tableColumns(target.db)]);
  const known = new Set(COPY_ORDER.map(({ table }) => table));
  for (const [side, tables] of [
    ['source', from],
    ['target', to],
  ] as const) {
    const unknown = [...tables.keys()].filter((table) => !known.has(table));
    if (unknown.length > 0) {
      throw new DatabaseCopyError(
        `the ${side} database has tables db copy does not know: ${unknown.join(', ')} ` +
          '(a table added by a migration must be added to COPY_ORDER in src/db/copy.ts)',
      );
    }
    const missing = COPY_ORDER.filter(({ table }) => !tables.has(table)).map(({ table }) => table);
    if (missing.length > 0) {
      throw new DatabaseCopyError(`the ${side} database lacks the tables ${missing.join(', ')}`);
    }
  }
  return COPY_ORDER.map(({ table, key }) => {
    const columns = from.get(table) ?? [];
    const other = to.get(table) ?? [];
    if (columns.join() !== other.join()) {
      throw new DatabaseCopyError(
        `table ${table} has the columns ${columns.join(', ')} in the source but ${other.join(', ')} in the target`,
      );
    }
    return { table, key, columns };
  });
}

/** The app tables (not Kysely's migration bookkeeping, not views) and their sorted column names. */
async function tableColumns(db: Kysely<Database>): Promise<Map<string, string[]>> {
  const schema = await currentSchema(db);
  const tables = await db.introspection.getTables();
  return new Map(
    tables
      .filter((t) => !t.isView && isAppTable(t.name) && (schema === null || t.schema === schema))
      .map((t) => [t.name, t.columns.map((c) => c.name).sort()]),
  );
}

async function appTableNames(db: Kysely<Database>): Promise<string[]> {
  const names = [...(await tableColumns(db)).keys()];
  const rank = (name: string) => {
    const index = COPY_ORDER.findIndex(({ table }) => table === name);
    return index === -1 ? COPY_ORDER.length : index;
  };
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const isAppTable = (name: string) => !name.startsWith('kysely_') && !name.startsWith('sqlite_');

/** PostgreSQL introspection lists every schema; the app's tables are those of the current one. */
async function currentSchema(db: Kysely<Database>): Promise<string | null> {
  if (engineOf(db) !== 'postgres') return null;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? null;
}

const engineOf = (db: Kysely<Database>): Engine =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

async function countRows(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{
    count: number | string;
  }>`select count(*) as count from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

/**
 * Runs `read` on one connection of the source inside a read transaction, so every table is read from
 * the same moment even if a server still writes to it. SQLite: a deferred BEGIN takes no write lock,
 * unlike the app's transactions. PostgreSQL: repeatable read is a snapshot.
 */
async function inSnapshot<T>(source: DatabaseHandle, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const begin =
    source.engine === 'postgres' ? sql`begin isolation level repeatable read read only` : sql`begin`;
  return source.db.connection().execute(async (connection) => {
    await begin.execute(connection);
    try {
      return await read(connection);
    } finally {
      // A read-only transaction: nothing to commit. A broken connection must not hide the first error.
      await sql`rollback`.execute(connection).catch(() => undefined);
    }
  });
}

/** Copies one table in key order, a batch at a time (keyset paging: each batch starts after the last key). */
async function copyTable(
  reader: Kysely<Database>,
  writer: Kysely<Database>,
  { table, key, batchRows }: { table: string; key: readonly string[]; batchRows: number },
  progress: (copied: number) => void,
): Promise<number> {
  const from = reader as unknown as Kysely<AnyTables>;
  const to = writer as unknown as Kysely<AnyTables>;
  const keyRefs = sql.join(key.map((column) => sql.ref(column)));
  let after: unknown[] | undefined;
  let copied = 0;
  for (;;) {
    let query = from.selectFrom(table).selectAll();
    if (after) query = query.where(sql<boolean>`(${keyRefs}) > (${sql.join(after)})`);
    for (const column of key) query = query.orderBy(column);
    const rows = await query.limit(batchRows).execute();
    if (rows.length === 0) return copied;
    for (const row of rows) checkPortable(table, row);
    try {
      await to.insertInto(table).values(rows).execute();
    } catch (error) {
      throw new DatabaseCopyError(`copying ${table} failed: ${errorLine(error)}; the target is unchanged`);
    }
    copied += rows.length;
    progress(copied);
    const last = rows[rows.length - 1]!;
    after = key.map((column) => last[column]);
    if (rows.length < batchRows) return copied;
  }
}

/** The schema stores text, numbers and nulls only; anything else would not survive the other engine. */
function checkPortable(table: string, row: Row): void {
  for (const [column, value] of Object.entries(row)) {
    if (value === null || typeof value === 'string') continue;
    if (typeof value === 'number' && Number.isFinite(value)) continue;
    const kind = value instanceof Uint8Array ? 'binary' : typeof value;
    throw new DatabaseCopyError(
      `${table}.${column} holds a ${kind} value (${String(value).slice(0, 40)}), which db copy cannot carry exactly`,
    );
  }
}

/**
 * Rows inserted with their ids leave PostgreSQL's identity sequences at 1: move each past the largest id
 * so new rows get fresh ids. (SQLite's AUTOINCREMENT follows the inserted ids by itself.)
 */
async function resetIdentitySequences(db: Kysely<Database>, tables: readonly CopiedTable[]): Promise<void> {
  const copied = new Set(tables.map(({ table }) => table));
  const identities = (await db.introspection.getTables()).flatMap((t) =>
    copied.has(t.name) ? t.columns.filter((c) => c.isAutoIncrementing).map((c) => [t.name, c.name]) : [],
  );
  for (const [table, column] of identities as [string, string][]) {
    const ref = sql.ref(column);
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}), coalesce(max(${ref}), 1), max(${ref}) is not null) from ${sql.table(table)}`.execute(
      db,
    );
  }
}

/** One line from any error; drivers sometimes throw an AggregateError with an empty message. */
export function errorLine(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map(errorLine).join('; ') || 'unknown error';
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const text = error.message || (typeof code === 'string' ? code : error.name);
    return text.replace(/\s*\n\s*/g, ' ').trim();
  }
  return String(error);
}
