import type { App } from '../../shared/http.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { PlayedService } from './played.service.js';

// Skeleton: to be completed.
export function playedRoutes(_app: App, _deps: { guards: AuthGuards; played: PlayedService }) {}
