import type { ListSummary } from '../../library/library.service.js';
import type { MovieSearchPage, PersonMatch } from '../../movies/movies.service.js';
import type { RatingScale } from '../../users/users.service.js';
import { formatDay, movieHref, personHref, ratingLabel, yearOf } from '../shell/format.js';
import { type MovieCard, pageImageUrl } from '../shell/view-models.js';

// The search page: the people found, and TMDB's results as cards, each with "Log a play", "Add to
// watchlist" and "Add to a list". Pure: the services' answers in, the template's data out.

/** How many people a search shows, above the movies. */
export const PEOPLE_SHOWN = 8;

/** What the search found in cinelog itself, beside TMDB's movies. */
export interface SearchLocal {
  /** Stored people whose name matches. */
  people: readonly PersonMatch[];
  /** The directors of the stored results, by service id. */
  directors: ReadonlyMap<number, readonly string[]>;
  /** The stored results the user likes. */
  liked: ReadonlySet<number>;
  /** The user's lists, for "Add to a list". */
  lists: readonly ListSummary[];
}

const NOTHING_LOCAL: SearchLocal = { people: [], directors: new Map(), liked: new Set(), lists: [] };

type SearchResult = MovieSearchPage['results'][number];

/** What the search was asked: the words, the page, the log form's prefill to hand on, this address. */
export interface SearchValues {
  q: string;
  page: number;
  prefill: Record<string, string>;
  /** This page's address, where "Add to watchlist" comes back to. */
  here: string;
}

/**
 * `/search`: the people found (`local.people`, pictures from the image cache under `imageBaseUrl`), the
 * results (none before a search, or when TMDB refused: `error` says why), pages of them, and what "Log
 * a play" will fill in. Posters are TMDB's own (`tmdbImageBase`): most results are not stored, so the
 * image cache has none of them. Each result names its original title when it differs, and a stored
 * one its director (TMDB's search gives no credits) and a heart.
 */
export function searchPage(
  scale: RatingScale,
  values: SearchValues,
  found: MovieSearchPage | null,
  error: string | null,
  tmdbImageBase: string,
  local: SearchLocal = NOTHING_LOCAL,
  imageBaseUrl = tmdbImageBase,
) {
  const { q, page, prefill } = values;
  const pages = found?.maxPage ?? 0;
  return {
    title: q ? `Search: ${q}` : 'Search movies',
    q,
    page,
    people: local.people.map((person) => ({
      href: personHref(person.id, person.name),
      name: person.name,
      department: person.knownForDepartment,
      picture: person.profilePath ? pageImageUrl(`${imageBaseUrl}/w185${person.profilePath}`) : null,
    })),
    lists: local.lists.map((list) => ({ id: list.id, name: list.name })),
    results: (found?.results ?? []).map((result) =>
      resultCard(result, tmdbImageBase, values.here, prefill, local),
    ),
    pages,
    error,
    prefill,
    prefillText: prefillText(prefill, scale),
    previous: page > 1 ? `/search?${new URLSearchParams({ q, page: String(page - 1), ...prefill })}` : null,
    next: page < pages ? `/search?${new URLSearchParams({ q, page: String(page + 1), ...prefill })}` : null,
  };
}

/**
 * A TMDB search result as a card: its page when stored, else the log form; watched/watchlist marks,
 * the director (stored movies) and the original title when it differs, so remakes are told apart.
 */
function resultCard(
  result: SearchResult,
  tmdbImageBase: string,
  here: string,
  prefill: Record<string, string>,
  local: SearchLocal,
) {
  const year = yearOf(result.releaseDate);
  const logHref = `/log?${new URLSearchParams({ tmdbId: String(result.ids.provider), title: result.title, year, ...prefill })}`;
  const stored = result.ids.service;
  const posterUrl = result.providerPosterPath ? `${tmdbImageBase}/w342${result.providerPosterPath}` : null;
  const card: MovieCard = {
    id: stored ?? result.ids.provider,
    href: stored ? movieHref(stored, result.title) : logHref,
    title: result.title,
    year,
    posterUrl,
    meta: [result.isWatched ? 'Watched' : '', result.isOnWatchlist ? 'On your watchlist' : '']
      .filter(Boolean)
      .join(' · '),
    rating: null,
    ...(stored !== null && { liked: local.liked.has(stored) }),
  };
  const directors = stored === null ? [] : (local.directors.get(stored) ?? []);
  return {
    card,
    tmdbId: result.ids.provider,
    movieId: stored,
    title: result.title,
    logHref: stored
      ? `/log?${new URLSearchParams({ movieId: String(stored), title: result.title, year, ...prefill })}`
      : logHref,
    onWatchlist: result.isOnWatchlist,
    next: here,
    directedBy: directors.length > 0 ? `Directed by ${directors.slice(0, 2).join(', ')}` : null,
    originalTitle:
      result.originalTitle && result.originalTitle !== result.title ? result.originalTitle : null,
    /** "Add to a list": the stored movie, or TMDB's (stored when added). */
    listFields: stored
      ? { movieId: String(stored), next: here }
      : { tmdbId: String(result.ids.provider), next: here },
  };
}

/** What "Log a play" will fill in, in words: "1 Jan 2024, rated 8/10". */
function prefillText(prefill: Record<string, string>, scale: RatingScale): string | null {
  const parts = [
    prefill.date ? formatDay(prefill.date) : prefill.unknownDate ? 'an unknown date' : '',
    prefill.rating ? `rated ${ratingLabel(Number(prefill.rating), scale)}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : null;
}
