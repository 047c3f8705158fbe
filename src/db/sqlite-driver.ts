import SqliteDatabase from 'better-sqlite3';
import {
  AliasNode,
  CompiledQuery,
  type DatabaseConnection,
  DeleteQueryNode,
  type Driver,
  InsertQueryNode,
  type Kysely,
  type OperationNode,
  type QueryResult,
  SqliteDialect,
  TableNode,
  UpdateQueryNode,
} from 'kysely';
import { ANY_TABLE, CHANGE_MARKER_COLUMNS } from './generation.js';

type Statement = SqliteDatabase.Statement;

export interface SqliteConnections {
  /** Every transaction and every write. */
  writer: SqliteDatabase.Database;
  /**
   * Reads outside transactions: they see the last committed state, whatever the writer holds open.
   * A streamed read opens a read-only connection of its own to the same file. Null (an in-memory
   * database, which a second connection cannot open): the writer reads and streams too.
   */
  reader: SqliteDatabase.Database | null;
  /**
   * Called whenever something this process wrote has been committed, with what it changed: table
   * names, `users.data_version` for a change marker alone (see CHANGE_MARKER_COLUMNS), or ANY_TABLE.
   */
  onCommit: (changed: ReadonlySet<string>) => void;
}

/** Transactions grouped into one commit at most; the rest wait for the next. */
const MAX_GROUP = 256;
/** Distinct SQL texts kept prepared per connection; the app has far fewer, the cap only guards a leak. */
const STATEMENT_CACHE_SIZE = 2000;
/** Each transaction of a group runs in this savepoint: one that fails rolls back only itself. */
const SAVEPOINT = 'cinelog_tx';

/** Statements the reader may run outside a transaction: queries that change nothing. */
const QUERY = /^\s*(select|with|values)\b/i;

/** How a statement outside a transaction is run, decided once per SQL text. */
type Route = 'read' | 'write' | 'exclusive';

interface Prepared {
  writer: Statement;
  reader: Statement | null;
  route: Route;
  /** What the statement changes, for `onCommit`: see `changesOf`. Empty for a query. */
  changes: readonly string[];
  /** DDL: foreign keys and triggers, and with them what statements change, may be new. */
  changesSchema: boolean;
}

/** Statements that change no table (SQLite calls BEGIN a write). */
const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One handle Kysely holds between acquiring and releasing a connection. `state`: `free` (reads go to
 * the reader, writes join the group), `transaction` (holds the writer, in its savepoint of the group),
 * `exclusive` (holds the writer alone: transaction control, PRAGMA or DDL issued outside Kysely's
 * transactions, exactly as on a plain connection; a stream without a reader).
 */
/** A key claimed in a group (`sharedInCommit`), with what its claimer left for the group's others. */
interface Claim {
  value: unknown;
  /** The table whose write ends `value`; null: none (no value, or ended). */
  watch: string | null;
}

class Lease implements DatabaseConnection {
  state: 'free' | 'transaction' | 'exclusive' = 'free';
  /** A transaction begun while exclusive: a plain BEGIN IMMEDIATE ... COMMIT of its own. */
  plainTransaction = false;
  constructor(readonly driver: GroupCommitSqliteDriver) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute(this, query) as Promise<QueryResult<R>>;
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.stream(this, query, chunkSize) as AsyncIterableIterator<QueryResult<R>>;
  }
}

/**
 * better-sqlite3 for Kysely, with group commit. SQLite commits one transaction at a time, and a commit
 * costs more than the few statements of a typical write (its WAL frames, and every thousand pages a
 * checkpoint). So write transactions that arrive in the same turn of the event loop run one after
 * the other, in the turn's check phase, inside one `BEGIN IMMEDIATE ... COMMIT`, each in a savepoint of
 * its own: one that fails is rolled back alone and fails alone; the others are committed together
 * once the writer is idle, and each caller's `commit` resolves only once that commit is done (or
 * rejects with its error).
 *
 * Reads outside transactions use a second, read-only connection, which sees the last committed state
 * and never waits for the writer: nothing reads what is not yet committed. A read streamed outside
 * transactions gets a read-only connection of its own. Writes outside transactions join the group as
 * statements of their own (a failed statement is undone by SQLite alone). A statement that ends
 * SQLite's whole transaction (OR ROLLBACK, some I/O errors) fails the group so far with its error; a
 * COMMIT that fails (a deferred foreign key) fails all of the group with its error, and is rolled back.
 */
