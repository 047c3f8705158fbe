import type { MovieSearchPage } from '../../movies/movies.service.js';
import type { RatingScale } from '../../users/users.service.js';
import { formatDay, movieHref, ratingLabel, yearOf } from '../shell/format.js';
import type { MovieCard } from '../shell/view-models.js';

// The search page: TMDB's results as cards, each with "Log a play" and "Add to watchlist". Pure: the
// movies service's answer in, the template's data out.

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
 * `/search`: the results (none before a search, or when TMDB refused: `error` says why), pages of
 * them, and what "Log a play" will fill in. Posters are TMDB's own (`tmdbImageBase`): most results are
 * not stored, so the image cache has none of them.
 */
export function searchPage(
  scale: RatingScale,
  values: SearchValues,
  found: MovieSearchPage | null,
  error: string | null,
  tmdbImageBase: string,
) {
  const { q, page, prefill } = values;
  const pages = found?.maxPage ?? 0;
  return {
    title: q ? `Search: ${q}` : 'Search movies',
    q,
    page,
    results: (found?.results ?? []).map((result) => resultCard(result, tmdbImageBase, values.here, prefill)),
    pages,
    error,
    prefill,
    prefillText: prefillText(prefill, scale),
    previous: page > 1 ? `/search?${new URLSearchParams({ q, page: String(page - 1), ...prefill })}` : null,
    next: page < pages ? `/search?${new URLSearchParams({ q, page: String(page + 1), ...prefill })}` : null,
  };
}

/** A TMDB search result as a card: its page when stored, else the log form; watched/watchlist marks. */
function resultCard(
  result: SearchResult,
  tmdbImageBase: string,
  here: string,
  prefill: Record<string, string>,
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
  };
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
