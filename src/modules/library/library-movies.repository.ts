import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { MovieWithRating } from '../movies/movies.presenter.js';

type Db = Kysely<Database>;

// The movies of a user's lists as the lists show them: with the user's own rating and marks.

/** Movies by id, each with `ratingUserId`'s rating. One query, whatever the number of ids. */
export async function findMoviesWithRating(
  db: Db,
  movieIds: readonly number[],
  ratingUserId: number,
): Promise<Map<number, MovieWithRating>> {
  if (movieIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('movies as m')
    .leftJoin('ratings as r', (join) =>
      join.onRef('r.movie_id', '=', 'm.id').on('r.user_id', '=', ratingUserId),
    )
    .select([
      'm.id as movie_id',
      'm.title',
      'm.original_title',
      'm.release_date',
      'm.tagline',
      'm.overview',
      'm.original_language',
      'm.runtime',
      'm.poster_path',
      'm.tmdb_id',
      'm.trakt_id',
      'm.imdb_id',
      'm.letterboxd_id',
      'm.tmdb_vote_average',
      'm.tmdb_vote_count',
      'm.imdb_rating_average',
      'm.imdb_rating_count',
      'm.created_at',
      'm.updated_at',
      'r.rating as user_rating',
    ])
    .where('m.id', 'in', [...new Set(movieIds)])
    .execute();
  return new Map(rows.map((row) => [row.movie_id, row]));
}

/**
 * Of `movieIds`, those on one of `userId`'s lists: `watch_dates` (watched at least once),
 * `watchlist` or `likes`. One query.
 */
export async function moviesOnList(
  db: Db,
  list: 'watch_dates' | 'watchlist' | 'likes',
  userId: number,
  movieIds: readonly number[],
): Promise<Set<number>> {
  if (movieIds.length === 0) return new Set();
  const rows = await db
    .selectFrom(list)
    .select('movie_id')
    .distinct()
    .where('user_id', '=', userId)
    .where('movie_id', 'in', [...new Set(movieIds)])
    .execute();
  return new Set(rows.map((row) => row.movie_id));
}
