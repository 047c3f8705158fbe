import { describe, expect, it } from 'vitest';
import type { MovieSearchPage } from '../../movies/movies.service.js';
import { searchPage } from './search.page.js';

// The search page's builder, called with the movies service's answer: no TMDB, no HTTP.

const TMDB_IMAGES = 'https://image.tmdb.org/t/p';
type Result = MovieSearchPage['results'][number];
const result = (overrides: Partial<Result> = {}): Result => ({
  title: 'Heat',
  originalTitle: 'Heat',
  releaseDate: '1995-12-15',
  overview: null,
  originalLanguage: 'en',
  providerPosterPath: '/heat.jpg',
  ids: { service: null, provider: 949 },
  isWatched: false,
  isOnWatchlist: false,
  ...overrides,
});

describe('the search page', () => {
  it('before a search: no results, no pages', () => {
    const page = searchPage(
      'points',
      { q: '', page: 1, prefill: {}, here: '/search' },
      null,
      null,
      TMDB_IMAGES,
    );
    expect(page).toMatchObject({
      title: 'Search movies',
      results: [],
      pages: 0,
      error: null,
      prefillText: null,
      previous: null,
      next: null,
    });
  });

  it("links a new movie to the log form and a stored one to its page, with TMDB's posters and marks", () => {
    const found: MovieSearchPage = {
      results: [
        result(),
        result({ ids: { service: 7, provider: 950 }, title: 'Thief', isWatched: true, isOnWatchlist: true }),
      ],
      currentPage: 1,
      maxPage: 2,
    };
    const here = '/search?q=heat';
    const page = searchPage('points', { q: 'heat', page: 1, prefill: {}, here }, found, null, TMDB_IMAGES);
    expect(page.title).toBe('Search: heat');
    expect(page.results[0]).toEqual({
      card: {
        id: 949,
        href: '/log?tmdbId=949&title=Heat&year=1995',
        title: 'Heat',
        year: '1995',
        posterUrl: 'https://image.tmdb.org/t/p/w342/heat.jpg',
        meta: '',
        rating: null,
      },
      tmdbId: 949,
      movieId: null,
      title: 'Heat',
      logHref: '/log?tmdbId=949&title=Heat&year=1995',
      onWatchlist: false,
      next: here,
    });
    expect(page.results[1]).toMatchObject({
      card: { id: 7, href: '/movies/7-thief', meta: 'Watched · On your watchlist' },
      movieId: 7,
      logHref: '/log?movieId=7&title=Thief&year=1995',
    });
    expect(page.next).toBe('/search?q=heat&page=2');
    expect(page.previous).toBeNull();
  });

  it("carries an import row's prefill to the log form and says what it will fill in", () => {
    const prefill = { date: '2024-01-01', rating: '7' };
    const found: MovieSearchPage = { results: [result()], currentPage: 2, maxPage: 2 };
    const page = searchPage(
      'stars',
      { q: 'heat', page: 2, prefill, here: '/search' },
      found,
      null,
      TMDB_IMAGES,
    );
    expect(page.prefillText).toBe('1 Jan 2024, rated 3½ stars');
    expect(page.results[0]?.logHref).toBe('/log?tmdbId=949&title=Heat&year=1995&date=2024-01-01&rating=7');
    expect(page.previous).toBe('/search?q=heat&page=1&date=2024-01-01&rating=7');
    const unknownDate = searchPage(
      'points',
      { q: 'heat', page: 1, prefill: { unknownDate: 'on' }, here: '/search' },
      null,
      null,
      TMDB_IMAGES,
    );
    expect(unknownDate.prefillText).toBe('an unknown date');
  });

  it('shows why TMDB did not answer', () => {
    const page = searchPage(
      'points',
      { q: 'heat', page: 1, prefill: {}, here: '/search' },
      null,
      'TMDB is down.',
      TMDB_IMAGES,
    );
    expect(page).toMatchObject({ error: 'TMDB is down.', results: [], pages: 0 });
  });
});
