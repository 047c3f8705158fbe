import { AppError } from '../../shared/errors.js';
import { createLimiter } from '../../shared/limiter.js';
import type { MoviesService } from '../movies/movies.service.js';
import type { MovieRef } from './import.types.js';

/** A match that is not certain (no id, no exact title and year): listed for the user to review. */
export interface MatchGuess {
  why: 'year ±1' | 'title only';
  /** The movie it was matched to, as TMDB names it. */
  title: string;
  year: number | null;
}

/**
 * A row's movie: a stored one, or (a dry run, which stores nothing) one TMDB knows but cinelog not yet.
 * `by`: how it was found; a row's Trakt id or Letterboxd slug is kept for the user only when its movie
 * was found by an id or by its exact title and year, never by a guess.
 */
export type MovieMatch = ({ movieId: number } | { tmdbId: number }) & {
  by: 'id' | 'own id' | 'title' | 'guess';
  guess?: MatchGuess;
};

/** TMDB lookups an import runs at once (the TMDB client has its own cap and retries on 429). */
const CONCURRENCY = 8;

/**
 * Finds the movies of an import's rows. It asks before it guesses, and never lets one user's file
 * decide another's movie:
 * 1. an id in the file: the TMDB id (stored, else asked at TMDB: an explicit TMDB id wins over every
 *    other id), then the IMDb id (stored, else TMDB's /find), then a Trakt id or Letterboxd slug that
 *    the user's own earlier import gave a movie;
 * 2. the exact title and year, in the catalogue or at TMDB; then the exact original title at TMDB;
 * 3. only when TMDB offers nothing exact: the same title a year before or after (a guess), or, for a
 *    row without a year, the one movie of that exact title (the best one for a `titleOnly` file).
 * Every lookup is made once per import (cached), at most CONCURRENCY at TMDB at a time. `store`: movies
 * found at TMDB are added to the catalogue; a dry run stores nothing and takes the same steps, so it
 * finds the same movies.
 */
