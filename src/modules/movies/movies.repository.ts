import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { Database } from '../../db/schema.js';
import type { ProviderMovieData } from './provider-movie.js';

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

/** A movie's service id by TMDB id, kept between writes to movies (`movieIdsByTmdbId`). */
export const keptMovieIdsByTmdbId = keptBetweenWrites<number>(['movies']);

/** The catalogue's version (`catalogVersion`), kept between writes to movies. */
export const keptCatalogVersion = keptBetweenWrites<'catalog'>(['movies']);

/** The newest details fetch (`newestDetailsFetch`), kept between writes to movies. */
export const keptNewestDetailsFetch = keptBetweenWrites<'details'>(['movies']);

/**
 * When a movie's details were last fetched: a refresh may change its genres, countries and credits
 * and leave its row (and so `catalogVersion`) as it was. '-' with no movie stored.
 */
export async function newestDetailsFetch(db: Db): Promise<string> {
  const row = await db
    .selectFrom('movies')
    .select((eb) => eb.fn.max('details_fetched_at').as('at'))
    .executeTakeFirst();
  return row?.at ?? '-';
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

/** A movie's own columns as TMDB gives them, with its collection's service id. */
export type ProviderMovieRow = ProviderMovieData['movie'] & { collection_id: number | null };

/**
 * Creates the movie, or refreshes the stored one with the same TMDB id (which keeps its id, and gets
 * `updated_at`); returns its service id.
 */
export async function upsertProviderMovie(db: Db, movie: ProviderMovieRow, now: string): Promise<number> {
  const { id } = await db
    .insertInto('movies')
    .values({ ...movie, created_at: now, updated_at: null, details_fetched_at: now })
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
        backdrop_path: eb.ref('excluded.backdrop_path'),
        collection_id: eb.ref('excluded.collection_id'),
        imdb_id: eb.ref('excluded.imdb_id'),
        tmdb_vote_average: eb.ref('excluded.tmdb_vote_average'),
        tmdb_vote_count: eb.ref('excluded.tmdb_vote_count'),
        details_fetched_at: now,
        updated_at: now,
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Refreshes the stored movie `movieId` with TMDB's data; its ids (service and TMDB) stay as they are.
 * False when no such movie is stored.
 */
export async function updateProviderMovie(
  db: Db,
  movieId: number,
  movie: ProviderMovieRow,
  now: string,
): Promise<boolean> {
  const { tmdb_id: _kept, ...columns } = movie;
  const names = Object.keys(columns) as (keyof typeof columns)[];
  const stored = await db.selectFrom('movies').select(names).where('id', '=', movieId).executeTakeFirst();
  if (!stored) return false;
  // `updated_at` keys every cached list page (catalogVersion): moved only when what the movie's row
  // says did change, so an hourly refresh of unchanged movies leaves the page cache alone.
  const changed = names.some((name) => stored[name] !== columns[name]);
  await db
    .updateTable('movies')
    .set({ ...columns, details_fetched_at: now, ...(changed && { updated_at: now }) })
    .where('id', '=', movieId)
    .execute();
  return true;
}

/** The movie's TMDB id (null for a movie that has none); undefined when no such movie is stored. */
export async function findMovieTmdbId(db: Db, movieId: number): Promise<number | null | undefined> {
  const row = await db.selectFrom('movies').select('tmdb_id').where('id', '=', movieId).executeTakeFirst();
  return row?.tmdb_id;
}

/** TMDB was asked for the movie and knows it no more: only the time of asking moves, nothing it shows. */
export async function markDetailsFetched(db: Db, movieId: number, now: string): Promise<void> {
  await db.updateTable('movies').set({ details_fetched_at: now }).where('id', '=', movieId).execute();
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

/**
 * Movies whose TMDB data was fetched before `before` (never fetched first, then the oldest), that have
 * a TMDB id to ask: the background refresh's next ones.
 */
export async function staleMovieIds(db: Db, before: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('movies')
    .select('id')
    .where('tmdb_id', 'is not', null)
    .where((eb) => eb.or([eb('details_fetched_at', 'is', null), eb('details_fetched_at', '<', before)]))
    .orderBy((eb) => eb.case().when('details_fetched_at', 'is', null).then(0).else(1).end())
    .orderBy('details_fetched_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Every stored movie with a TMDB id (`cinelog movies refresh --all`). */
export async function refreshableMovieIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('movies')
    .select('id')
    .where('tmdb_id', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Service ids of the stored movies titled `title` (or originally so, ignoring case) released in `year`. */
export async function movieIdsByTitleAndYear(db: Db, title: string, year: number): Promise<number[]> {
  const lower = title.toLowerCase();
  const rows = await db
    .selectFrom('movies')
    .select('id')
    .where((eb) =>
      eb.or([eb(eb.fn('lower', ['title']), '=', lower), eb(eb.fn('lower', ['original_title']), '=', lower)]),
    )
    .where('release_date', '>=', `${String(year).padStart(4, '0')}-01-01`)
    .where('release_date', '<=', `${String(year).padStart(4, '0')}-12-31`)
    .orderBy('id')
    .limit(2)
    .execute();
  return rows.map((row) => row.id);
}
