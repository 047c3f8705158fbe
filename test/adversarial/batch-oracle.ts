import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { Answer } from './expectations.js';

/** What the batch writes change: a user's plays, watchlist, ratings and likes. */
const LIBRARY_TABLES = ['watch_dates', 'watchlist', 'ratings', 'likes'] as const;

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
export type Library = Record<string, string[]>;

/** The library tables, rows without their generated ids, sorted. */
export async function library(db: Kysely<Database>): Promise<Library> {
  const result: Library = {};
  for (const table of LIBRARY_TABLES) {
    const rows = await (db as unknown as AnyDb).selectFrom(table).selectAll().execute();
    result[table] = rows.map(({ id: _id, ...row }) => JSON.stringify(row)).sort();
  }
  return result;
}

/** Makes the twin's library the same as the world's. */
export async function copyLibrary(from: Kysely<Database>, to: Kysely<Database>): Promise<void> {
  const source = from as unknown as AnyDb;
  await (to as unknown as AnyDb).transaction().execute(async (trx) => {
    for (const table of LIBRARY_TABLES) {
      await trx.deleteFrom(table).execute();
      const rows = (await source.selectFrom(table).selectAll().execute()).map(({ id: _id, ...row }) => row);
      for (let start = 0; start < rows.length; start += 200) {
        await trx
          .insertInto(table)
          .values(rows.slice(start, start + 200))
          .execute();
      }
    }
  });
}

/**
 * Whole or not at all: an accepted batch (2xx) leaves the library its items leave one by one, and
 * none of them is refused alone; a refused batch (which changed nothing: the ChangeGuard checks that)
 * has an item that is refused alone. `libraries`: after the batch and after the items one by one,
 * for an accepted batch.
 */
export function judgeBatch(
  label: string,
  answer: Answer,
  alone: { item: unknown; status: number }[],
  libraries: [Library, Library] | null,
): void {
  if (answer.statusCode < 300) {
    const refused = alone.find(({ status }) => status >= 300);
    if (refused) {
      throw new Error(
        `a batch was accepted though one of its items alone is refused (${refused.status}): ${JSON.stringify(refused.item)}\n  request: ${label}\n  answer: ${answer.statusCode}`,
      );
    }
    const [asBatch, oneByOne] = libraries ?? [{}, {}];
    if (JSON.stringify(asBatch) !== JSON.stringify(oneByOne)) {
      throw new Error(
        `a batch changed the library otherwise than its items one by one\n  request: ${label}\n  answer: ${answer.statusCode}\n  as a batch: ${JSON.stringify(asBatch)}\n  one by one: ${JSON.stringify(oneByOne)}`,
      );
    }
    return;
  }
  if (alone.length > 0 && alone.every(({ status }) => status < 300)) {
    throw new Error(
      `a batch was refused though each of its items alone is accepted\n  request: ${label}\n  answer: ${answer.statusCode} ${answer.body}`,
    );
  }
}
