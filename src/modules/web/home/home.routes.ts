import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { dashboardPage } from './home.page.js';

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
    // The statistics are all time (computed again in the background after each change). The page is
    // kept whole while these three cached sources and the year stand (Renderer.cached).
    const [latestBytes, watchlistBytes, allTimeBytes] = await Promise.all([
      library.page('history', user, { limit: 12 }, JSON.stringify, 'objects'),
      library.page('watchlist', user, { limit: 6 }, JSON.stringify, 'objects'),
      statistics.json(user),
    ]);
    return render.cached(request, reply, {
      template: 'home',
      sources: [latestBytes, watchlistBytes, allTimeBytes],
      extra: String(year),
      data: () =>
        dashboardPage(user, year, parsed(latestBytes), parsed(watchlistBytes), parsed(allTimeBytes)),
    });
  });
}

const parsed = <T>(bytes: Buffer): T => JSON.parse(bytes.toString('utf8')) as T;
