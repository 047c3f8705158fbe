import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import {
  type TmdbClient,
  TmdbError,
  type TmdbMovie,
  type TmdbSearchResult,
} from '../../integrations/tmdb/tmdb.types.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, badRequest, notFound } from '../../shared/errors.js';
import type { CatalogChanges, MovieMarksOf } from './catalog-changes.js';
import { type MovieDetails, type PersonDetails, readMovieDetails, readPerson } from './movie-details.js';
import { replaceMovieDetails, upsertCollection } from './movie-details.repository.js';
import { MAX_SEARCH_PAGE, type MovieSearchResult } from './movies.provider.schemas.js';
import {
  findMovieTmdbId,
  keptMovieIdsByTmdbId,
  markDetailsFetched,
  movieIdByImdbId,
  movieIdsByTitleAndYear,
  movieIdsByTmdbId,
  type ProviderMovieRow,
  updateProviderMovie,
  upsertProviderMovie,
} from './movies.repository.js';
import { directorsOf, findPerson, keptPeople, searchPeople } from './people.repository.js';
import { fromProvider } from './provider-movie.js';

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

/**
 * What a refresh did: `refreshed`; `not-found` (TMDB no longer knows the movie: it stays as it was,
 * only its `details_fetched_at` moves, so it is not asked again before the next period);
 * `no-provider-id` (a movie without a TMDB id: nothing to ask).
 */
export type RefreshOutcome = 'refreshed' | 'not-found' | 'no-provider-id';

export interface MoviesService {
  /**
   * Fetches the movie with its credits from TMDB and stores it, or refreshes the stored one; returns
   * its service id.
   */
  addFromProvider(tmdbId: number): Promise<number>;
  /**
   * Fetches the stored movie `movieId` from TMDB again and replaces its data, cast and crew. Its
   * serviceId, plays and ratings never change; `updated_at` moves. Throws a 404 `MovieNotFound`
   * for an unknown id and a 503 when TMDB is not configured or fails (worth retrying later).
   */
  refresh(movieId: number): Promise<RefreshOutcome>;
  /** The movie with everything stored of it; null when no such movie. */
  movieDetails(movieId: number): Promise<MovieDetails | null>;
  /** The person and their credits among the stored movies; null when no such person. */
  person(personId: number): Promise<PersonDetails | null>;
  /** The person's name alone (the movies grid's person filter); null when no such person. */
  personName(personId: number): Promise<{ id: number; name: string } | null>;
  /** The stored movie with this TMDB id, else fetched from TMDB and stored; its service id. */
  findOrAdd(tmdbId: number): Promise<number>;
  /** The stored movie with this IMDb id, else the one TMDB links to it (stored); null when none. */
  findOrAddByImdbId(imdbId: string): Promise<number | null>;
  /** One page of TMDB's search, marked with what `userId` already has of each movie. */
  search(userId: number, query: MovieSearch): Promise<MovieSearchPage>;
  /**
   * The stored movie with this TMDB id, else with this IMDb id, without asking TMDB; undefined when
   * none is stored.
   */
  findStored(ids: StoredMovieIds): Promise<number | undefined>;
  /** The one stored movie with this title (or original title, any case) from `year`; undefined otherwise. */
  findStoredByTitle(title: string, year: number): Promise<number | undefined>;
  /** Whether TMDB knows a movie with this id (a dry run's check; nothing is stored). */
  providerHasMovie(tmdbId: number): Promise<boolean>;
  /** The TMDB id TMDB links to an IMDb id, without storing the movie; null when none. */
  providerIdOfImdbId(imdbId: string): Promise<number | null>;

  // ---- moviesearch (issue 30: search finds people; results name their director) ----
  /**
   * The people cinelog stores (the cast and crew of its movies) whose name holds `term`, any case:
   * those whose name starts with it first, then by name; at most `limit`. TMDB is not asked.
   */
  searchPeople(term: string, limit: number): Promise<PersonMatch[]>;
  /** The directors' names of these stored movies, by movie id, in crew order (one query). */
  directorsOf(movieIds: readonly number[]): Promise<Map<number, string[]>>;
}

/** A stored person a search found. */
export interface PersonMatch {
  id: number;
  name: string;
  /** TMDB's path of their picture; null: none. */
  profilePath: string | null;
  knownForDepartment: string | null;
}

export interface StoredMovieIds {
  tmdbId?: number | undefined;
  imdbId?: string | undefined;
}

