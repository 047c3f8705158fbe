import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';

/**
 * A hot query compiled once per database instead of on every call. `build` receives placeholders for
 * its arguments and must not vary its shape with them (no optional filters, no variable-length IN
 * lists); calls then only bind the arguments. Building and compiling a query with Kysely costs several
 * times what SQLite needs to run a primary-key lookup. Resolves to the whole result (rows, affected rows).
 */
export function precompiledQuery<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
) {
  // Keyed by the database's adapter, which its transactions share: compiled once, not once per transaction.
  const compiledFor = new WeakMap<object, { query: CompiledQuery<Row>; slots: number[] }>();
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000arg${i}\u0000`);

  return (db: Kysely<Database>, ...args: Args): Promise<QueryResult<Row>> => {
    const executor = db.getExecutor();
    const adapter = executor.adapter;
    let entry = compiledFor.get(adapter);
    if (!entry) {
      const query = build(db, ...(placeholders as unknown as Args)).compile();
      // Which argument each bound parameter is (-1: a constant of the query itself).
      const slots = query.parameters.map((value) => placeholders.indexOf(value as string));
      entry = { query, slots };
      compiledFor.set(adapter, entry);
    }
    const { query, slots } = entry;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = slot >= 0 ? args[slot] : query.parameters[i];
    }
    const compiled: CompiledQuery<Row> = {
      sql: query.sql,
      query: query.query,
      queryId: query.queryId,
      parameters,
    };
    // Straight to the connection: without plugins, executeQuery adds only layers of promises.
    if (executor.plugins.length > 0) return db.executeQuery(compiled);
    return executor.provideConnection((connection) => connection.executeQuery<Row>(compiled));
  };
}

/** `precompiledQuery`, resolving to the rows only. */
export function precompiled<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
) {
  const query = precompiledQuery(build, arity);
  return async (db: Kysely<Database>, ...args: Args): Promise<Row[]> => (await query(db, ...args)).rows;
}
