import type { App } from '../../shared/http.js';
import type { WebContext } from './web.plugin.js';

/** Settings → integrations. */
export function integrationRoutes(_app: App, _web: WebContext): void {}
