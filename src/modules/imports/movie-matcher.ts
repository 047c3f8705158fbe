import { AppError } from '../../shared/errors.js';
import type { MoviesService } from '../movies/movies.service.js';
import type { MovieRef } from './import.types.js';

/** A row's movie: a stored one, or (a dry run, which stores nothing) one TMDB knows but cinelog not yet. */
export type MovieMatch = { movieId: number } | { tmdbId: number };

/** TMDB lookups an import runs at once (the TMDB client has its own cap and retries on 429). */
const CONCURRENCY = 8;

/**
 * Finds the movies of an import's rows: the local catalogue first (by any id, then by title and year),
 * so a movie already stored costs no TMDB call; then TMDB by id (`tmdbId` directly, `imdbId` through
 * /find), then by title and year through its search: the exact title, then the original title, then
 * the year ±1. Every lookup is made once per import (cached) and at most CONCURRENCY at a time.
 * `store`: movies found at TMDB are added to the catalogue (with the row's Trakt id and Letterboxd
 * slug); a dry run stores nothing.
 */
export function createMovieMatcher(deps: { movies: MoviesService; userId: number; store: boolean }) {
  const { movies, userId, store } = deps;
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

  const byTitle = async (title: string, year: number | undefined): Promise<SearchHit | undefined> => {
    const wanted = normalTitle(title);
    if (year === undefined) {
      const hits = (await search(title)).filter((hit) => normalTitle(hit.title) === wanted);
      return hits.length === 1 ? hits[0] : undefined;
    }
    const sameYear = await search(title, year);
    const exact =
      sameYear.find((hit) => normalTitle(hit.title) === wanted) ??
      sameYear.find((hit) => normalTitle(hit.originalTitle) === wanted);
    if (exact) return exact;
    const near = (await search(title)).filter(
      (hit) =>
        hit.year !== null &&
        Math.abs(hit.year - year) === 1 &&
        (normalTitle(hit.title) === wanted || normalTitle(hit.originalTitle) === wanted),
    );
    return near[0];
  };

  const stored = async (tmdbId: number, ref: MovieRef): Promise<MovieMatch | null> => {
    // A dry run stores nothing, but checks that TMDB knows the id, so the preview counts what the run will.
    if (!store) return (await limit(() => movies.providerHasMovie(tmdbId))) ? { tmdbId } : null;
    try {
      const movieId = await limit(() => movies.findOrAdd(tmdbId));
      await movies.linkExternalIds(movieId, { traktId: ref.traktId, letterboxdId: ref.letterboxdId });
      return { movieId };
    } catch (error) {
      // TMDB has no movie with this id: the row's other ids or its title may still find it.
      if (error instanceof AppError && error.code === 'ProviderIdNotFound') return null;
      throw error;
    }
  };

  const find = async (ref: MovieRef): Promise<MovieMatch | null> => {
    const local = await movies.findStored(ref);
    if (local !== undefined) {
      if (store)
        await movies.linkExternalIds(local, { traktId: ref.traktId, letterboxdId: ref.letterboxdId });
      return { movieId: local };
    }
    if (ref.tmdbId !== undefined) {
      const match = await stored(ref.tmdbId, ref);
      if (match) return match;
    }
    if (ref.imdbId !== undefined) {
      const tmdbId = await limit(() => movies.providerIdOfImdbId(ref.imdbId!));
      if (tmdbId !== null) {
        const match = await stored(tmdbId, ref);
        if (match) return match;
      }
    }
    if (ref.title === undefined) return null;
    if (ref.year !== undefined) {
      // The same order as at TMDB (the year, then ±1), without asking TMDB for a movie stored already.
      let localByTitle: number | undefined;
      for (const year of [ref.year, ref.year - 1, ref.year + 1]) {
        localByTitle ??= await movies.findStoredByTitle(ref.title, year);
      }
      if (localByTitle !== undefined) {
        if (store)
          await movies.linkExternalIds(localByTitle, {
            traktId: ref.traktId,
            letterboxdId: ref.letterboxdId,
          });
        return { movieId: localByTitle };
      }
    }
    const hit = await byTitle(ref.title, ref.year);
    if (!hit) return null;
    if (hit.serviceId !== null && !store) return { movieId: hit.serviceId };
    return stored(hit.tmdbId, ref);
  };

  return {
    /** The row's movie, or null: nothing matches it. TMDB failures (not configured, down) are thrown. */
    match(ref: MovieRef): Promise<MovieMatch | null> {
      const key = JSON.stringify([
        ref.tmdbId,
        ref.imdbId,
        ref.traktId,
        ref.letterboxdId,
        ref.title,
        ref.year,
      ]);
      let result = cache.get(key);
      if (!result) {
        result = find(ref);
        cache.set(key, result);
      }
      return result;
    },
  };
}

interface SearchHit {
  tmdbId: number;
  serviceId: number | null;
  title: string;
  originalTitle: string;
  year: number | null;
}

/** Titles compared as people read them: case, curly quotes and runs of spaces do not matter. */
export const normalTitle = (title: string) =>
  title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();

function createLimiter(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
