import type { Movie } from '../../movies/movies.schemas.js';
import type { RatingScale } from '../../users/users.service.js';
import { movieHref, ratingLabel, yearOf } from './format.js';

/**
 * An image URL as a page uses it: the image cache's own absolute URLs (built on APP_URL, for API
 * clients) become relative, so a page loads them from whatever address the browser used.
 */
export const pageImageUrl = (url: string | null): string | null =>
  url === null ? null : url.replace(/^https?:\/\/[^/]+(?=\/images\/)/, '');

/** What `_stars` shows: a 1–10 rating in the user's scale. */
export interface RatingView {
  value: number;
  scale: RatingScale;
  /** "3½ stars", "7/10": the text shown and read out. */
  label: string;
}

export const ratingView = (value: number, scale: RatingScale): RatingView => ({
  value,
  scale,
  label: ratingLabel(value, scale),
});

/** What `_poster-card` shows: one movie in a grid or a list. */
export interface MovieCard {
  id: number;
  href: string;
  title: string;
  year: string;
  posterUrl: string | null;
  /** One short line under the title ("Watched 21 Nov 2026", "3 plays"); '' for none. */
  meta: string;
  rating: RatingView | null;
  /**
   * Whether the user likes the movie: the card's heart (a toggle form); absent, no heart (a public page,
   * a search result not stored).
   */
  liked?: boolean;
}

export function movieCard(
  movie: Movie,
  options: {
    scale: RatingScale;
    meta?: string;
    rating?: number | null;
    /** The movies the user likes among those shown (one query a page), or true: all of them. */
    liked?: ReadonlySet<number> | true;
  },
): MovieCard {
  const rating = options.rating === undefined ? movie.userRating : options.rating;
  const { liked } = options;
  return {
    ...(liked !== undefined && { liked: liked === true || liked.has(movie.ids.service) }),
    id: movie.ids.service,
    href: movieHref(movie.ids.service, movie.title),
    title: movie.title,
    year: yearOf(movie.releaseDate),
    posterUrl: pageImageUrl(movie.posterPath),
    meta: options.meta ?? '',
    rating: rating === null ? null : ratingView(rating, options.scale),
  };
}

/** What `_pagination` shows: links to the previous and next pages, keeping the other query values. */
export interface PaginationView {
  page: number;
  pages: number;
  previous: string | null;
  next: string | null;
}

export function paginationView(
  path: string,
  query: Record<string, string | number | undefined>,
  page: number,
  pages: number,
): PaginationView {
  const hrefOf = (target: number) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== '' && key !== 'page') params.set(key, String(value));
    }
    if (target > 1) params.set('page', String(target));
    const search = params.toString();
    return search === '' ? path : `${path}?${search}`;
  };
  return {
    page,
    pages,
    previous: page > 1 ? hrefOf(page - 1) : null,
    next: page < pages ? hrefOf(page + 1) : null,
  };
}