export class GroupCommitSqliteDriver implements Driver {
  readonly #writer: SqliteDatabase.Database;
  readonly #reader: SqliteDatabase.Database | null;
  readonly #onCommit: (changed: ReadonlySet<string>) => void;
  readonly #statements = new Map<string, Prepared>();
  /** Whether a lease holds the writer; the others wait in line, first come first served. */
  #writerHeld = false;
  #line: (() => void)[] = [];
  #lineHead = 0;
  /** The open group: those waiting for its COMMIT. Null: no transaction open on the writer. */
  #group: Waiter[] | null = null;
  #commitScheduled = false;
  /** Keys claimed (see `sharedInCommit`) by the transactions of the open group, and by the running one. */
  readonly #groupClaims = new Map<string, Claim>();
  readonly #claims = new Map<string, Claim>();
  /** The claims whose value a write to a table ends, by table (see `sharedInCommit`). */
  readonly #watchers = new Map<string, Set<Claim>>();
  /** What the statements run on the writer since its last commit changed (see `changesOf`). */
  #changed = new Set<string>();
  /** Per table: whether deleting (or updating) its rows can change other tables. Null: not read yet. */
  #cascades: Map<string, { onDelete: boolean; onUpdate: boolean }> | null = null;

  constructor(connections: SqliteConnections) {
    this.#writer = connections.writer;
    this.#reader = connections.reader;
    this.#onCommit = connections.onCommit;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.state === 'exclusive') {
      lease.state = 'free';
      this.#release();
    }
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.state === 'exclusive') {
      this.#runOnWriter(CompiledQuery.raw('begin immediate'));
      lease.plainTransaction = true;
      return;
    }
    // Begun in the check phase of the event loop, after the turn's I/O: the requests read in one turn
    // are handled up to their transactions first, then those run back to back (SQLite's code and pages
    // hot in the CPU's caches) and commit together. One more turn of latency; measured with the bench,
    // about 7% more one-play POSTs a second than beginning each transaction at once.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.#hold(false);
    try {
      this.#openGroup();
      this.#runOnWriter(CompiledQuery.raw(`savepoint ${SAVEPOINT}`));
    } catch (error) {
      this.#release();
      throw error;
    }
    lease.state = 'transaction';
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.plainTransaction) {
      this.#runOnWriter(CompiledQuery.raw('commit'));
      lease.plainTransaction = false;
      this.#committed();
      return;
    }
    // If this fails, Kysely rolls the transaction back (below), which lets go of the writer.
    this.#runOnWriter(CompiledQuery.raw(`release ${SAVEPOINT}`));
    lease.state = 'free';
    for (const [key, claim] of this.#claims) this.#groupClaims.set(key, claim);
    this.#claims.clear();
    const committed = this.#awaitCommit();
    this.#release();
    return committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.plainTransaction) {
      lease.plainTransaction = false;
      if (this.#writer.inTransaction) this.#runOnWriter(CompiledQuery.raw('rollback'));
      return;
    }
    // Kysely also rolls back when the group's COMMIT failed: nothing of this transaction is left open.
    if (lease.state !== 'transaction') return;
    lease.state = 'free';
    this.#forget(this.#claims);
    try {
      // The group is gone if an error rolled back the whole transaction (then its waiters failed too).
      if (this.#group && this.#writer.inTransaction) {
        this.#runOnWriter(CompiledQuery.raw(`rollback to ${SAVEPOINT}`));
        this.#runOnWriter(CompiledQuery.raw(`release ${SAVEPOINT}`));
      }
    } finally {
      this.#release();
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoted(name)}`));
  }

  /** For monitoring: whether a lease holds the writer, and how many wait for it. */
  writerStats(): { busy: boolean; waiting: number } {
    return { busy: this.#writerHeld, waiting: this.#line.length - this.#lineHead };
  }

  /**
   * See `sharedInCommit`: the new claim (to hold the claimer's value), or the
   * group's earlier one (null outside a group transaction, where every caller is first).
   */
  claim(lease: Lease, key: string, watch?: string): { first: boolean; claim: Claim | null } {
    if (lease.state !== 'transaction') return { first: true, claim: null };
    const earlier = this.#groupClaims.get(key) ?? this.#claims.get(key);
    if (earlier) return { first: false, claim: earlier };
    const claim: Claim = { value: undefined, watch: watch ?? null };
    if (claim.watch !== null) {
      const watchers = this.#watchers.get(claim.watch);
      if (watchers) watchers.add(claim);
      else this.#watchers.set(claim.watch, new Set([claim]));
    }
    this.#claims.set(key, claim);
    return { first: true, claim };
  }

  /** A write to `table` (or to any table: ANY_TABLE) ends the values the group's claims watch on it. */
  #unwatch(table: string): void {
    const ended = table === ANY_TABLE ? [...this.#watchers.values()] : [this.#watchers.get(table)];
    for (const watchers of ended) {
      for (const claim of watchers ?? []) {
        claim.value = undefined;
        claim.watch = null;
      }
    }
    if (table === ANY_TABLE) this.#watchers.clear();
    else this.#watchers.delete(table);
  }

  /** Claims are forgotten (a group's end, a rollback): so are the values they watched. */
  #forget(claims: Map<string, Claim>): void {
    for (const claim of claims.values()) {
      if (claim.watch === null) continue;
      const watchers = this.#watchers.get(claim.watch);
      watchers?.delete(claim);
      if (watchers?.size === 0) this.#watchers.delete(claim.watch);
    }
    claims.clear();
  }

  async destroy(): Promise<void> {
    await this.#hold(true);
    this.#reader?.close();
    this.#writer.close();
  }

  /** A statement of `lease`. */
  execute(lease: Lease, query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (lease.state === 'transaction') return settle(() => this.#runOnWriter(query));
    const prepared = this.#prepare(query);
    if (lease.state === 'exclusive') return settle(() => this.#runExclusive(prepared, query));
    if (prepared.route === 'read' && this.#reader) {
      prepared.reader ??= this.#reader.prepare(query.sql);
      return settle(() => run(prepared.reader!, query.parameters));
    }
    if (prepared.route === 'write') return this.#writeInGroup(query);
    return this.#executeExclusive(lease, prepared, query);
  }

  async *stream(
    lease: Lease,
    query: CompiledQuery,
    chunkSize = 100,
  ): AsyncIterableIterator<QueryResult<unknown>> {
    if (!QUERY.test(query.sql)) throw new Error('only SELECT queries can be streamed');
    const prepared = this.#prepare(query);
    if (lease.state === 'free' && prepared.route === 'read' && this.#reader) {
      yield* this.#streamOnOwnConnection(this.#reader, query, chunkSize);
      return;
    }
    // In a transaction, or with no reader: read on the writer, alone (nothing else may run on a
    // connection mid-iteration).
    if (lease.state === 'free') {
      await this.#hold(true);
      lease.state = 'exclusive';
    }
    yield* chunks(prepared.writer.iterate(query.parameters as unknown[]), chunkSize);
  }

  /**
   * A read streamed outside transactions, on a read-only connection opened for it alone and closed when
   * it ends: it holds neither the writer nor the shared reader, and reads one snapshot however slowly
   * it is consumed. (On the shared reader, its open statement would pin every other read to that
   * snapshot too.) A snapshot held that long keeps checkpoints from restarting the WAL, which grows
   * until the stream ends.
   */
  async *#streamOnOwnConnection(
    reader: SqliteDatabase.Database,
    query: CompiledQuery,
    chunkSize: number,
  ): AsyncIterableIterator<QueryResult<unknown>> {
    const connection = new SqliteDatabase(reader.name, { readonly: true });
    try {
      connection.pragma(`busy_timeout = ${Number(reader.pragma('busy_timeout', { simple: true }))}`);
      yield* chunks(connection.prepare(query.sql).iterate(query.parameters as unknown[]), chunkSize);
    } finally {
      connection.close();
    }
  }

  async #executeExclusive(lease: Lease, prepared: Prepared, query: CompiledQuery) {
    await this.#hold(true);
    lease.state = 'exclusive';
    return this.#runExclusive(prepared, query);
  }

  /** Outside any group: whatever it wrote is committed when it returns (or at the lease's own COMMIT). */
  #runExclusive(prepared: Prepared, query: CompiledQuery): QueryResult<unknown> {
    const result = this.#runOnWriter(query);
    if (prepared.route !== 'read' && !this.#writer.inTransaction) this.#committed();
    return result;
  }

  /** A write outside a transaction: one statement of the group, answered once the group is committed. */
  async #writeInGroup(query: CompiledQuery): Promise<QueryResult<unknown>> {
    await this.#hold(false);
    let result: QueryResult<unknown>;
    try {
      this.#openGroup();
      result = this.#runOnWriter(query);
    } catch (error) {
      this.#release();
      throw error;
    }
    const committed = this.#awaitCommit();
    this.#release();
    await committed;
    return result;
  }

  #prepare(query: CompiledQuery): Prepared {
    const { sql } = query;
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      const writer = this.#writer.prepare(sql);
      const route: Route =
        writer.readonly && QUERY.test(sql)
          ? 'read'
          : !writer.readonly && /^\s*(insert|update|delete|replace|with)\b/i.test(sql)
            ? 'write'
            : 'exclusive';
      const changes = writer.readonly || TRANSACTION_CONTROL.test(sql) ? [] : this.#changesOf(query.query);
      prepared = { writer, reader: null, route, changes, changesSchema: SCHEMA_CHANGE.test(sql) };
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * What a statement changes, as the caches of `generation.ts` see it: the table it writes; an UPDATE
   * that sets nothing but change-marker columns, `table.column` of those; anything else (raw SQL,
   * DDL, a delete or update whose rows other tables reference with a cascade, a table with triggers),
   * ANY_TABLE.
   */
  #changesOf(node: OperationNode): string[] {
    const tableOf = (target: OperationNode | undefined): string | null => {
      const table = target && AliasNode.is(target) ? target.node : target;
      return table && TableNode.is(table) ? table.table.identifier.name : null;
    };
    if (InsertQueryNode.is(node)) {
      const table = tableOf(node.into);
      // REPLACE deletes the rows it replaces.
      if (table === null || (node.replace && this.#cascadesOf(table).onDelete)) return [ANY_TABLE];
      return [table];
    }
    if (UpdateQueryNode.is(node)) {
      const table = tableOf(node.table);
      if (table === null || node.from || node.joins || this.#cascadesOf(table).onUpdate) return [ANY_TABLE];
      const columns = (node.updates ?? []).map((update) =>
        'column' in update.column ? (update.column.column as { name?: string }).name : undefined,
      );
      const markers = CHANGE_MARKER_COLUMNS[table] ?? [];
      if (columns.length > 0 && columns.every((column) => column !== undefined && markers.includes(column)))
        return columns.map((column) => `${table}.${column}`);
      return [table];
    }
    if (DeleteQueryNode.is(node)) {
      const tables = node.from.froms.map(tableOf);
      if (tables.length !== 1 || tables[0] === null || this.#cascadesOf(tables[0]!).onDelete)
        return [ANY_TABLE];
      return [tables[0]!];
    }
    return [ANY_TABLE];
  }

  /** Whether changing rows of `table` changes other tables too: foreign keys with actions, triggers. */
  #cascadesOf(table: string): { onDelete: boolean; onUpdate: boolean } {
    if (!this.#cascades) {
      const cascades = new Map<string, { onDelete: boolean; onUpdate: boolean }>();
      const entry = (name: string) => {
        const found = cascades.get(name) ?? { onDelete: false, onUpdate: false };
        cascades.set(name, found);
        return found;
      };
      const objects = this.#writer
        .prepare(
          "select type, name, tbl_name as tableName from sqlite_master where type in ('table', 'trigger')",
        )
        .all() as { type: string; name: string; tableName: string }[];
      for (const object of objects) {
        if (object.type === 'trigger') {
          Object.assign(entry(object.tableName), { onDelete: true, onUpdate: true });
          continue;
        }
        const keys = this.#writer.pragma(`foreign_key_list(${quoted(object.name)})`) as {
          table: string;
          on_update: string;
          on_delete: string;
        }[];
        for (const key of keys) {
          const parent = entry(key.table);
          if (key.on_delete.toUpperCase() !== 'NO ACTION' && key.on_delete.toUpperCase() !== 'RESTRICT')
            parent.onDelete = true;
          if (key.on_update.toUpperCase() !== 'NO ACTION' && key.on_update.toUpperCase() !== 'RESTRICT')
            parent.onUpdate = true;
        }
      }
      this.#cascades = cascades;
    }
    return this.#cascades.get(table) ?? { onDelete: false, onUpdate: false };
  }

  /** Reports what the writer changed since its last commit as committed. */
  #committed(): void {
    const changed = this.#changed;
    this.#changed = new Set();
    this.#onCommit(changed);
  }

  /** Runs on the writer; an error that rolled back the whole group fails everyone waiting for it. */
  #runOnWriter(query: CompiledQuery): QueryResult<unknown> {
    try {
      const prepared = this.#prepare(query);
      const result = run(prepared.writer, query.parameters);
      // Kept even if the transaction rolls back later: a cache emptied for nothing costs one query.
      for (const change of prepared.changes) {
        this.#changed.add(change);
        if (this.#watchers.size > 0) this.#unwatch(change);
      }
      if (prepared.changesSchema) {
        // What statements prepared before change is read again from the new schema.
        this.#statements.clear();
        this.#cascades = null;
      }
      return result;
    } catch (error) {
      if (this.#group && !this.#writer.inTransaction) {
        const waiters = this.#group;
        this.#group = null;
        this.#forget(this.#groupClaims);
        this.#forget(this.#claims);
        for (const waiter of waiters) waiter.reject(error);
      }
      throw error;
    }
  }

  /** Waits for the writer. `alone`: the open group is committed first, nothing joins it. */
  async #hold(alone: boolean): Promise<void> {
    if (this.#writerHeld) await new Promise<void>((resolve) => this.#line.push(resolve));
    else this.#writerHeld = true;
    if (this.#group && (alone || this.#group.length >= MAX_GROUP)) this.#commitGroup();
  }

  /** Hands the writer to the next in line; with no one waiting, the group commits at the end of the turn. */
  #release(): void {
    if (this.#lineHead < this.#line.length) {
      // A queue without Array#shift, which copies the whole line each time.
      const next = this.#line[this.#lineHead]!;
      this.#line[this.#lineHead++] = undefined as never;
      if (this.#lineHead === this.#line.length) {
        this.#line = [];
        this.#lineHead = 0;
      }
      next();
      return;
    }
    this.#writerHeld = false;
    if (this.#group && !this.#commitScheduled) {
      this.#commitScheduled = true;
      setImmediate(this.#commitIfIdle);
    }
  }

  readonly #commitIfIdle = () => {
    this.#commitScheduled = false;
    // Held: whoever holds the writer schedules the commit when it lets go.
    if (this.#group && !this.#writerHeld) this.#commitGroup();
  };

  #openGroup(): void {
    if (this.#group) return;
    this.#runOnWriter(CompiledQuery.raw('begin immediate'));
    this.#group = [];
  }

  #awaitCommit(): Promise<void> {
    const group = this.#group;
    if (!group) return Promise.reject(new Error('no transaction is open on the SQLite writer'));
    return new Promise<void>((resolve, reject) => group.push({ resolve, reject }));
  }

  #commitGroup(): void {
    const waiters = this.#group ?? [];
    this.#group = null;
    this.#forget(this.#groupClaims);
    try {
      run(this.#prepare(CompiledQuery.raw('commit')).writer, []);
    } catch (error) {
      if (this.#writer.inTransaction) {
        try {
          run(this.#prepare(CompiledQuery.raw('rollback')).writer, []);
        } catch {
          // the COMMIT's error is the one to report
        }
      }
      for (const waiter of waiters) waiter.reject(error);
      return;
    }
    this.#committed();
    for (const waiter of waiters) waiter.resolve();
  }
}

/**
 * Whether this transaction must do the work named `key` itself, and its answer for the group's others.
 * True (`first`), except on SQLite when another transaction of the same group commit already did it:
 * one commit makes all of the group visible at once, so work whose only purpose is to mark a change
 * (a user's data version) is needed once per commit. The first transaction of a group (and every
 * transaction on PostgreSQL) runs `first`, and its answer is kept for the group. A later transaction
 * of the same group gets `{ first: false, value }`: the kept answer, or undefined once any statement
 * of the group since wrote to the table `watch` (then it reads for itself). The value is forgotten
 * with the claim: when its transaction rolls back, when the group ends.
 */
export async function sharedInCommit<DB, T>(
  db: Kysely<DB>,
  key: string,
  watch: string,
  first: () => Promise<T>,
): Promise<{ first: boolean; value: T | undefined }> {
  const claimed = await db
    .getExecutor()
    .provideConnection(async (connection) =>
      connection instanceof Lease ? connection.driver.claim(connection, key, watch) : null,
    );
  if (claimed !== null && !claimed.first)
    return { first: false, value: claimed.claim?.value as T | undefined };
  const value = await first();
  if (claimed?.claim && claimed.claim.watch !== null) claimed.claim.value = value;
  return { first: true, value };
}

function run(statement: Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/** Rows in results of up to `size` rows. Left early, the iteration ends, which resets the statement. */
function* chunks(rows: IterableIterator<unknown>, size: number): Generator<QueryResult<unknown>> {
  let chunk: unknown[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= size) {
      yield { rows: chunk };
      chunk = [];
    }
  }
  if (chunk.length > 0) yield { rows: chunk };
}

/** The result of a synchronous statement as a promise (a thrown error as a rejection). */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Kysely's SQLite dialect (compiler, adapter, introspection) with the group-commit driver. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #connections: SqliteConnections;
  /** The driver Kysely made, once it made it. */
  driver: GroupCommitSqliteDriver | null = null;
  constructor(connections: SqliteConnections) {
    super({ database: connections.writer });
    this.#connections = connections;
  }
  override createDriver(): Driver {
    this.driver = new GroupCommitSqliteDriver(this.#connections);
    return this.driver;
  }
}
