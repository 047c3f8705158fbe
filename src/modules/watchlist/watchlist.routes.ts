import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import { WatchlistBody, WatchlistPage, WatchlistQuery } from './watchlist.schemas.js';

const route = { path: '/users/:username/watchlist/movies', tag: 'watchlist' };

export function watchlistRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  listRoute(app, deps, {
    ...route,
    summary: "A user's watchlist, most recently added first",
    list: 'watchlist',
    querystring: WatchlistQuery,
    response: WatchlistPage,
    body: (page) => ({ watchlist: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'POST',
    summary: 'Add movies to the watchlist (one already there keeps its added date)',
    body: WatchlistBody,
    apply: (lib, items) => lib.addToWatchlist(items.map((item) => item.serviceId)),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'DELETE',
    summary: 'Remove movies from the watchlist (one not on it is ignored)',
    body: WatchlistBody,
    apply: (lib, items) => lib.removeFromWatchlist(items.map((item) => item.serviceId)),
  });
}
