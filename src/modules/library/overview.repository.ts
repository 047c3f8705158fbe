import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

// What the dashboard, the movie page and the movie grid's filters read of a user's library.

/**
 * Plays, distinct movies and minutes watched (runtime × plays; a movie without a runtime counts 0) of
 * a user: every play, the undated ones included, or those dated in `year`.
 */
export async function sumPlays(db: Db, userId: number, year?: number) {
  let query = db
    .selectFrom('watch_dates as w')
    .innerJoin('movies as m', 'm.id', 'w.movie_id')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number | string>('w.plays'), sql<number>`0`).as('plays'),
      eb.fn.count<number | string>('w.movie_id').distinct().as('movies'),
      eb.fn
        .coalesce(eb.fn.sum<number | string>(sql`w.plays * coalesce(m.runtime, 0)`), sql<number>`0`)
        .as('minutes'),
    ])
    .where('w.user_id', '=', userId);
  if (year !== undefined) {
    query = query
      .where('w.watched_at', '>=', `${year}-01-01`)
      .where('w.watched_at', '<', `${year + 1}-01-01`);
  }
  const row = await query.executeTakeFirstOrThrow();
  return { plays: Number(row.plays), movies: Number(row.movies), minutes: Number(row.minutes) };
}

/** Plays, distinct movies and minutes of each year that has a dated play, newest year first. */
export async function sumPlaysPerYear(db: Db, userId: number) {
  const year = sql<string>`substr(w.watched_at, 1, 4)`;
  const rows = await db
    .selectFrom('watch_dates as w')
    .innerJoin('movies as m', 'm.id', 'w.movie_id')
    .select((eb) => [
      year.as('year'),
      eb.fn.sum<number | string>('w.plays').as('plays'),
      eb.fn.count<number | string>('w.movie_id').distinct().as('movies'),
      eb.fn
        .coalesce(eb.fn.sum<number | string>(sql`w.plays * coalesce(m.runtime, 0)`), sql<number>`0`)
        .as('minutes'),
    ])
    .where('w.user_id', '=', userId)
    .where('w.watched_at', 'is not', null)
    .groupBy(year)
    .orderBy(year, 'desc')
    .execute();
  return rows.map((row) => ({
    year: Number(row.year),
    plays: Number(row.plays),
    movies: Number(row.movies),
    minutes: Number(row.minutes),
  }));
}

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
