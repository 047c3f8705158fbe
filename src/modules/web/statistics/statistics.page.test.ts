import { describe, expect, it } from 'vitest';
import { aMovie, aUser, monthsOf, noStatistics } from '../../../../test/page-fixtures.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import type { YearMovie, YearReview } from '../../statistics/year-review.service.js';
import { statisticsPage, yearReviewPage } from './statistics.page.js';

// The statistics page's and the year in review's builders, called with the statistics service's
// object and the year's movies: no database, no HTTP.

const mann = {
  id: 3,
  providerId: 638,
  name: 'Michael Mann',
  profilePath: 'http://cinelog.test/images/w185/m.jpg',
};
const stats2021: Statistics = noStatistics(
  {
    year: 2021,
    totals: {
      plays: 3,
      movies: 2,
      minutesWatched: 250,
      averageRating: 7.5,
      firstWatchedAt: '2021-03-04',
      lastWatchedAt: '2021-11-20',
    },
    playsPerYear: [{ year: 2021, plays: 3, movies: 2, minutesWatched: 250 }],
    playsPerMonth: monthsOf('2021').map((month) => ({
      month,
      plays: month === '2021-03' ? 2 : month === '2021-11' ? 1 : 0,
    })),
    playsPerWeekday: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, plays: weekday === 4 ? 2 : 0 })),
    ratings: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((rating) => ({
      rating,
      movies: rating === 7 || rating === 8 ? 1 : 0,
    })),
    topGenres: [{ id: 80, name: 'Crime', movies: 2, plays: 3 }],
    topLanguages: [{ code: 'xx', name: null, movies: 1, plays: 1 }],
    topDecades: [{ decade: 1990, movies: 1, plays: 2 }],
    topDirectors: { byMovies: [{ person: mann, movies: 1, plays: 2 }], byPlays: [] },
    mostRewatched: [{ movie: aMovie({ id: 7, title: 'Heat' }), plays: 2 }],
    longestStreak: { days: 2, from: '2021-03-04', to: '2021-03-05' },
    rewatches: 1,
    topTags: [
      { name: 'Heist', entries: 2 },
      { name: 'cosy', entries: 1 },
    ],
  },
  monthsOf('2021'),
);
const allTime: Statistics = noStatistics({
  playsPerYear: [
    { year: 2019, plays: 1, movies: 1, minutesWatched: 90 },
    { year: 2020, plays: 0, movies: 0, minutesWatched: 0 },
    { year: 2021, plays: 3, movies: 2, minutesWatched: 250 },
  ],
});

describe('the statistics page', () => {
  it('shows the rewatches and the top tags (issue 30)', () => {
    const page = statisticsPage(aUser(), { year: 2021, thisYear: 2024 }, stats2021, allTime);
    expect(page.rewatches).toBe(1);
    expect(page.tags).toEqual([
      { name: 'Heist', count: '2 entries' },
      { name: 'cosy', count: '1 entry' },
    ]);
  });

  it("shows one year's figures in the user's scale, with the years to pick from", () => {
    const page = statisticsPage(
      aUser({ ratingScale: 'stars' }),
      { year: 2021, thisYear: 2024 },
      stats2021,
      allTime,
    );
    expect(page).toMatchObject({
      title: 'Statistics of 2021',
      year: 2021,
      thisYear: 2024,
      // Years with a play, the latest first, from the all-time statistics.
      years: [2021, 2019],
      reviewHref: '/users/alice/year/2021',
    });
    expect(page.totals).toEqual({
      plays: 3,
      movies: 2,
      hours: 4,
      averageRating: '4 stars',
      averageExact: 7.5,
      first: '4 Mar 2021',
      last: '20 Nov 2021',
      streak: { days: 2, from: '2021-03-04', to: '2021-03-05' },
      streakFrom: '4 Mar 2021',
      streakTo: '5 Mar 2021',
    });
  });

  it('charts the year, its months, the weekdays and the ratings', () => {
    const { charts } = statisticsPage(
      aUser({ ratingScale: 'stars' }),
      { year: 2021, thisYear: 2024 },
      stats2021,
      allTime,
    );
    expect(charts.months.title).toBe('Plays per month in 2021');
    expect(charts.months.summary).toBe(
      'Plays per month in 2021: 3 plays in all; the most, 2, in March 2021.',
    );
    expect(charts.weekdays.summary).toBe('Plays per weekday: 2 plays in all; the most, 2, in Thursday.');
    expect(charts.years.bars.map((bar) => bar.label)).toEqual(['2021']);
    // Stars: the labels are half-stars, the names the words.
    expect(charts.ratings.bars.slice(6, 8).map((bar) => [bar.label, bar.name, bar.value])).toEqual([
      ['3.5', '3½ stars', 1],
      ['4', '4 stars', 1],
    ]);
  });

  it('ranks people, genres, languages and decades, and the most rewatched', () => {
    const page = statisticsPage(aUser(), { year: 2021, thisYear: 2024 }, stats2021, allTime);
    expect(page.directors).toEqual([
      {
        name: 'Michael Mann',
        href: '/people/3-michael-mann',
        picture: '/images/w185/m.jpg',
        initial: 'M',
        count: '1 movie · 2 plays',
      },
    ]);
    expect(page.genres).toEqual([{ name: 'Crime', count: '2 movies · 3 plays' }]);
    // A language no stored movie names is shown by its code.
    expect(page.languages).toEqual([{ name: 'xx', count: '1 movie · 1 play' }]);
    expect(page.decades).toEqual([{ name: '1990s', count: '1 movie · 2 plays' }]);
    expect(page.rewatched).toMatchObject([{ title: 'Heat', href: '/movies/7-heat', count: '2 plays' }]);
  });

  it('all time: its own years, the last 12 months, and this year in review', () => {
    const page = statisticsPage(aUser(), { year: undefined, thisYear: 2024 }, allTime, null);
    expect(page).toMatchObject({
      title: 'Statistics',
      year: null,
      years: [2021, 2019],
      reviewHref: '/users/alice/year/2024',
    });
    expect(page.charts.months.title).toBe('Plays in the last 12 months');
    expect(page.totals).toMatchObject({ averageRating: null, first: null, streakFrom: null });
  });
});

