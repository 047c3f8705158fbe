import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A number that grows whenever a committed write may have changed what a cache read from the tables
 * it names (every table when it names none).
 */
type Generation = (tables?: readonly string[]) => number;

/** A change a cache cannot place: any table may have changed (raw SQL, DDL, a cascading delete). */
export const ANY_TABLE = '*';

/**
 * Columns that only mark that something else changed, per table: `users.data_version` moves with
 * every write to a user's lists. An UPDATE that sets nothing else changes `users.data_version`, not
 * `users`, so caches of user rows that do not hold it (token owners, webhook settings) outlive it.
 */
export const CHANGE_MARKER_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  users: ['data_version'],
};

const generations = new WeakMap<Kysely<Database>, Generation>();

/**
 * A value that changes whenever the database may have changed, read without a query: SQLite counts
 * this process's commits per table changed and asks `PRAGMA data_version` about other processes'
 * commits. PostgreSQL has no such cheap signal (other instances write over the network), so there it
 * is absent.
 */
export function registerGeneration(db: Kysely<Database>, generation: Generation): void {
  generations.set(db, generation);
}

/**
 * Values read from the database, kept while its generation stands: a read between two writes is
 * answered from memory, and any write, by this process or another, starts afresh. `tables`: the only
 * tables (or change-marker columns, `users.data_version`) the values are read from, so that writes
 * to other tables keep them; absent, any write does. Without a generation (PostgreSQL) every read
 * goes to the database.
 */
export class GenerationCache<K, V> {
  readonly #generation: (() => number) | undefined;
  readonly #values = new Map<K, V>();
  /** Loads under way in the current generation: requests arriving together share one query. */
  readonly #loading = new Map<K, Promise<V>>();
  #seen = -1;

  constructor(
    db: Kysely<Database>,
    tables?: readonly string[],
    private readonly maxEntries = 10_000,
  ) {
    const generation = generations.get(db);
    this.#generation = generation && (() => generation(tables));
  }

  /** Whether values are kept at all: false where the database has no generation (PostgreSQL). */
  get keeps(): boolean {
    return this.#generation !== undefined;
  }

  get(key: K, load: () => Promise<V>): Promise<V> {
    if (!this.#generation) return load();
    const generation = this.#generation();
    if (generation !== this.#seen) {
      this.#values.clear();
      this.#loading.clear();
      this.#seen = generation;
    }
    if (this.#values.has(key)) return Promise.resolve(this.#values.get(key) as V);
    let loading = this.#loading.get(key);
    if (loading === undefined) {
      loading = this.#load(key, load, generation);
      this.#loading.set(key, loading);
    }
    return loading;
  }

  async #load(key: K, load: () => Promise<V>, generation: number): Promise<V> {
    try {
      const value = await load();
      // Kept only if nothing was written while it loaded.
      if (this.#generation!() === generation && this.#seen === generation) {
        if (this.#values.size >= this.maxEntries) this.#values.clear();
        this.#values.set(key, value);
      }
      return value;
    } finally {
      if (this.#seen === generation) this.#loading.delete(key);
    }
  }
}

/**
 * A read kept between writes, declared in the repository beside the query it keeps, with the tables
 * (or change-marker columns) that query reads: the list sits next to the SQL it describes, never in a
 * service. Each call builds one cache of it; the value's type is the caller's (it may keep the row as
 * its service shows it).
 */
export function keptBetweenWrites<K>(tables: readonly string[], maxEntries?: number) {
  return <V>(db: Kysely<Database>): GenerationCache<K, V> =>
    new GenerationCache<K, V>(db, tables, maxEntries);
}