export function createMovieMatcher(deps: {
  movies: MoviesService;
  userId: number;
  store: boolean;
  /** The movie the user's own earlier imports gave this Trakt id or Letterboxd slug. */
  ownId: (source: 'trakt' | 'letterboxd', externalId: string) => Promise<number | undefined>;
}) {
  const { movies, userId, store, ownId } = deps;
  const cache = new Map<string, Promise<MovieMatch | null>>();
  const searches = new Map<string, Promise<SearchHit[]>>();
  const limit = createLimiter(CONCURRENCY);

  const search = (title: string, year?: number) => {
    const key = `${title}\u0000${year ?? ''}`;
    let found = searches.get(key);
    if (!found) {
      found = limit(async () => {
        const page = await movies.search(userId, { search: title, page: 1, releaseYear: year });
        return page.results.map((r) => ({
          tmdbId: r.ids.provider,
          serviceId: r.ids.service,
          title: r.title,
          originalTitle: r.originalTitle,
          year: r.releaseDate ? Number(r.releaseDate.slice(0, 4)) : null,
        }));
      });
      searches.set(key, found);
    }
    return found;
  };

  /** The movie TMDB has under this id, stored (a dry run: known); null when TMDB has none. */
  const byTmdbId = async (
    tmdbId: number,
    by: MovieMatch['by'],
    guess?: MatchGuess,
  ): Promise<MovieMatch | null> => {
    const local = await movies.findStored({ tmdbId });
    if (local !== undefined) return { movieId: local, by, ...(guess && { guess }) };
    if (!store) {
      return (await limit(() => movies.providerHasMovie(tmdbId)))
        ? { tmdbId, by, ...(guess && { guess }) }
        : null;
    }
    try {
      const movieId = await limit(() => movies.findOrAdd(tmdbId));
      return { movieId, by, ...(guess && { guess }) };
    } catch (error) {
      // TMDB has no movie with this id: the row's other ids or its title may still find it.
      if (error instanceof AppError && error.code === 'ProviderIdNotFound') return null;
      throw error;
    }
  };

  const hitMatch = (hit: SearchHit, by: 'title' | 'guess', guess?: MatchGuess) =>
    hit.serviceId !== null
      ? Promise.resolve<MovieMatch>({ movieId: hit.serviceId, by, ...(guess && { guess }) })
      : byTmdbId(hit.tmdbId, by, guess);

  const byTitle = async (ref: MovieRef & { title: string }): Promise<MovieMatch | null> => {
    const wanted = normalTitle(ref.title);
    const same = (hit: SearchHit) =>
      normalTitle(hit.title) === wanted || normalTitle(hit.originalTitle) === wanted;
    const guessOf = (hit: SearchHit, why: MatchGuess['why']): MatchGuess => ({
      why,
      title: hit.title,
      year: hit.year,
    });
    if (ref.year === undefined) {
      const hits = (await search(ref.title)).filter(same);
      const only = ref.titleOnly ? hits[0] : hits.length === 1 ? hits[0] : undefined;
      return only ? hitMatch(only, 'guess', guessOf(only, 'title only')) : null;
    }
    const local = await movies.findStoredByTitle(ref.title, ref.year);
    if (local !== undefined) return { movieId: local, by: 'title' };
    const sameYear = await search(ref.title, ref.year);
    const exact =
      sameYear.find((hit) => normalTitle(hit.title) === wanted) ??
      sameYear.find((hit) => normalTitle(hit.originalTitle) === wanted);
    if (exact) return hitMatch(exact, 'title');
    const near = (await search(ref.title)).find(
      (hit) => hit.year !== null && Math.abs(hit.year - ref.year!) === 1 && same(hit),
    );
    return near ? hitMatch(near, 'guess', guessOf(near, 'year ±1')) : null;
  };

  const find = async (ref: MovieRef): Promise<MovieMatch | null> => {
    if (ref.tmdbId !== undefined) {
      const match = await byTmdbId(ref.tmdbId, 'id');
      if (match) return match;
    }
    if (ref.imdbId !== undefined) {
      const local = await movies.findStored({ imdbId: ref.imdbId });
      if (local !== undefined) return { movieId: local, by: 'id' };
      const tmdbId = await limit(() => movies.providerIdOfImdbId(ref.imdbId!));
      if (tmdbId !== null) {
        const match = await byTmdbId(tmdbId, 'id');
        if (match) return match;
      }
    }
    for (const [source, id] of [
      ['trakt', ref.traktId],
      ['letterboxd', ref.letterboxdId],
    ] as const) {
      if (id === undefined) continue;
      const own = await ownId(source, String(id));
      if (own !== undefined) return { movieId: own, by: 'own id' };
    }
    if (ref.title === undefined) return null;
    return byTitle({ ...ref, title: ref.title });
  };

  return {
    /** The row's movie, or null: nothing matches it. TMDB failures (not configured, down) are thrown. */
    match(ref: MovieRef): Promise<MovieMatch | null> {
      const key = refKey(ref);
      let result = cache.get(key);
      if (!result) {
        result = find(ref);
        cache.set(key, result);
      }
      return result;
    },
  };
}

const keys = new WeakMap<MovieRef, string>();

/** One key per distinct way a row names its movie (kept per object: rows share their movie's). */
export function refKey(ref: MovieRef): string {
  let key = keys.get(ref);
  if (key === undefined) {
    key = JSON.stringify([
      ref.tmdbId,
      ref.imdbId,
      ref.traktId,
      ref.letterboxdId,
      ref.title,
      ref.year,
      ref.titleOnly,
    ]);
    keys.set(ref, key);
  }
  return key;
}

interface SearchHit {
  tmdbId: number;
  serviceId: number | null;
  title: string;
  originalTitle: string;
  year: number | null;
}

/**
 * Titles compared as people read them: case, curly quotes and runs of spaces do not matter. The quotes
 * go first: NFKC turns the acute accent used as an apostrophe (\u00b4) into a space and a combining accent.
 */
export const normalTitle = (title: string) =>
  title
    .replace(/[\u2019\u2018`\u00b4]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
