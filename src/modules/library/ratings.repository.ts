import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import { type MovieListQuery, movieListFilters, movieListOrder } from './movie-list.repository.js';

type Db = Kysely<Database>;

/** Sets the user's 1-10 rating of a movie. */
export async function setRating(
  db: Db,
  userId: number,
  movieId: number,
  rating: number,
  now: string,
): Promise<void> {
  await db
    .insertInto('ratings')
    .values({ user_id: userId, movie_id: movieId, rating, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doUpdateSet({ rating, updated_at: now }))
    .execute();
}

/** Deletes the user's ratings of these movies; a movie not rated is no error. */
export async function clearRatings(db: Db, userId: number, movieIds: readonly number[]): Promise<void> {
  if (movieIds.length === 0) return;
  await db
    .deleteFrom('ratings')
    .where('user_id', '=', userId)
    .where('movie_id', 'in', [...new Set(movieIds)])
    .execute();
}

/** One page of the movies a user has rated (movie ids, ratings and when they were set), and the total. */
export async function listRatings(db: Db, userId: number, query: MovieListQuery & PageRequest) {
  let base = db
    .selectFrom('ratings as r')
    .innerJoin('movies as m', 'm.id', 'r.movie_id')
    .where('r.user_id', '=', userId);
  for (const filter of movieListFilters(query)) base = base.where(filter);
  // `addedAt` of a rating is when it was last set.
  let rows = base.select(['r.movie_id', 'r.rating', 'r.updated_at']);
  for (const [term, direction] of movieListOrder(query, [sql.ref('r.updated_at')])) {
    rows = rows.orderBy(term, direction);
  }
  const [items, count] = await Promise.all([
    rows.limit(query.limit).offset(offsetOf(query)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(count.total) };
}
