import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * What follows a change of a stored movie's data (its genres, credits, runtime...) in the change's own
 * transaction: the users' statistics (`library/statistics-aggregates.ts`, wired by services.ts). The
 * movies module tells it before and after; it knows nothing of the library's tables.
 */
export interface CatalogChanges<Before = unknown> {
  /**
   * The first step of storing a movie's data again (a refresh): holds the movie's row (PostgreSQL)
   * and reads what follows it before the change. Null: no such movie stored.
   */
  before(trx: Kysely<Database>, movieId: number): Promise<Before | null>;
  /**
   * The last step (same transaction), with what `before` read (null: the movie was not stored when
   * the transaction began). False: a concurrent add stored it and something counts it since; the
   * caller starts again.
   */
  after(trx: Kysely<Database>, movieId: number, before: Before | null): Promise<boolean>;
}

/** Which movies a user has watched or put on their watchlist (the library's marks on search results). */
export type MovieMarksOf = (
  userId: number,
  movieIds: readonly number[],
) => Promise<{ watched: Set<number>; watchlisted: Set<number> }>;
