import { describe, expect, it } from 'vitest';
import { aMovie, aPage, aUser, monthsOf, noStatistics } from '../../../../test/page-fixtures.js';
import { dashboardPage } from './home.page.js';

// The dashboard's page builder, called with the library's lists and the statistics: no database, no HTTP.

const user = aUser({ ratingScale: 'stars' });
const latest = aPage([
  {
    movie: aMovie({ id: 1, title: 'First Light', userRating: 8 }),
    watchedAt: '2024-06-01',
    plays: 1,
    comment: null,
    position: 1,
    rating: 8,
  },
]);
const watchlist = aPage(
  [{ movie: aMovie({ id: 2, title: 'Second Wind', userRating: 6 }), addedAt: '2024-05-01' }],
  2,
);
const allTime = noStatistics(
  {
    totals: { ...noStatistics().totals, plays: 40, movies: 30 },
    playsPerYear: [
      { year: 2023, plays: 25, movies: 20, minutesWatched: 3000 },
      { year: 2024, plays: 15, movies: 10, minutesWatched: 1650 },
    ],
    playsPerMonth: monthsOf('2024').map((month) => ({ month, plays: month === '2024-03' ? 4 : 0 })),
  },
  monthsOf('2024'),
);

describe('the dashboard', () => {
  it('shows the latest plays with their day and rating, the watchlist without ratings', () => {
    const page = dashboardPage(user, 2024, latest, watchlist, allTime);
    expect(page.latest).toEqual([
      {
        id: 1,
        href: '/movies/1-first-light',
        title: 'First Light',
        year: '1995',
        posterUrl: null,
        meta: '1 Jun 2024',
        rating: { value: 8, scale: 'stars', label: '4 stars' },
      },
    ]);
    expect(page.watchlist).toMatchObject([{ title: 'Second Wind', meta: '', rating: null }]);
    expect(page.watchlistMore).toBe(true);
    expect(dashboardPage(user, 2024, latest, aPage([]), allTime).watchlistMore).toBe(false);
  });

  it("counts this year's plays and hours from its year, and all time from the totals", () => {
    const page = dashboardPage(user, 2024, latest, watchlist, allTime);
    expect(page.title).toBe('Dashboard');
    expect(page.year).toBe(2024);
    expect(page.allTime).toEqual({ plays: 40, movies: 30 });
    // 1,650 minutes: 27.5 hours, rounded.
    expect(page.thisYear).toEqual({ plays: 15, hours: 28 });
    expect(dashboardPage(user, 2025, latest, watchlist, allTime).thisYear).toEqual({ plays: 0, hours: 0 });
  });

  it('charts the last 12 months and names the media servers that log plays', () => {
    const page = dashboardPage(user, 2024, latest, watchlist, allTime);
    expect(page.monthsChart.id).toBe('chart-dashboard-months');
    expect(page.monthsChart.bars.map((bar) => bar.label)).toEqual([
      'Jan',
      'Feb',
      'Mar',
      'Apr',
      'May',
      'Jun',
      'Jul',
      'Aug',
      'Sep',
      'Oct',
      'Nov',
      'Dec',
    ]);
    expect(page.monthsChart.summary).toBe(
      'Plays in the last 12 months: 4 plays in all; the most, 4, in March 2024.',
    );
    expect(page.mediaServers).toBe('Plex, Jellyfin, Emby or Kodi');
  });
});
