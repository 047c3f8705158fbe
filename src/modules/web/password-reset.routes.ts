import type { App } from '../../shared/http.js';
import type { WebContext } from './web.plugin.js';

/** Forgot password and the reset link. */
export function passwordResetRoutes(_app: App, _web: WebContext): void {}
