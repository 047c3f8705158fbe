import type { Kysely } from 'kysely';
import { GenerationCache } from '../../db/generation.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import {
  type TmdbClient,
  TmdbError,
  type TmdbMovie,
  type TmdbSearchResult,
} from '../../integrations/tmdb/tmdb.types.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, badRequest } from '../../shared/errors.js';
import type { Library } from '../library/library.service.js';
import { MAX_SEARCH_PAGE, type MovieSearchResult } from './movies.provider.schemas.js';
import {
  movieIdByImdbId,
  movieIdsByTmdbId,
  type ProviderMovie,
  upsertProviderMovie,
} from './movies.repository.js';

export interface MovieSearch {
  search: string;
  page: number;
  releaseYear?: number | undefined;
}

export interface MovieSearchPage {
  results: MovieSearchResult[];
  currentPage: number;
  maxPage: number;
}

export interface MoviesService {
  /** Fetches the movie from TMDB and stores it, or refreshes the stored one; returns its service id. */
  addFromProvider(tmdbId: number): Promise<number>;
  /** The stored movie with this TMDB id, else fetched from TMDB and stored; its service id. */
  findOrAdd(tmdbId: number): Promise<number>;
  /** The stored movie with this IMDb id, else the one TMDB links to it (stored); null when none. */
  findOrAddByImdbId(imdbId: string): Promise<number | null>;
  /** One page of TMDB's search, marked with what `userId` already has of each movie. */
  search(userId: number, query: MovieSearch): Promise<MovieSearchPage>;
}

export function createMoviesService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  /** null when TMDB_API_KEY is not set. */
  tmdb: TmdbClient | null;
  /** Which search results the user has watched or put on their watchlist (the library's marks). */
  marks: Library['marks'];
}): MoviesService {
  const { db, clock, tmdb } = deps;
  // Scrobbles look their movie up by TMDB id on every report.
  const idByTmdbId = new GenerationCache<number, number | undefined>(db, ['movies']);

  /** Runs a TMDB call; any way TMDB fails becomes a 503, never a 500. */
  const withProvider = async <T>(call: (client: TmdbClient) => Promise<T>): Promise<T> => {
    if (!tmdb) {
      throw new AppError(
        503,
        'ProviderNotConfigured',
        'TMDB_API_KEY is not set: movie search and add need a TMDB API key (v3 key or v4 read-access token)',
      );
    }
    try {
      return await call(tmdb);
    } catch (error) {
      if (error instanceof TmdbError) throw providerUnavailable(error);
      throw error;
    }
  };

  const service: MoviesService = {
    async findOrAdd(tmdbId) {
      const stored = await idByTmdbId.get(tmdbId, async () =>
        (await movieIdsByTmdbId(db, [tmdbId])).get(tmdbId),
      );
      return stored ?? service.addFromProvider(tmdbId);
    },

    async findOrAddByImdbId(imdbId) {
      const stored = await movieIdByImdbId(db, imdbId);
      if (stored !== undefined) return stored;
      const [found] = await withProvider((client) => client.findByImdbId(imdbId));
      return found ? service.findOrAdd(found.id) : null;
    },

    async addFromProvider(tmdbId) {
      // Fetched before the transaction: no database transaction waits on the network.
      const movie = await withProvider((client) => client.getMovie(tmdbId));
      if (!movie) throw badRequest('ProviderIdNotFound', `TMDB has no movie with id ${tmdbId}`);
      const now = clock.now().toISOString();
      return inTransaction(db, (trx) =>
        upsertProviderMovie(
          trx,
          toProviderMovie(movie),
          movie.genres.map((genre) => ({ tmdbId: genre.id, name: genre.name })),
          now,
        ),
      );
    },

    async search(userId, { search, page, releaseYear }) {
      const found = await withProvider((client) =>
        client.searchMovies({ query: search.trim(), page, year: releaseYear }),
      );
      const serviceIds = await movieIdsByTmdbId(
        db,
        found.results.map((r) => r.id),
      );
      const stored = [...serviceIds.values()];
      const { watched, watchlisted } = await deps.marks(userId, stored);
      const results = found.results.map((result) => {
        const serviceId = serviceIds.get(result.id) ?? null;
        return toSearchResult(result, {
          serviceId,
          isWatched: serviceId !== null && watched.has(serviceId),
          isOnWatchlist: serviceId !== null && watchlisted.has(serviceId),
        });
      });
      // TMDB reports one page for no results; the API's rule is 0 pages for an empty list.
      const empty = results.length === 0 && found.total_results === 0;
      return {
        results,
        currentPage: page,
        maxPage: empty ? 0 : Math.min(found.total_pages, MAX_SEARCH_PAGE),
      };
    },
  };
  return service;
}

function providerUnavailable(error: TmdbError): AppError {
  const message =
    error.status === 401
      ? `TMDB refused the configured TMDB_API_KEY (${error.message})`
      : `TMDB is unavailable: ${error.message}`;
  return new AppError(503, 'ProviderUnavailable', message);
}

function toProviderMovie(movie: TmdbMovie): ProviderMovie {
  return {
    tmdb_id: movie.id,
    title: movie.title,
    original_title: movie.original_title,
    release_date: movie.release_date,
    tagline: movie.tagline,
    overview: movie.overview,
    original_language: movie.original_language,
    runtime: movie.runtime,
    poster_path: movie.poster_path,
    imdb_id: movie.imdb_id,
    tmdb_vote_average: movie.vote_average,
    tmdb_vote_count: movie.vote_count,
  };
}

function toSearchResult(
  result: TmdbSearchResult,
  local: { serviceId: number | null; isWatched: boolean; isOnWatchlist: boolean },
): MovieSearchResult {
  return {
    title: result.title,
    originalTitle: result.original_title ?? result.title,
    releaseDate: result.release_date,
    overview: result.overview,
    originalLanguage: result.original_language,
    providerPosterPath: result.poster_path,
    ids: { service: local.serviceId, provider: result.id },
    isWatched: local.isWatched,
    isOnWatchlist: local.isOnWatchlist,
  };
}
