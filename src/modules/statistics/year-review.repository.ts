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