export function createMoviesService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  /** null when TMDB_API_KEY is not set. */
  tmdb: TmdbClient | null;
  /** Which search results the user has watched or put on their watchlist (the library's marks). */
  marks: MovieMarksOf;
  /** What follows a change of a stored movie's data in its transaction (the users' statistics). */
  catalog: CatalogChanges;
}): MoviesService {
  const { db, clock, tmdb } = deps;
  // Scrobbles look their movie up by TMDB id on every report.
  const idByTmdbId = keptMovieIdsByTmdbId<number | undefined>(db);
  // The person a /movies filter names, on every view of the filtered page (a query a view cost 40 µs).
  const personNames = keptPeople<{ id: number; name: string } | null>(db);

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

  /**
   * Stores everything of a TMDB movie in one transaction; `storedId` finds the movie if it is stored
   * already, `writeRow` writes its own row and answers its service id (undefined: the row to refresh
   * is gone, and nothing is stored). What the movie counts for in its users' statistics (its genres,
   * credits, runtime...) follows in the same transaction.
   */
  const store = async <Id extends number | undefined>(
    movie: TmdbMovie,
    storedId: (trx: Kysely<Database>) => Promise<number | undefined>,
    writeRow: (trx: Kysely<Database>, row: ProviderMovieRow, now: string) => Promise<Id>,
  ): Promise<Id> => {
    const data = fromProvider(movie);
    const now = clock.now().toISOString();
    for (let attempt = 1; ; attempt++) {
      const stored = await inTransaction(db, async (trx) => {
        // The movie's row first (held on PostgreSQL), then the collection, then what links to the
        // movie, then its users' statistics: every writer locks in this order.
        const existing = await storedId(trx);
        const before = existing === undefined ? null : await deps.catalog.before(trx, existing);
        const collectionId = data.collection ? await upsertCollection(trx, data.collection) : null;
        const id = await writeRow(trx, { ...data.movie, collection_id: collectionId }, now);
        if (id === undefined) return { id };
        await replaceMovieDetails(trx, id, data, now);
        // False: an add found no movie, but a concurrent one stored it and somebody counted it since.
        if (!(await deps.catalog.after(trx, id, before))) throw new StoredMeanwhile();
        return { id };
      }).catch((error: unknown) => {
        if (error instanceof StoredMeanwhile && attempt < 3) return null;
        throw error;
      });
      if (stored !== null) return stored.id;
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
      return store(
        movie,
        async (trx) => (await movieIdsByTmdbId(trx, [movie.id])).get(movie.id),
        upsertProviderMovie,
      );
    },

    async refresh(movieId) {
      const tmdbId = await findMovieTmdbId(db, movieId);
      if (tmdbId === undefined) throw notFound('MovieNotFound', `no movie with serviceId ${movieId}`);
      if (tmdbId === null) return 'no-provider-id';
      const movie = await withProvider((client) => client.getMovie(tmdbId));
      if (!movie) {
        await markDetailsFetched(db, movieId, clock.now().toISOString());
        return 'not-found';
      }
      // By service id: the stored TMDB id stays, whatever id TMDB answered with.
      const refreshed = await store(
        movie,
        async () => movieId,
        async (trx, row, now) => ((await updateProviderMovie(trx, movieId, row, now)) ? movieId : undefined),
      );
      if (refreshed === undefined) throw notFound('MovieNotFound', `no movie with serviceId ${movieId}`);
      return 'refreshed';
    },

    movieDetails: (movieId) => readMovieDetails(db, movieId),

    async findStored({ tmdbId, imdbId }) {
      if (tmdbId !== undefined) {
        const id = (await movieIdsByTmdbId(db, [tmdbId])).get(tmdbId);
        if (id !== undefined) return id;
      }
      if (imdbId !== undefined) return movieIdByImdbId(db, imdbId);
      return undefined;
    },

    async findStoredByTitle(title, year) {
      const ids = await movieIdsByTitleAndYear(db, title, year);
      return ids.length === 1 ? ids[0] : undefined;
    },

    async providerHasMovie(tmdbId) {
      return (await withProvider((client) => client.getMovie(tmdbId))) !== null;
    },

    async providerIdOfImdbId(imdbId) {
      const [found] = await withProvider((client) => client.findByImdbId(imdbId));
      return found?.id ?? null;
    },

    person: (personId) => readPerson(db, personId),

    personName: (personId) =>
      personNames.get(personId, async () => {
        const person = await findPerson(db, personId);
        return person ? { id: person.id, name: person.name } : null;
      }),

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

    // ---- moviesearch (issue 30: search finds people; results name their director) ----
    async searchPeople(term, limit) {
      const rows = await searchPeople(db, term.trim(), limit);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        profilePath: row.profile_path,
        knownForDepartment: row.known_for_department,
      }));
    },

    directorsOf: (movieIds) => directorsOf(db, movieIds),
  };
  return service;
}

/** A concurrent add stored the movie this add found missing: the add starts again, as a refresh. */
class StoredMeanwhile extends Error {}

function providerUnavailable(error: TmdbError): AppError {
  const message =
    error.status === 401
      ? `TMDB refused the configured TMDB_API_KEY (${error.message})`
      : `TMDB is unavailable: ${error.message}`;
  return new AppError(503, 'ProviderUnavailable', message);
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
