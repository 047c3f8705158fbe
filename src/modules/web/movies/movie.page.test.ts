import { describe, expect, it } from 'vitest';
import { aUser, movieDetails } from '../../../../test/page-fixtures.js';
import type { MovieState } from '../../library/library.service.js';
import { moviePage } from './movie.page.js';

// The movie page's builder, called with the catalogue's movie and what the user keeps: no database,
// no HTTP.

const nothingKept: MovieState = {
  entries: [],
  rating: null,
  ratedAt: null,
  watchlistedAt: null,
  likedAt: null,
};
const view = { today: '2024-06-15', error: null };
const IMAGES = 'http://cinelog.test/images';
/** One of the user's lists, as the library lists them. */
const summary = (id: number, name: string) => ({
  id,
  name,
  description: null,
  ranked: false,
  visibility: 'private' as const,
  movieCount: 2,
  createdAt: '2024-06-01T10:00:00.000Z',
  updatedAt: '2024-06-02T09:30:00.000Z',
});

describe('the movie page', () => {
  it('names the entry whose refused edit comes back open, and none otherwise', () => {
    expect(moviePage(aUser(), movieDetails(), nothingKept, view, IMAGES).editing).toBeNull();
    const refused = { ...view, error: 'Plays must be 1 to 1,000,000.', editing: 'undated' };
    expect(moviePage(aUser(), movieDetails(), nothingKept, refused, IMAGES)).toMatchObject({
      editing: 'undated',
      error: 'Plays must be 1 to 1,000,000.',
    });
  });

  it('shows the facts, with images from the image root made relative', () => {
    const page = moviePage(aUser(), movieDetails(), nothingKept, view, IMAGES);
    expect(page.title).toBe('Heat');
    expect(page.movie).toMatchObject({
      id: 7,
      title: 'Heat',
      // The same as the title: not shown twice.
      originalTitle: null,
      year: '1995',
      releaseDate: '15 Dec 1995',
      runtime: '2 h 50 min',
      poster: '/images/w342/heat.jpg',
      backdrop: null,
      genres: [{ id: 1, providerId: 80, name: 'Crime' }],
      language: 'English',
      directors: [{ href: '/people/3-michael-mann', name: 'Michael Mann', picture: '/images/w185/mann.jpg' }],
      tmdbRating: { average: 7.9, count: 7000 },
    });
    const other = moviePage(
      aUser(),
      movieDetails({
        originalTitle: 'Chaleur',
        runtime: 45,
        originalLanguage: { code: 'xx', englishName: null, name: null },
      }),
      nothingKept,
      view,
      'https://image.tmdb.org/t/p',
    );
    expect(other.movie).toMatchObject({
      originalTitle: 'Chaleur',
      runtime: '45 min',
      language: 'xx',
      poster: 'https://image.tmdb.org/t/p/w342/heat.jpg',
    });
  });

  it('names the crew cinelog keeps beside the director: writers, producers, music, camera, editing', () => {
    const who = (id: number, name: string) => ({ id, providerId: id + 100, name, profilePath: null });
    const [ada, bo, cy, di, ed, fi, gu, hal] = [
      who(11, 'Ada'),
      who(12, 'Bo'),
      who(13, 'Cy'),
      who(14, 'Di'),
      who(15, 'Ed'),
      who(16, 'Fi'),
      who(17, 'Gu'),
      who(18, 'Hal'),
    ] as const;
    const details = movieDetails({
      writers: [ada, bo],
      crew: [
        { job: 'Director', department: 'Directing', people: [] },
        { job: 'Screenplay', department: 'Writing', people: [ada] },
        { job: 'Producer', department: 'Production', people: [bo, cy, di, ed, fi] },
        { job: 'Executive Producer', department: 'Production', people: [gu] },
        { job: 'Original Music Composer', department: 'Sound', people: [hal] },
        { job: 'Music', department: 'Sound', people: [hal] },
        { job: 'Director of Photography', department: 'Camera', people: [gu] },
      ],
    });
    const page = moviePage(aUser(), details, nothingKept, view, IMAGES);
    expect(page.movie.crew.map((row) => [row.label, row.people.map((person) => person.name)])).toEqual([
      ['Written by', ['Ada', 'Bo']],
      // The first four producers; executive producers are not named.
      ['Produced by', ['Bo', 'Cy', 'Di', 'Ed']],
      // Hal once, for two jobs.
      ['Music by', ['Hal']],
      ['Cinematography', ['Gu']],
    ]);
    expect(page.movie.crew[0]?.people[0]?.href).toBe('/people/11-ada');
    // None kept: no row.
    expect(moviePage(aUser(), movieDetails(), nothingKept, view, IMAGES).movie.crew).toEqual([]);
  });

  it('links out to TMDB, IMDb and Letterboxd by the ids it has', () => {
    expect(moviePage(aUser(), movieDetails(), nothingKept, view, IMAGES).movie.links).toEqual([
      { label: 'TMDB', href: 'https://www.themoviedb.org/movie/949' },
      { label: 'IMDb', href: 'https://www.imdb.com/title/tt0113277/' },
      { label: 'Letterboxd', href: 'https://letterboxd.com/tmdb/949/' },
    ]);
    const imdbOnly = movieDetails({ ids: { provider: null, tracker: null, catalog: 'tt1', journal: null } });
    expect(moviePage(aUser(), imdbOnly, nothingKept, view, IMAGES).movie.links).toEqual([
      { label: 'IMDb', href: 'https://www.imdb.com/title/tt1/' },
    ]);
  });

  it('shows the first 12 of the cast, with their roles', () => {
    const cast = Array.from({ length: 15 }, (_, i) => ({
      person: { id: 100 + i, providerId: 200 + i, name: `Actor ${i}`, profilePath: null },
      character: i === 0 ? 'Neil' : null,
      order: i,
    }));
    const shown = moviePage(aUser(), movieDetails({ cast }), nothingKept, view, IMAGES).movie.cast;
    expect(shown).toHaveLength(12);
    expect(shown[0]).toEqual({ href: '/people/100-actor-0', name: 'Actor 0', picture: null, role: 'Neil' });
    expect(shown.at(-1)?.name).toBe('Actor 11');
  });

  it("shows the user's entries, rating, watchlist and like state, with the forms' values", () => {
    const state: MovieState = {
      entries: [
        { watchedAt: '2024-02-03', plays: 2, comment: 'Twice', position: 1 },
        { watchedAt: null, plays: 1, comment: null, position: 1 },
      ],
      rating: 9,
      ratedAt: '2024-02-03',
      watchlistedAt: '2024-01-01',
      likedAt: '2024-01-02',
    };
    const page = moviePage(aUser({ ratingScale: 'stars' }), movieDetails(), state, view, IMAGES);
    expect(page.entries).toEqual([
      {
        watchedAt: '2024-02-03',
        plays: 2,
        comment: 'Twice',
        position: 1,
        day: '3 Feb 2024',
        dateValue: '2024-02-03',
      },
      { watchedAt: null, plays: 1, comment: null, position: 1, day: 'Unknown date', dateValue: '' },
    ]);
    expect(page.rating).toEqual({ value: 9, scale: 'stars', label: '4½ stars' });
    expect(page.ratingValue).toBe(9);
    expect(page.onWatchlist).toBe(true);
    expect(page.liked).toBe(true);
    expect(page.ratingChoices[0]).toEqual({ value: 10, label: '5 stars', scale: 'stars' });
    expect(page.ratingChoices).toHaveLength(10);
    expect(page).toMatchObject({
      today: '2024-06-15',
      movieId: 7,
      next: '/movies/7-heat',
      here: '/movies/7-heat',
      error: null,
    });
    const none = moviePage(aUser(), movieDetails(), nothingKept, view, IMAGES);
    expect(none).toMatchObject({
      rating: null,
      ratingValue: null,
      onWatchlist: false,
      liked: false,
      entries: [],
    });
    expect(none.lists).toEqual([]);
  });

  it('offers the user\'s own lists for "Add to a list", by id and name', () => {
    const list = summary(3, 'Sunday films');
    const page = moviePage(aUser(), movieDetails(), nothingKept, { ...view, lists: [list] }, IMAGES);
    expect(page.lists).toEqual([{ id: 3, name: 'Sunday films' }]);
    expect(page.onLists).toEqual([]);
    expect(page.tags).toEqual([]);
  });

  it('shows the lists that hold the movie (its rank on a ranked one, not offered again) and its tags', () => {
    const kept = {
      lists: [
        { id: 3, name: 'Top 10', ranked: true, visibility: 'users' as const, position: 2 },
        { id: 4, name: 'Sunday films', ranked: false, visibility: 'private' as const, position: 5 },
      ],
      tags: ['heist', 'LA & night'],
    };
    const lists = [summary(3, 'Top 10'), summary(4, 'Sunday films'), summary(5, 'Later')];
    const page = moviePage(aUser(), movieDetails(), nothingKept, { ...view, lists, kept }, IMAGES);
    expect(page.onLists).toEqual([
      { href: '/lists/3', name: 'Top 10', rank: 2 },
      { href: '/lists/4', name: 'Sunday films', rank: null },
    ]);
    expect(page.lists).toEqual([{ id: 5, name: 'Later' }]);
    expect(page.tags).toEqual([
      { name: 'heist', href: '/history?tag=heist' },
      { name: 'LA & night', href: '/history?tag=LA+%26+night' },
    ]);
  });

  it('carries the reason of a refused change', () => {
    const page = moviePage(
      aUser(),
      movieDetails(),
      nothingKept,
      { ...view, error: 'The date is ahead.' },
      IMAGES,
    );
    expect(page.error).toBe('The date is ahead.');
  });
});
