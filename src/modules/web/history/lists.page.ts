import type { Page } from '../../../shared/pagination.js';
import type { ListFacets, RatingEntry, WatchlistEntry } from '../../library/library.service.js';
import type { RatingScale } from '../../users/users.service.js';
import { formatDay } from '../shell/format.js';
import { movieCard, paginationView } from '../shell/view-models.js';

// The watchlist and the ratings pages, from the library's lists. Pure: domain objects in, the
// templates' data out.

const WATCHLIST_SORTS = [
  { value: 'addedAt', label: 'Date added' },
  { value: 'title', label: 'Title' },
  { value: 'releaseDate', label: 'Release date' },
  { value: 'runtime', label: 'Runtime' },
];
const RATINGS_SORTS = [
  { value: 'ratedAt', label: 'Date rated' },
  { value: 'rating', label: 'Rating' },
  { value: 'title', label: 'Title' },
  { value: 'releaseDate', label: 'Release date' },
];

/** What the watchlist page was asked for, as the address gave it ('' for a filter not set). */
export interface WatchlistValues {
  q: string;
  sort: string;
  order: string;
  genre: string;
  decade: string;
  language: string;
  page: number;
  /** Any filter narrows the list (an empty list then says so, rather than "nothing on it yet"). */
  filtered: boolean;
  /** This page's address, where "Watched it" comes back to. */
  next: string;
  /** The user's today (`YYYY-MM-DD`): "Watched it" asks for the day, this one unless changed. */
  today: string;
}

/**
 * `/watchlist`: the cards with "Watched it", the filters the watchlist's movies offer, the pages; each
 * card with its heart (`liked`: the page's movies the user likes).
 */
export function watchlistPage(
  scale: RatingScale,
  values: WatchlistValues,
  list: Page<WatchlistEntry>,
  facets: ListFacets,
  liked: ReadonlySet<number> = new Set(),
) {
  const { q, sort, order, genre, decade, language, page } = values;
  return {
    title: 'Watchlist',
    q,
    sort,
    order,
    sorts: WATCHLIST_SORTS,
    facets,
    values: { genre, decade, language },
    filtered: values.filtered,
    cards: list.items.map((entry) => ({
      card: movieCard(entry.movie, { scale, meta: `Added ${formatDay(entry.addedAt)}`, rating: null, liked }),
      title: entry.movie.title,
    })),
    pagination: paginationView('/watchlist', { q, sort, order, genre, decade, language }, page, list.maxPage),
    next: values.next,
    today: values.today,
  };
}

/** `/ratings`: the rated movies in the user's scale, searched and sorted, in pages, with their hearts. */
export function ratingsPage(
  scale: RatingScale,
  values: { q: string; sort: string; order: string; page: number },
  list: Page<RatingEntry>,
  liked: ReadonlySet<number> = new Set(),
) {
  const { q, sort, order, page } = values;
  return {
    title: 'Ratings',
    q,
    sort,
    order,
    sorts: RATINGS_SORTS,
    cards: list.items.map((entry) =>
      movieCard(entry.movie, {
        scale,
        meta: `Rated ${formatDay(entry.ratedAt)}`,
        rating: entry.rating,
        liked,
      }),
    ),
    pagination: paginationView('/ratings', { q, sort, order }, page, list.maxPage),
  };
}
