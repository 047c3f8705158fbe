import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import { RatingsDeleteBody, RatingsPage, RatingsQuery, RatingsSetBody } from './ratings.schemas.js';

const route = { path: '/users/:username/ratings/movies', tag: 'ratings' };

/** The user's 1-10 ratings of movies: our own endpoints (the spec's Movie carries `userRating` only). */
export function ratingsRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  listRoute(app, deps, {
    ...route,
    summary: "A user's rated movies, most recently rated first",
    list: 'ratings',
    querystring: RatingsQuery,
    response: RatingsPage,
    body: (page) => ({ ratings: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'PUT',
    summary: 'Set or replace ratings (1-10) of the given movies',
    body: RatingsSetBody,
    apply: (lib, items) =>
      lib.setRatings(items.map((item) => ({ movieId: item.serviceId, rating: item.rating }))),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'DELETE',
    summary: 'Delete the ratings of the given movies (a movie not rated is no error)',
    body: RatingsDeleteBody,
    apply: (lib, items) => lib.clearRatings(items.map((item) => item.serviceId)),
  });
}
