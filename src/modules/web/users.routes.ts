import type { App } from '../../shared/http.js';
import type { WebContext } from './web.plugin.js';

/** Settings → users (admins). */
export function userAdminRoutes(_app: App, _web: WebContext): void {}
