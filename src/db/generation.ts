import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

type Generation = () => string;

const generations = new WeakMap<Kysely<Database>, Generation>();

/**
 * A value that changes whenever the database may have changed, read without a query: SQLite counts
 * this process's writes and asks `PRAGMA data_version` about other processes' commits. PostgreSQL has
 * no such cheap signal (other instances write over the network), so there it is absent.
 */
export function registerGeneration(db: Kysely<Database>, generation: Generation): void {
  generations.set(db, generation);
}

/**
 * Values read from the database, kept while its generation stands: a read between two writes is
 * answered from memory, and any write, by this process or another, starts afresh. Without a
 * generation (PostgreSQL) every read goes to the database.
 */
export class GenerationCache<K, V> {
  readonly #generation: Generation | undefined;
  readonly #values = new Map<K, V>();
  #seen = '';

  constructor(
    db: Kysely<Database>,
    private readonly maxEntries = 10_000,
  ) {
    this.#generation = generations.get(db);
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    if (!this.#generation) return load();
    const generation = this.#generation();
    if (generation !== this.#seen) {
      this.#values.clear();
      this.#seen = generation;
    }
    if (this.#values.has(key)) return this.#values.get(key) as V;
    const value = await load();
    // Kept only if nothing was written while it loaded.
    if (this.#generation() === generation) {
      if (this.#values.size >= this.maxEntries) this.#values.clear();
      this.#values.set(key, value);
    }
    return value;
  }
}
