import { describe, expect, it } from 'vitest';
import { aMovie, aPage, personDetails } from '../../../../test/page-fixtures.js';
import { type MoviesValues, moviesPage, personPage } from './browse.page.js';

// The movies grid's and the person page's builders, called with the library's played list and the
// catalogue's person: no database, no HTTP.

const facets = { genres: [], languages: [], decades: [] };
const values: MoviesValues = {
  kept: { q: 'heat', genre: undefined, person: '3', sort: 'plays', order: 'desc' },
  filtered: true,
  page: 1,
  person: { id: 3, name: 'Michael Mann' },
};

describe('the movies grid', () => {
  it('shows each movie with its last day watched and its plays', () => {
    const list = aPage([
      {
        movie: aMovie({ id: 7, title: 'Heat', userRating: 8 }),
        watchedDates: [
          { date: '2020-01-01', plays: 1, comment: null },
          { date: null, plays: 2, comment: null },
          { date: '2023-05-06', plays: 1, comment: null },
        ],
      },
      { movie: aMovie({ id: 8, title: 'Thief' }), watchedDates: [{ date: null, plays: 1, comment: null }] },
    ]);
    const page = moviesPage('points', values, list, facets);
    expect(page.cards.map((card) => card.meta)).toEqual(['6 May 2023 · 4 plays', '']);
    expect(page.cards[0]?.rating?.label).toBe('8/10');
    expect(page.filtered).toBe(true);
    expect(page.sorts.map((sort) => sort.value)).toEqual([
      'title',
      'addedAt',
      'plays',
      'rating',
      'releaseDate',
      'runtime',
    ]);
  });

  it('names the person filtered by, with the address that drops only that filter', () => {
    const page = moviesPage('points', values, aPage([], 2), facets);
    expect(page.person).toEqual({
      id: 3,
      name: 'Michael Mann',
      clear: '/movies?q=heat&sort=plays&order=desc',
    });
    expect(page.pagination.next).toBe('/movies?q=heat&person=3&sort=plays&order=desc&page=2');
    expect(moviesPage('points', { ...values, person: null }, aPage([]), facets).person).toBeNull();
  });
});

describe('the person page', () => {
  const movieRef = (id: number, title: string) => ({
    id,
    providerId: 500 + id,
    title,
    releaseDate: '1999-01-01',
    posterPath: `/p${id}.jpg`,
  });
  const person = personDetails({
    profilePath: '/mann.jpg',
    cast: [{ movie: movieRef(9, 'Cameo'), character: 'Himself', order: 3 }],
    crew: [
      { movie: movieRef(7, 'Heat'), job: 'Director', department: 'Directing' },
      { movie: movieRef(7, 'Heat'), job: 'Screenplay', department: 'Writing' },
      { movie: movieRef(9, 'Cameo'), job: 'Producer', department: 'Production' },
    ],
  });

  it('shows the watched movies with their roles, and the others cinelog knows', () => {
    const watched = aPage([{ movie: aMovie({ id: 7, title: 'Heat' }), watchedDates: [] }]);
    const page = personPage('points', person, watched, 'http://cinelog.test/images');
    expect(page.title).toBe('Michael Mann');
    expect(page.person).toEqual({
      name: 'Michael Mann',
      department: 'Directing',
      picture: '/images/w185/mann.jpg',
      moviesHref: '/movies?person=3',
    });
    expect(page.watched).toMatchObject([{ id: 7, title: 'Heat', meta: 'Director, Screenplay' }]);
    expect(page.unwatched).toEqual([
      {
        id: 9,
        href: '/movies/9-cameo',
        title: 'Cameo',
        year: '1999',
        posterUrl: '/images/w342/p9.jpg',
        meta: 'as Himself, Producer',
        rating: null,
        liked: false,
      },
    ]);
  });

  it('gives every card a heart, pressed for the movies the user likes', () => {
    const watched = aPage([{ movie: aMovie({ id: 7, title: 'Heat' }), watchedDates: [] }]);
    const page = personPage('points', person, watched, 'http://cinelog.test/images', new Set([9]));
    expect(page.watched.map((card) => card.liked)).toEqual([false]);
    expect(page.unwatched.map((card) => card.liked)).toEqual([true]);
  });
});
