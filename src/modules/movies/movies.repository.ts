import type { Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { Database, NewMovie } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The ids among `movieIds` that name no movie. */
const movieExists = precompiled(
  (db, id: number) => db.selectFrom('movies').select('id').where('id', '=', id),
  1,
);

export async function missingMovieIds(db: Db, movieIds: readonly number[]): Promise<number[]> {
  const unique = [...new Set(movieIds)];
  if (unique.length === 0) return [];
  // The common case (one play, one scrobble), compiled once.
  if (unique.length === 1) return (await movieExists(db, unique[0]!)).length > 0 ? [] : unique;
  const found = new Set<number>();
  // Chunked: SQLite allows at most 32766 bound parameters per statement.
  for (let i = 0; i < unique.length; i += 5000) {
    const rows = await db
      .selectFrom('movies')
      .select('id')
      .where('id', 'in', unique.slice(i, i + 5000))
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return unique.filter((id) => !found.has(id));
}

/** Service ids of the movies with these TMDB ids. */
const movieByTmdbId = precompiled(
  (db, tmdbId: number) => db.selectFrom('movies').select(['id', 'tmdb_id']).where('tmdb_id', '=', tmdbId),
  1,
);

export async function movieIdsByTmdbId(db: Db, tmdbIds: readonly number[]): Promise<Map<number, number>> {
  if (tmdbIds.length === 0) return new Map();
  if (tmdbIds.length === 1) {
    const [row] = await movieByTmdbId(db, tmdbIds[0]!);
    return new Map(row ? [[row.tmdb_id!, row.id]] : []);
  }
  const rows = await db
    .selectFrom('movies')
    .select(['id', 'tmdb_id'])
    .where('tmdb_id', 'in', [...new Set(tmdbIds)])
    .execute();
  return new Map(rows.map((row) => [row.tmdb_id!, row.id]));
}

/** Service id of the movie with this IMDb id, if one is stored. */
export async function movieIdByImdbId(db: Db, imdbId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('movies')
    .select('id')
    .where('imdb_id', '=', imdbId)
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

export type ProviderMovie = Omit<
  NewMovie,
  'id' | 'created_at' | 'updated_at' | 'trakt_id' | 'letterboxd_id'
> & {
  tmdb_id: number;
};

/** Creates the movie, or refreshes the stored one with the same TMDB id; returns its service id. */
export async function upsertProviderMovie(
  db: Db,
  movie: ProviderMovie,
  genres: readonly { tmdbId: number; name: string }[],
  now: string,
): Promise<number> {
  const { id } = await db
    .insertInto('movies')
    .values({ ...movie, created_at: now, updated_at: null })
    .onConflict((oc) =>
      oc.column('tmdb_id').doUpdateSet((eb) => ({
        title: eb.ref('excluded.title'),
        original_title: eb.ref('excluded.original_title'),
        release_date: eb.ref('excluded.release_date'),
        tagline: eb.ref('excluded.tagline'),
        overview: eb.ref('excluded.overview'),
        original_language: eb.ref('excluded.original_language'),
        runtime: eb.ref('excluded.runtime'),
        poster_path: eb.ref('excluded.poster_path'),
        imdb_id: eb.ref('excluded.imdb_id'),
        tmdb_vote_average: eb.ref('excluded.tmdb_vote_average'),
        tmdb_vote_count: eb.ref('excluded.tmdb_vote_count'),
        updated_at: now,
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();

  await db.deleteFrom('movie_genres').where('movie_id', '=', id).execute();
  // Upserted in id order, so concurrent adds sharing genres lock them in one order.
  const byId = [...genres.entries()].sort(([, a], [, b]) => a.tmdbId - b.tmdbId);
  for (const [position, genre] of byId) {
    const { id: genreId } = await db
      .insertInto('genres')
      .values({ tmdb_id: genre.tmdbId, name: genre.name })
      .onConflict((oc) => oc.column('tmdb_id').doUpdateSet({ name: genre.name }))
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('movie_genres').values({ movie_id: id, genre_id: genreId, position }).execute();
  }
  return id;
}

// Two subqueries, not max() twice in one: SQLite answers a lone max() from the index, two by a scan.
const newestMovieChanges = precompiled(
  (db) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom('movies')
        .select((inner) => inner.fn.max('updated_at').as('at'))
        .as('refreshed'),
      eb
        .selectFrom('movies')
        .select((inner) => inner.fn.max('imdb_rating_updated_at').as('at'))
        .as('rated'),
    ]),
  0,
);

/**
 * Moves whenever what a page shows of any movie changes: its newest refresh from the provider and its
 * newest IMDb rating change (the ratings import keeps the latter strictly increasing). Pages showing
 * movies depend on it.
 */
export async function catalogVersion(db: Db): Promise<string> {
  const [row] = await newestMovieChanges(db);
  return `${row?.refreshed ?? '-'}|${row?.rated ?? '-'}`;
}
