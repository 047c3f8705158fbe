import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

// What the movie page and the movie grid's filters read of a user's library.

/** A user's entries of one movie, newest date first, the unknown date last. */
export function entriesOfMovie(db: Db, userId: number, movieId: number) {
  return db
    .selectFrom('watch_dates')
    .select(['watched_at', 'plays', 'comment', 'position'])
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .orderBy((eb) => eb.case().when('watched_at', 'is', null).then(1).else(0).end())
    .orderBy('watched_at', 'desc')
    .execute();
}

/** A user's rating of a movie (with when it was set) and its watchlist entry, if any. */
export async function ratingAndWatchlistOf(db: Db, userId: number, movieId: number) {
  const [rating, watchlist] = await Promise.all([
    db
      .selectFrom('ratings')
      .select(['rating', 'updated_at'])
      .where('user_id', '=', userId)
      .where('movie_id', '=', movieId)
      .executeTakeFirst(),
    db
      .selectFrom('watchlist')
      .select('added_at')
      .where('user_id', '=', userId)
      .where('movie_id', '=', movieId)
      .executeTakeFirst(),
  ]);
  return { rating, watchlist };
}

/**
 * What the movies of a user's list (played, or on the watchlist) can be narrowed by: their genres,
 * original languages and release decades, each with how many of the movies have it, most first.
 */
export async function listFacets(db: Db, userId: number, list: 'played' | 'watchlist') {
  const played =
    list === 'played'
      ? db.selectFrom('watch_dates').select('movie_id').distinct().where('user_id', '=', userId)
      : db.selectFrom('watchlist').select('movie_id').where('user_id', '=', userId);
  const [genres, languages, decades] = await Promise.all([
    db
      .selectFrom('movie_genres as mg')
      .innerJoin('genres as g', 'g.id', 'mg.genre_id')
      .select((eb) => ['g.tmdb_id', 'g.name', eb.fn.countAll<number | string>().as('count')])
      .where('mg.movie_id', 'in', played)
      .groupBy(['g.tmdb_id', 'g.name'])
      .orderBy('count', 'desc')
      .orderBy('g.name')
      .execute(),
    db
      .selectFrom('movies as m')
      .select((eb) => ['m.original_language', eb.fn.countAll<number | string>().as('count')])
      .where('m.id', 'in', played)
      .where('m.original_language', 'is not', null)
      .groupBy('m.original_language')
      .orderBy('count', 'desc')
      .orderBy('m.original_language')
      .execute(),
    db
      .selectFrom('movies as m')
      .select((eb) => [
        sql<string>`substr(${sql.ref('m.release_date')}, 1, 3)`.as('prefix'),
        eb.fn.countAll<number | string>().as('count'),
      ])
      .where('m.id', 'in', played)
      .where('m.release_date', 'is not', null)
      .groupBy(sql`substr(${sql.ref('m.release_date')}, 1, 3)`)
      .orderBy('prefix', 'desc')
      .execute(),
  ]);
  return {
    genres: genres.map((row) => ({ id: row.tmdb_id, name: row.name, count: Number(row.count) })),
    languages: languages.map((row) => ({ code: row.original_language as string, count: Number(row.count) })),
    decades: decades.map((row) => ({ decade: Number(row.prefix) * 10, count: Number(row.count) })),
  };
}
