import { type Static, Type } from 'typebox';
import { CalendarDate, ErrorBody, errorResponses, Nullable, ReleaseYearQuery } from '../../shared/schemas.js';

/** TMDB serves search pages 1 to 500 only. */
export const MAX_SEARCH_PAGE = 500;

export const AddMovieBody = Type.Object({
  providerId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'TMDB id of the movie' }),
});

export const AddMovieResponse = Type.Object({
  serviceId: Type.Integer({ description: "this service's id of the added (or refreshed) movie" }),
});

export const MovieSearchQuery = Type.Object({
  search: Type.String({
    minLength: 1,
    maxLength: 200,
    // At least one non-blank character (TMDB refuses an empty query).
    pattern: '\\S',
    description: 'search term, sent to TMDB',
  }),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_SEARCH_PAGE, default: 1, description: 'result page, 1 to 500' }),
  ),
  releaseYear: ReleaseYearQuery,
});

export const MovieSearchResult = Type.Object({
  title: Type.String(),
  originalTitle: Type.String({ description: 'the title when TMDB gives no original title' }),
  releaseDate: Nullable(CalendarDate),
  overview: Nullable(Type.String()),
  originalLanguage: Nullable(Type.String({ description: 'language code; null only if TMDB omits it' })),
  providerPosterPath: Nullable(Type.String({ description: "TMDB's raw poster path, e.g. /abc.jpg" })),
  ids: Type.Object({
    service: Nullable(Type.Integer({ description: "this service's id, when the movie is stored here" })),
    provider: Type.Integer({ description: 'TMDB id' }),
  }),
  isWatched: Type.Boolean({ description: 'the caller has at least one play of the movie' }),
  isOnWatchlist: Type.Boolean({ description: "the movie is on the caller's watchlist" }),
});
export type MovieSearchResult = Static<typeof MovieSearchResult>;

export const MovieSearchPage = Type.Object({
  results: Type.Array(MovieSearchResult),
  currentPage: Type.Integer({ description: 'the page asked for' }),
  maxPage: Type.Integer({ description: "TMDB's page count (at most 500); 0 when nothing matched" }),
});

export const providerResponses = {
  ...errorResponses,
  503: {
    ...ErrorBody,
    description:
      'TMDB_API_KEY is not set (ProviderNotConfigured), or TMDB is unreachable or refused the key (ProviderUnavailable)',
  },
} as const;
