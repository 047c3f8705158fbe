import type { App } from '../../shared/http.js';
import type { WebContext } from './web.plugin.js';

/** Settings → account. */
export function accountRoutes(_app: App, _web: WebContext): void {}