describe('the year in review', () => {
  const year = (id: number, title: string, first: string, rating: number | null = null): YearMovie => ({
    movie: aMovie({ id, title, userRating: rating, posterPath: null }),
    first,
    last: first,
    plays: 1,
  });
  const heat = year(7, 'Heat', '2021-03-04', 8);
  const thief = year(8, 'Thief', '2021-11-20');
  const list = (id: number, visibility: 'private' | 'users' | 'public', movieCount: number) => ({
    id,
    name: `List ${id}`,
    description: null,
    ranked: false,
    visibility,
    movieCount,
    createdAt: '2021-02-01T10:00:00.000Z',
    updatedAt: '2021-02-02T10:00:00.000Z',
  });
  const review: YearReview = {
    movies: [heat, thief],
    first: heat,
    last: thief,
    highestRated: heat,
    likes: [{ movie: thief.movie, likedAt: '2021-12-01' }],
    lists: [
      { list: list(1, 'public', 6), movies: [heat.movie, thief.movie] },
      { list: list(2, 'users', 1), movies: [thief.movie] },
    ],
  };

  it("shows the year's first, last and best rated movie, its busiest month and its top picks", () => {
    const owner = aUser({ name: 'alice', publicProfile: true, privacy: 'users' });
    const page = yearReviewPage(owner, { year: 2021, isOwner: true, linked: true }, stats2021, review);
    expect(page).toMatchObject({
      title: "alice's 2021 in movies",
      owner: { name: 'alice' },
      isOwner: true,
      shareable: true,
      year: 2021,
      busiest: { name: 'March 2021', plays: 2 },
      first: { title: 'Heat', meta: 'First, 4 Mar 2021', href: '/movies/7-heat' },
      last: { title: 'Thief', meta: 'Last, 20 Nov 2021', href: '/movies/8-thief' },
      highestRated: { title: 'Heat', meta: '' },
      highestRating: { value: 8, scale: 'points', label: '8/10' },
      director: { name: 'Michael Mann' },
      actor: null,
      genre: { name: 'Crime', count: '2 movies · 3 plays' },
    });
    expect(page.totals.plays).toBe(3);
    expect(page.monthsChart.title).toBe('Plays per month in 2021');
    expect(page.posters).toEqual([
      { title: 'Heat', href: '/movies/7-heat', poster: null, initial: 'H' },
      { title: 'Thief', href: '/movies/8-thief', poster: null, initial: 'T' },
    ]);
  });

  it("shows the year's likes and lists with their posters; the owner's lists link to their pages", () => {
    const owner = aUser({ name: 'alice', publicProfile: true, privacy: 'users' });
    const page = yearReviewPage(owner, { year: 2021, isOwner: true, linked: true }, stats2021, review);
    expect(page.likes).toEqual([{ title: 'Thief', href: '/movies/8-thief', poster: null, initial: 'T' }]);
    expect(page.lists).toEqual([
      {
        name: 'List 1',
        href: '/lists/1',
        count: '6 movies',
        posters: [
          { title: 'Heat', href: null, poster: null, initial: 'H' },
          { title: 'Thief', href: null, poster: null, initial: 'T' },
        ],
        more: 4,
      },
      expect.objectContaining({ name: 'List 2', href: '/lists/2', count: '1 movie', more: 0 }),
    ]);
    // Another reader: the public list's public page; the other one without a link.
    const seen = yearReviewPage(owner, { year: 2021, isOwner: false, linked: false }, stats2021, review);
    expect(seen.lists.map((l) => l.href)).toEqual(['/u/alice/lists/1', null]);
    expect(seen.likes[0]?.href).toBeNull();
  });

  it('gives a stranger no links into the app, and says when it is not shared', () => {
    const owner = aUser({ publicProfile: false });
    const page = yearReviewPage(owner, { year: 2021, isOwner: false, linked: false }, stats2021, review);
    expect(page.shareable).toBe(false);
    expect(page.first?.href).toBeNull();
    expect(page.posters.map((poster) => poster.href)).toEqual([null, null]);
  });

  it('an empty year: no movies, no busiest month', () => {
    const empty: YearReview = {
      movies: [],
      first: null,
      last: null,
      highestRated: null,
      likes: [],
      lists: [],
    };
    const page = yearReviewPage(aUser(), { year: 2022, isOwner: true, linked: true }, noStatistics(), empty);
    expect(page).toMatchObject({
      busiest: null,
      first: null,
      last: null,
      highestRated: null,
      highestRating: null,
    });
  });
});
