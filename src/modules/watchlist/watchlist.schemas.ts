import { Type } from 'typebox';
import { CalendarDate, PageQuery, ReleaseYearQuery, SearchQuery, SortOrder } from '../../shared/schemas.js';
import { LIST_DEFAULTS } from '../library/library.service.js';
import { Movie, ServiceIdItem } from '../movies/movies.schemas.js';

export const MAX_BATCH = 10_000;

export const MovieListSortBy = Type.Union(
  [
    Type.Literal('addedAt'),
    Type.Literal('rating'),
    Type.Literal('releaseDate'),
    Type.Literal('runtime'),
    Type.Literal('title'),
  ],
  { description: "rating is the list owner's; movies without the value sort last either way" },
);

export const WatchlistQuery = Type.Object({
  search: SearchQuery,
  ...PageQuery,
  sortBy: Type.Optional({ ...MovieListSortBy, default: LIST_DEFAULTS.watchlist.sortBy }),
  sortOrder: Type.Optional({ ...SortOrder, default: LIST_DEFAULTS.watchlist.sortOrder }),
  releaseYear: ReleaseYearQuery,
});

export const WatchlistPage = Type.Object({
  watchlist: Type.Array(
    Type.Object({
      movie: Movie,
      addedAt: { ...CalendarDate, description: "the day it was added, in the list owner's time zone" },
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});

export const WatchlistBody = Type.Array(ServiceIdItem, { maxItems: MAX_BATCH });
