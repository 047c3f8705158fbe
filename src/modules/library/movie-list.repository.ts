import { type Expression, type SqlBool, sql } from 'kysely';
import { containsText } from '../../db/sql.js';
import type { SortOrder } from '../../shared/schemas.js';

/** What the movie lists (watchlist, played, ratings) are sorted by; `plays` only the played list. */
export type MovieListSortBy = 'addedAt' | 'rating' | 'releaseDate' | 'runtime' | 'title' | 'plays';

/** Narrowing a movie list down; every one given must hold. The API offers search and releaseYear. */
export interface MovieListFilter {
  search?: string | undefined;
  releaseYear?: number | undefined;
  /** Released in this decade: 1990 for 1990-1999. */
  decade?: number | undefined;
  /** TMDB genre id. */
  genreId?: number | undefined;
  /** The movie's original language, an ISO 639-1 code. */
  language?: string | undefined;
  /** The list owner's rating is at least this (1-10). */
  minRating?: number | undefined;
  /** Someone (cinelog's person id) is in the cast, or directed or wrote it. */
  personId?: number | undefined;
}

export interface MovieListQuery extends MovieListFilter {
  sortBy: MovieListSortBy;
  sortOrder: SortOrder;
}

export type OrderTerm = readonly [Expression<unknown>, SortOrder];

// The list queries select the movie as `m` and the list owner's rating (left-joined) as `r`.

/** Conditions for the query's filters. */
export function movieListFilters(query: MovieListFilter): Expression<SqlBool>[] {
  const filters: Expression<SqlBool>[] = [];
  if (query.search) {
    const search = query.search;
    filters.push(
      sql<SqlBool>`(${containsText('m.title', search)} or ${containsText('m.original_title', search)})`,
    );
  }
  if (query.releaseYear !== undefined) {
    filters.push(sql<SqlBool>`${sql.ref('m.release_date')} like ${`${query.releaseYear}-%`}`);
  }
  if (query.decade !== undefined) {
    filters.push(
      sql<SqlBool>`${sql.ref('m.release_date')} >= ${`${query.decade}-01-01`} and ${sql.ref('m.release_date')} < ${`${query.decade + 10}-01-01`}`,
    );
  }
  if (query.genreId !== undefined) {
    filters.push(
      sql<SqlBool>`exists (select 1 from movie_genres mg join genres g on g.id = mg.genre_id where mg.movie_id = ${sql.ref('m.id')} and g.tmdb_id = ${query.genreId})`,
    );
  }
  if (query.language !== undefined) {
    filters.push(sql<SqlBool>`${sql.ref('m.original_language')} = ${query.language}`);
  }
  if (query.minRating !== undefined) {
    filters.push(sql<SqlBool>`${sql.ref('r.rating')} >= ${query.minRating}`);
  }
  if (query.personId !== undefined) {
    filters.push(
      sql<SqlBool>`(exists (select 1 from movie_cast mc where mc.movie_id = ${sql.ref('m.id')} and mc.person_id = ${query.personId}) or exists (select 1 from movie_crew mw where mw.movie_id = ${sql.ref('m.id')} and mw.person_id = ${query.personId}))`,
    );
  }
  return filters;
}

/**
 * ORDER BY terms for the query's sort: a missing value (no rating, release date, runtime or date)
 * sorts last in both directions, ties fall back to the title (A-Z), then the movie id.
 * `addedAt` is the list's own date key, followed by any tie-breakers of its own (sorted the same way).
 */
export function movieListOrder(
  query: MovieListQuery,
  addedAt: readonly Expression<unknown>[],
  plays: readonly Expression<unknown>[] = [],
): OrderTerm[] {
  const title = sql`lower(${sql.ref('m.title')})`;
  const keys: Record<MovieListSortBy, readonly Expression<unknown>[]> = {
    addedAt,
    rating: [sql.ref('r.rating')],
    releaseDate: [sql.ref('m.release_date')],
    runtime: [sql.ref('m.runtime')],
    title: [title],
    plays,
  };
  const [key, ...ownTieBreakers] = keys[query.sortBy];
  if (!key) throw new Error(`no sort key for ${query.sortBy}`);
  const terms: OrderTerm[] = [
    // Portable NULLS LAST: SQLite sorts NULL first ascending, PostgreSQL last.
    [sql`case when ${key} is null then 1 else 0 end`, 'asc'],
    [key, query.sortOrder],
    ...ownTieBreakers.map((term): OrderTerm => [term, query.sortOrder]),
  ];
  if (query.sortBy === 'title') terms.push([sql.ref('m.id'), query.sortOrder]);
  else terms.push([title, 'asc'], [sql.ref('m.id'), 'asc']);
  return terms;
}
