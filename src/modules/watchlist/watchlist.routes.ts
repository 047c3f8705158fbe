import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { WatchlistService } from './watchlist.service.js';

// Skeleton: to be completed.
export function watchlistRoutes(_app: App, _deps: { guards: AuthGuards; watchlist: WatchlistService }) {}
