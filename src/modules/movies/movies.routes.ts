import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { MoviesService } from './movies.service.js';

// Skeleton: to be completed (POST /movies/add, GET /movies/search).
export function moviesRoutes(_app: App, _deps: { guards: AuthGuards; movies: MoviesService }) {}
