import { describe, expect, it } from 'vitest';
import { aMovie, aPage } from '../../../../test/page-fixtures.js';
import { ratingsPage, type WatchlistValues, watchlistPage } from './lists.page.js';

// The watchlist's and the ratings' page builders, called with the library's lists: no database, no HTTP.

const values: WatchlistValues = {
  q: 'night',
  sort: 'title',
  order: 'asc',
  genre: '18',
  decade: '',
  language: 'fr',
  page: 1,
  filtered: true,
  next: '/watchlist?q=night',
  today: '2026-11-28',
};
const facets = { genres: [{ id: 18, name: 'Drama', count: 2 }], languages: [], decades: [] };

describe('the watchlist page', () => {
  it('shows each movie with the day it was added, never its rating', () => {
    const movie = aMovie({ id: 4, title: 'Night Train', userRating: 9 });
    const page = watchlistPage('points', values, aPage([{ movie, addedAt: '2024-03-05' }]), facets);
    expect(page.cards).toEqual([
      {
        card: {
          liked: false,
          id: 4,
          href: '/movies/4-night-train',
          title: 'Night Train',
          year: '1995',
          posterUrl: null,
          meta: 'Added 5 Mar 2024',
          rating: null,
        },
        title: 'Night Train',
      },
    ]);
    expect(page).toMatchObject({
      title: 'Watchlist',
      facets,
      values: { genre: '18', decade: '', language: 'fr' },
      filtered: true,
      next: '/watchlist?q=night',
      today: '2026-11-28',
    });
    expect(page.sorts.map((sort) => sort.value)).toEqual(['addedAt', 'title', 'releaseDate', 'runtime']);
    // The heart is pressed for the movies the user likes.
    const liked = watchlistPage(
      'points',
      values,
      aPage([{ movie, addedAt: '2024-03-05' }]),
      facets,
      new Set([4]),
    );
    expect(liked.cards[0]?.card.liked).toBe(true);
  });

  it('keeps the search, the sort and the filters in its page links', () => {
    const page = watchlistPage('points', { ...values, page: 2 }, aPage([], 3), facets);
    expect(page.pagination).toEqual({
      page: 2,
      pages: 3,
      previous: '/watchlist?q=night&sort=title&order=asc&genre=18&language=fr',
      next: '/watchlist?q=night&sort=title&order=asc&genre=18&language=fr&page=3',
    });
  });
});

describe('the ratings page', () => {
  it("shows each rating in the user's scale, with the day it was set", () => {
    const movie = aMovie({ id: 4, title: 'Night Train' });
    const list = aPage([{ movie, rating: 5, ratedAt: '2024-01-31' }]);
    const stars = ratingsPage('stars', { q: '', sort: 'rating', order: 'desc', page: 1 }, list);
    expect(stars.cards[0]).toMatchObject({
      meta: 'Rated 31 Jan 2024',
      rating: { value: 5, scale: 'stars', label: '2½ stars' },
    });
    expect(
      ratingsPage('points', { q: '', sort: 'rating', order: 'desc', page: 1 }, list).cards[0]?.rating?.label,
    ).toBe('5/10');
    expect(stars.pagination).toEqual({ page: 1, pages: 1, previous: null, next: null });
  });
});
