import type { App } from '../../shared/http.js';
import type { WebContext } from './web.plugin.js';

/** Settings → API tokens. */
export function tokenRoutes(_app: App, _web: WebContext): void {}
