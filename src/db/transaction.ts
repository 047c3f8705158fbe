import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Whether this transaction must do the work named `key` itself (marking a change once per commit):
 * always on PostgreSQL; on SQLite, once per group commit (`sqlite-driver.ts`), and `sharedInCommit`
 * hands the first one's answer to the group's others. Modules ask here, not the SQLite driver.
 */
export { sharedInCommit } from './sqlite-driver.js';

const ATTEMPTS = 4;
/** PostgreSQL deadlock and serialization failures, SQLite's busy writer: the transaction may simply run again. */
const TRANSIENT = new Set(['40P01', '40001', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);

const isTransient = (error: unknown) =>
  typeof error === 'object' && error !== null && TRANSIENT.has(String((error as { code?: unknown }).code));

/**
 * Runs `work` in one transaction, and again (up to 4 times, after a short random pause) when the engine
 * aborted it only because of a concurrent one. `work` must touch nothing but the database.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

export const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter;
