import type { App } from '../../../shared/http.js';
import type { Page } from '../../../shared/pagination.js';
import { todayOf } from '../../library/library.rules.js';
import type { HistoryEntry, WatchlistEntry } from '../../library/library.service.js';
import { MEDIA_SERVER_KEYS, namesOf } from '../../scrobble/media-servers.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import type { User } from '../../users/users.service.js';
import { barChart, monthBar } from '../shell/charts.js';
import { formatDay, hoursOf } from '../shell/format.js';
import type { Pages } from '../shell/render.js';
import { movieCard } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

/** The services these pages use. */
export type HomeDeps = Pick<WebDeps, 'users' | 'library' | 'statistics' | 'clock'>;

/**
 * `/`: the first-run setup while nobody has an account, the sign-in page for strangers, and the
 * dashboard otherwise: the latest plays, this year's and all-time totals, the top of the watchlist and
 * the way to log a play.
 */
export function homeRoutes(
  app: App,
  { render }: Pages,
  { users, library, statistics, clock }: HomeDeps,
): void {
  app.get('/', async (request, reply) => {
    if (!request.signedIn) {
      return reply.redirect((await users.count()) === 0 ? '/setup' : '/login', 303);
    }
    const { user } = request.signedIn;
    const year = Number(todayOf(clock.now(), user.timezone).slice(0, 4));
    // One statistics object, all time (computed again in the background after each change): this
    // year's figures are its year's, the chart its last 12 months. The page is kept whole while these
    // three cached sources and the year stand (Renderer.cached).
    const [latestBytes, watchlistBytes, allTimeBytes] = await Promise.all([
      library.page('history', user, { limit: 12 }, JSON.stringify, 'objects'),
      library.page('watchlist', user, { limit: 6 }, JSON.stringify, 'objects'),
      statistics.json(user),
    ]);
    return render.cached(request, reply, {
      template: 'home',
      sources: [latestBytes, watchlistBytes, allTimeBytes],
      extra: String(year),
      data: () => dashboard(user, year, parsed(latestBytes), parsed(watchlistBytes), parsed(allTimeBytes)),
    });
  });
}

const parsed = <T>(bytes: Buffer): T => JSON.parse(bytes.toString('utf8')) as T;

function dashboard(
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
