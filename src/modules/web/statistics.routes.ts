import { calendarDateIn } from '../../shared/dates.js';
import type { App } from '../../shared/http.js';
import { currentUser, requireSignIn } from './web.context.js';
import type { WebContext } from './web.plugin.js';

const hours = (minutes: number) => Math.round(minutes / 60);

/**
 * `/statistics`: the signed-in user's totals, all time and this year, and each year's plays. The
 * charts, rankings and the year in review build on it (docs/web-app.md).
 */
export function statisticsRoutes(app: App, web: WebContext): void {
  const { library, render, clock } = web;

  app.get('/statistics', { preHandler: requireSignIn }, async (request, reply) => {
    const { user } = currentUser(request);
    const thisYear = Number(calendarDateIn(clock.now(), user.timezone).slice(0, 4));
    const [allTime, year, perYear] = await Promise.all([
      library.totals(user),
      library.totals(user, thisYear),
      library.totalsPerYear(user),
    ]);
    const mostPlays = Math.max(1, ...perYear.map((entry) => entry.plays));
    return render(request, reply, 'statistics', {
      title: 'Statistics',
      thisYear,
      allTime: { ...allTime, hours: hours(allTime.minutes) },
      year: { ...year, hours: hours(year.minutes) },
      years: perYear.map((entry) => ({ ...entry, hours: hours(entry.minutes) })),
      mostPlays,
      undatedPlays: allTime.plays - perYear.reduce((sum, entry) => sum + entry.plays, 0),
    });
  });
}
