import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import {
  PlayedAddBody,
  PlayedDeleteBody,
  PlayedPage,
  PlayedQuery,
  PlayedReplaceBody,
} from './played.schemas.js';

const route = { path: '/users/:username/played/movies', tag: 'played' };

type PlayedItems = {
  serviceId: number;
  watchDates: { watchedAt: string | null; plays?: number; comment?: string | null }[];
}[];

/** A played body's entries (no position: played writes keep a stored entry's, a new one gets 1). */
const entriesOf = (items: PlayedItems) =>
  items.flatMap((item) =>
    item.watchDates.map((date) => ({
      movieId: item.serviceId,
      watchedAt: date.watchedAt,
      plays: date.plays ?? 1,
      comment: date.comment ?? null,
    })),
  );
const movieIdsOf = (items: PlayedItems) => items.map((item) => item.serviceId);

export function playedRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  listRoute(app, deps, {
    ...route,
    summary: 'Every movie a user has played, with all its watch dates; by title by default',
    list: 'played',
    querystring: PlayedQuery,
    response: PlayedPage,
    body: (page) => ({ played: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'POST',
    summary: 'Add plays to the given watch dates (created if needed; null is the unknown date)',
    body: PlayedAddBody,
    apply: (lib, items) => lib.addPlays(entriesOf(items), movieIdsOf(items)),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'PUT',
    summary: 'Create or replace plays and comment of the given watch dates; other dates stay',
    body: PlayedReplaceBody,
    apply: (lib, items) => lib.replacePlays(entriesOf(items), movieIdsOf(items)),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'DELETE',
    summary: 'Delete the given watch dates; without (or with an empty) watchDates, every date of the movie',
    body: PlayedDeleteBody,
    apply: (lib, items) =>
      lib.deleteDates(items.map((item) => ({ movieId: item.serviceId, dates: item.watchDates }))),
  });
}
