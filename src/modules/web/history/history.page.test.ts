import { describe, expect, it } from 'vitest';
import { aMovie, aPage, aUser, noStatistics } from '../../../../test/page-fixtures.js';
import type { DiaryEntry, HistoryEntry } from '../../library/library.service.js';
import { historyEntryView, publicProfilePage } from './history.page.js';

// The diary's page builders, called with the library's entries: no database, no HTTP.

const entry = (overrides: Partial<HistoryEntry> = {}): HistoryEntry => ({
  movie: aMovie({
    id: 12,
    title: 'Spirited Away',
    releaseDate: '2001-07-20',
    posterPath: 'http://cinelog.test/images/w342/spirited.jpg',
    userRating: 7,
  }),
  watchedAt: '2026-11-21',
  plays: 2,
  comment: 'Again.',
  position: 1,
  rating: 7,
  ...overrides,
});

describe('the history entry', () => {
  it("shows the movie, the day, the plays, the comment and the rating in the owner's scale", () => {
    expect(historyEntryView(entry(), 'stars')).toEqual({
      movieId: 12,
      href: '/movies/12-spirited-away',
      title: 'Spirited Away',
      year: '2001',
      // The image cache's absolute URL, made relative for the page.
      poster: '/images/w342/spirited.jpg',
      date: '2026-11-21',
      day: '21 Nov 2026',
      plays: 2,
      comment: 'Again.',
      rating: { value: 7, scale: 'stars', label: '3½ stars' },
    });
    expect(historyEntryView(entry(), 'points').rating?.label).toBe('7/10');
  });

  it("shows the entry's own rating, never the movie's rating of today", () => {
    const rerated = entry({ rating: 4, movie: aMovie({ id: 12, title: 'Spirited Away', userRating: 9 }) });
    expect(historyEntryView(rerated, 'points').rating?.label).toBe('4/10');
    const unrated = entry({ rating: null, movie: aMovie({ id: 12, title: 'Spirited Away', userRating: 9 }) });
    expect(historyEntryView(unrated, 'points').rating).toBeNull();
  });

  it('has no link for a stranger, and no rating or year when there is none', () => {
    const plain = entry({
      movie: aMovie({ id: 3, title: 'Unrated', releaseDate: null, posterPath: null, userRating: null }),
      rating: null,
    });
    expect(historyEntryView(plain, 'points', false)).toMatchObject({
      href: null,
      year: '',
      poster: null,
      rating: null,
    });
  });
});

describe('the public profile', () => {
  const owner = aUser({ name: 'Zoë K', ratingScale: 'stars', publicProfile: true });
  const stats = noStatistics({
    totals: { ...noStatistics().totals, plays: 9, movies: 4, minutesWatched: 545 },
    playsPerYear: [
      { year: 2021, plays: 3, movies: 2, minutesWatched: 200 },
      { year: 2022, plays: 0, movies: 0, minutesWatched: 0 },
      { year: 2023, plays: 5, movies: 2, minutesWatched: 300 },
    ],
  });

  it("shows the diary's entries as the history does, with rewatch and tags, without links for a stranger", () => {
    const diaryEntry = (): DiaryEntry => ({ ...entry(), id: 5, rewatch: true, tags: ['cinema', 'with Sam'] });
    const page = publicProfilePage(
      owner,
      { year: 2023, page: 1, linked: false },
      aPage([diaryEntry()]),
      stats,
    );
    expect(page.entries).toEqual([
      { ...historyEntryView(entry(), 'stars', false), rewatch: true, tags: ['cinema', 'with Sam'] },
    ]);
    expect(page.entries[0]?.href).toBeNull();
    expect(page.entries[0]?.rating?.label).toBe('3½ stars');
    const signedIn = publicProfilePage(
      owner,
      { year: 2023, page: 1, linked: true },
      aPage([diaryEntry()]),
      stats,
    );
    expect(signedIn.entries[0]?.href).toBe('/movies/12-spirited-away');
  });

  it('links the public lists it is given (issue 30), each to its read-only page', () => {
    const list = {
      id: 3,
      name: 'Sunday films',
      description: 'Dark ones',
      ranked: true,
      visibility: 'public' as const,
      movieCount: 2,
      createdAt: '2024-06-01T10:00:00.000Z',
      updatedAt: '2024-06-02T09:30:00.000Z',
    };
    const view = { year: 2023, page: 1, linked: false };
    expect(publicProfilePage(owner, view, aPage([]), stats, [list]).lists).toEqual([
      { href: '/u/Zo%C3%AB%20K/lists/3', name: 'Sunday films', description: 'Dark ones', count: '2 movies' },
    ]);
    expect(publicProfilePage(owner, view, aPage([]), stats).lists).toEqual([]);
  });

  it("counts all time and this year, and links each year's review, the latest first", () => {
    const page = publicProfilePage(owner, { year: 2023, page: 1, linked: false }, aPage([]), stats);
    expect(page.title).toBe("Zoë K's movie diary");
    expect(page.allTime).toEqual({ plays: 9, movies: 4, hours: 9 });
    expect(page.thisYear).toEqual({ plays: 5 });
    expect(page.reviews).toEqual([
      { year: 2023, href: '/users/Zo%C3%AB%20K/year/2023' },
      { year: 2021, href: '/users/Zo%C3%AB%20K/year/2021' },
    ]);
    expect(
      publicProfilePage(owner, { year: 2024, page: 1, linked: false }, aPage([]), stats).thisYear,
    ).toEqual({
      plays: 0,
    });
  });

  it('links its pages on its own address', () => {
    const page = publicProfilePage(
      owner,
      { year: 2023, page: 2, linked: false },
      aPage([{ ...entry(), id: 1, rewatch: false, tags: [] }], 3),
      stats,
    );
    expect(page.pagination).toEqual({
      page: 2,
      pages: 3,
      previous: '/u/Zo%C3%AB%20K',
      next: '/u/Zo%C3%AB%20K?page=3',
    });
  });
});
