import type { App } from '../../shared/http.js';
import { MEDIA_SERVER_KEYS, namesOf } from '../scrobble/media-servers.js';
import { barChart, monthBar } from './charts.js';
import { todayFor } from './play-form.js';
import { movieCard } from './view-models.js';
import { formatDay, hoursOf } from './web.format.js';
import type { WebContext } from './web.plugin.js';

/**
 * `/`: the first-run setup while nobody has an account, the sign-in page for strangers, and the
 * dashboard otherwise: the latest plays, this year's and all-time totals, the top of the watchlist and
 * the way to log a play.
 */
export function homeRoutes(app: App, web: WebContext): void {
  const { users, render, library, statistics, clock } = web;

  app.get('/', async (request, reply) => {
    if (!request.signedIn) {
      return reply.redirect((await users.count()) === 0 ? '/setup' : '/login', 303);
    }
    const { user } = request.signedIn;
    const year = Number(todayFor(clock.now(), user.timezone).slice(0, 4));
    // One statistics object, all time (computed again in the background after each change): this
    // year's figures are its year's, the chart its last 12 months.
    const [latest, watchlist, allTime] = await Promise.all([
      library.cachedList('history', user, { limit: 12 }),
      library.cachedList('watchlist', user, { limit: 6 }),
      statistics.forUser(user),
    ]);
    const thisYear = allTime.playsPerYear.find((entry) => entry.year === year) ?? {
      plays: 0,
      minutesWatched: 0,
    };
    return render(request, reply, 'home', {
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
    });
  });
}
