import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * A user's dated entries of a year, in the history's order: by date, then position within the day
 * (then insertion). A year holds at most one entry per movie and day.
 */
export async function entriesOfYear(db: Kysely<Database>, userId: number, year: number) {
  const rows = await db
    .selectFrom('watch_dates')
    .where('user_id', '=', userId)
    .where('watched_at', '>=', `${year}-01-01`)
    .where('watched_at', '<=', `${year}-12-31`)
    .select(['movie_id as movieId', 'watched_at as watchedAt', 'plays'])
    .orderBy('watched_at')
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    movieId: row.movieId,
    watchedAt: String(row.watchedAt),
    plays: Number(row.plays),
  }));
}

/**
 * The user's likes whose time falls in `year` or a day either side (a year in any time zone), newest
 * first (likes of one request share a time: the higher movie id first), by the (user, time) index.
 */
export async function likesAroundYear(db: Kysely<Database>, userId: number, year: number) {
  return db
    .selectFrom('likes')
    .where('user_id', '=', userId)
    .where('liked_at', '>=', `${year - 1}-12-31`)
    .where('liked_at', '<', `${year + 1}-01-02`)
    .select(['movie_id as movieId', 'liked_at as likedAt'])
    .orderBy('liked_at', 'desc')
    .orderBy('movie_id', 'desc')
    .execute();
}

/** The first `limit` movies (by position) of each list. */
export async function firstMoviesOfLists(db: Kysely<Database>, listIds: readonly number[], limit: number) {
  const first = new Map<number, number[]>(listIds.map((id) => [id, []]));
  if (listIds.length === 0) return first;
  const rows = await db
    .selectFrom('list_movies')
    .where('list_id', 'in', listIds)
    .where('position', '<=', limit)
    .select(['list_id', 'movie_id'])
    .orderBy('list_id')
    .orderBy('position')
    .execute();
  for (const row of rows) first.get(row.list_id)?.push(row.movie_id);
  return first;
}
