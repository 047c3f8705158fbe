import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import {
  HistoryAddBody,
  HistoryDeleteBody,
  HistoryPage,
  HistoryQuery,
  HistoryReplaceBody,
} from './history.schemas.js';

const route = { path: '/users/:username/history/movies', tag: 'history' };

export function historyRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  listRoute(app, deps, {
    ...route,
    summary: "A user's dated watch entries, most recent first",
    list: 'history',
    querystring: HistoryQuery,
    response: HistoryPage,
    body: (page) => ({ watchlist: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'POST',
    summary: 'Add plays to the given watch dates (created if needed)',
    body: HistoryAddBody,
    apply: (lib, items) =>
      lib.addPlays(
        items.map((item) => ({
          movieId: item.serviceId,
          watchedAt: item.watchedAt,
          plays: item.plays ?? 1,
          comment: item.comment ?? null,
          position: item.position ?? 1,
        })),
      ),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'PUT',
    summary: 'Create or replace plays, comment and position of the given watch dates',
    body: HistoryReplaceBody,
    apply: (lib, items) =>
      lib.replacePlays(
        items.map((item) => ({
          movieId: item.serviceId,
          watchedAt: item.watchedAt,
          plays: item.plays,
          comment: item.comment ?? null,
          position: item.position ?? 1,
        })),
      ),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'DELETE',
    summary: 'Delete the given watch dates; an item without watchedAt deletes all of that movie',
    body: HistoryDeleteBody,
    apply: (lib, items) =>
      lib.deleteDates(
        items.map((item) => ({
          movieId: item.serviceId,
          dates: item.watchedAt === undefined ? undefined : [item.watchedAt],
        })),
      ),
  });
}
