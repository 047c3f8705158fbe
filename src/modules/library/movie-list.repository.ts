import { type Expression, type SqlBool, sql } from 'kysely';
import { containsText } from '../../db/sql.js';
import type { SortOrder } from '../../shared/schemas.js';

/** What the movie lists (watchlist, played) are sorted by. */
export type MovieListSortBy = 'addedAt' | 'rating' | 'releaseDate' | 'runtime' | 'title';

export interface MovieListQuery {
  search?: string | undefined;
  releaseYear?: number | undefined;
  sortBy: MovieListSortBy;
  sortOrder: SortOrder;
}

export type OrderTerm = readonly [Expression<unknown>, SortOrder];

// The list queries select the movie as `m` and the list owner's rating (left-joined) as `r`.

/** Conditions for the query's search term and release year. */
export function movieListFilters(query: MovieListQuery): Expression<SqlBool>[] {
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
  return filters;
}

/**
 * ORDER BY terms for the query's sort: a missing value (no rating, release date, runtime or date)
 * sorts last in both directions, ties fall back to the title (A-Z), then the movie id.
 * `addedAt` is the list's own date key, followed by any tie-breakers of its own (sorted the same way).
 */
export function movieListOrder(query: MovieListQuery, addedAt: readonly Expression<unknown>[]): OrderTerm[] {
  const title = sql`lower(${sql.ref('m.title')})`;
  const keys: Record<MovieListSortBy, readonly Expression<unknown>[]> = {
    addedAt,
    rating: [sql.ref('r.rating')],
    releaseDate: [sql.ref('m.release_date')],
    runtime: [sql.ref('m.runtime')],
    title: [title],
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
