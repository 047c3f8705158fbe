import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import { LikesBody, LikesPage, LikesQuery } from './likes.schemas.js';

const route = { path: '/users/:username/likes/movies', tag: 'likes' };

/** The movies a user likes (a heart, apart from any rating): our own endpoints, shaped like the ratings'. */
export function likesRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  listRoute(app, deps, {
    ...route,
    summary: "A user's liked movies, most recently liked first",
    list: 'likes',
    querystring: LikesQuery,
    response: LikesPage,
    body: (page) => ({ likes: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'PUT',
    summary: 'Like the given movies (one liked already keeps its first likedAt)',
    body: LikesBody,
    apply: (lib, items) => lib.likeMovies(items.map((item) => item.serviceId)),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'DELETE',
    summary: 'Take back the likes of the given movies (a movie not liked is no error)',
    body: LikesBody,
    apply: (lib, items) => lib.unlikeMovies(items.map((item) => item.serviceId)),
  });
}
