import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The movies a user watched in a year, in the order they first watched them that year: the date and
 * place of the first and the last play, and the plays.
 */
export async function moviesWatchedIn(db: Kysely<Database>, userId: number, year: number) {
  return db
    .selectFrom('watch_dates')
    .where('user_id', '=', userId)
    .where('watched_at', '>=', `${year}-01-01`)
    .where('watched_at', '<=', `${year}-12-31`)
    .groupBy('movie_id')
    .select((eb) => [
      'movie_id as movieId',
      eb.fn.min('watched_at').as('first'),
      eb.fn.max('watched_at').as('last'),
      eb.fn.sum<number>('plays').as('plays'),
    ])
    .execute();
}
