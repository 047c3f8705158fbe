import type { Page } from '../../../shared/pagination.js';
import type { HistoryEntry, WatchlistEntry } from '../../library/library.service.js';
import { MEDIA_SERVER_KEYS, namesOf } from '../../scrobble/media-servers.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import type { User } from '../../users/users.service.js';
import { barChart, monthBar } from '../shell/charts.js';
import { formatDay, hoursOf } from '../shell/format.js';
import { movieCard } from '../shell/view-models.js';

/**
 * The dashboard (`/`) of `user` in `year` (this year, in their time zone): the latest plays, the top
 * of the watchlist (and whether it holds more), this year's and all-time totals, the last 12 months as
 * a chart, the media servers that can log plays by themselves. One statistics object, all time: this
 * year's figures are its year's, the chart its last 12 months. Pure: domain objects in, the
 * template's data out.
 */
export function dashboardPage(
  user: User,
  year: number,
  latest: Page<HistoryEntry>,
  watchlist: Page<WatchlistEntry>,
  allTime: Statistics,
) {
  const thisYear = allTime.playsPerYear.find((entry) => entry.year === year) ?? {
    plays: 0,
    minutesWatched: 0,
  };
  return {
    title: 'Dashboard',
    year,
    latest: latest.items.map((entry) =>
      movieCard(entry.movie, { scale: user.ratingScale, meta: formatDay(entry.watchedAt) }),
    ),
    watchlist: watchlist.items.map((entry) =>
      movieCard(entry.movie, { scale: user.ratingScale, rating: null }),
    ),
    watchlistMore: watchlist.maxPage > 1,
    allTime: { plays: allTime.totals.plays, movies: allTime.totals.movies },
    thisYear: { plays: thisYear.plays, hours: hoursOf(thisYear.minutesWatched) },
    monthsChart: {
      id: 'chart-dashboard-months',
      columnLabel: 'Month',
      ...barChart(
        'Plays in the last 12 months',
        'plays',
        allTime.playsPerMonth.map((m) => monthBar(m.month, m.plays)),
      ),
    },
    mediaServers: namesOf(MEDIA_SERVER_KEYS),
  };
}
