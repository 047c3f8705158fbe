import { type Kysely, sql } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { Database } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import { type MovieListQuery, movieListFilters, movieListOrder } from './movie-list.repository.js';

type Db = Kysely<Database>;

/** One page of a user's watchlist (movie ids and when they were added), and the total count. */
export async function listWatchlist(db: Db, userId: number, query: MovieListQuery & PageRequest) {
  let base = db
    .selectFrom('watchlist as wl')
    .innerJoin('movies as m', 'm.id', 'wl.movie_id')
    .leftJoin('ratings as r', (join) => join.onRef('r.movie_id', '=', 'm.id').on('r.user_id', '=', userId))
    .where('wl.user_id', '=', userId);
  for (const filter of movieListFilters(query)) base = base.where(filter);

  // Items added in one request share a timestamp: the insertion order breaks the tie.
  let rows = base.select(['wl.movie_id', 'wl.added_at']);
  for (const [term, direction] of movieListOrder(query, [sql.ref('wl.added_at'), sql.ref('wl.id')])) {
    rows = rows.orderBy(term, direction);
  }
  const [items, count] = await Promise.all([
    rows.limit(query.limit).offset(offsetOf(query)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(count.total) };
}

/** Puts the movies on the user's watchlist; one already there keeps its original `added_at`. */
export async function addToWatchlist(
  db: Db,
  userId: number,
  movieIds: readonly number[],
  now: string,
): Promise<void> {
  // Sorted: concurrent writers lock rows in one order.
  const unique = [...new Set(movieIds)].sort((a, b) => a - b);
  // Chunked: SQLite allows at most 32766 bound parameters per statement.
  for (let i = 0; i < unique.length; i += 1000) {
    await db
      .insertInto('watchlist')
      .values(
        unique.slice(i, i + 1000).map((movieId) => ({ user_id: userId, movie_id: movieId, added_at: now })),
      )
      .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doNothing())
      .execute();
  }
}

const removeOne = precompiled(
  (db, userId: number, movieId: number) =>
    db.deleteFrom('watchlist').where('user_id', '=', userId).where('movie_id', '=', movieId),
  2,
);

export async function removeFromWatchlist(
  db: Db,
  userId: number,
  movieIds: readonly number[],
): Promise<void> {
  if (movieIds.length === 0) return;
  // The common case (a play recorded), compiled once.
  if (movieIds.length === 1) {
    await removeOne(db, userId, movieIds[0]!);
    return;
  }
  await db
    .deleteFrom('watchlist')
    .where('user_id', '=', userId)
    .where('movie_id', 'in', [...new Set(movieIds)])
    .execute();
}
