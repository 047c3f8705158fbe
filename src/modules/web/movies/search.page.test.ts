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
      directedBy: null,
      originalTitle: null,
      listFields: { tmdbId: '949', next: here },
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

  it('shows the people found, and each result with its director and original title so remakes are told apart', () => {
    const found: MovieSearchPage = {
      results: [
        result({
          ids: { service: 7, provider: 593 },
          title: 'Solaris',
          originalTitle: 'Солярис',
          releaseDate: '1972-03-20',
        }),
        result({
          ids: { service: 8, provider: 2103 },
          title: 'Solaris',
          originalTitle: 'Solaris',
          releaseDate: '2002-11-27',
        }),
        result({
          ids: { service: null, provider: 99 },
          title: 'Solaris',
          originalTitle: 'Solaris',
          releaseDate: '1968-01-01',
        }),
      ],
      currentPage: 1,
      maxPage: 1,
    };
    const here = '/search?q=solaris';
    const page = searchPage(
      'points',
      { q: 'solaris', page: 1, prefill: {}, here },
      found,
      null,
      TMDB_IMAGES,
      {
        people: [
          { id: 3, name: 'Andrei Tarkovsky', profilePath: '/at.jpg', knownForDepartment: 'Directing' },
          { id: 4, name: 'Steven Soderbergh', profilePath: null, knownForDepartment: null },
        ],
        directors: new Map([
          [7, ['Andrei Tarkovsky']],
          [8, ['Steven Soderbergh']],
        ]),
        liked: new Set([8]),
        lists: [
          {
            id: 5,
            name: 'Space',
            description: null,
            ranked: false,
            visibility: 'private',
            movieCount: 0,
            createdAt: '2024-06-01T00:00:00.000Z',
            updatedAt: '2024-06-01T00:00:00.000Z',
          },
        ],
      },
      'http://cinelog.test/images',
    );
    expect(page.people).toEqual([
      {
        href: '/people/3-andrei-tarkovsky',
        name: 'Andrei Tarkovsky',
        department: 'Directing',
        picture: '/images/w185/at.jpg',
      },
      { href: '/people/4-steven-soderbergh', name: 'Steven Soderbergh', department: null, picture: null },
    ]);
    expect(page.lists).toEqual([{ id: 5, name: 'Space' }]);
    expect(page.results.map((r) => [r.card.year, r.directedBy, r.originalTitle, r.card.liked])).toEqual([
      ['1972', 'Directed by Andrei Tarkovsky', 'Солярис', false],
      ['2002', 'Directed by Steven Soderbergh', null, true],
      // Not stored: TMDB's search names no director, and there is nothing to like yet.
      ['1968', null, null, undefined],
    ]);
    expect(page.results.map((r) => r.listFields)).toEqual([
      { movieId: '7', next: here },
      { movieId: '8', next: here },
      { tmdbId: '99', next: here },
    ]);
  });
});
