import type { App } from '../../../shared/http.js';
import { currentUser, requireAdmin, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { statusPage } from './status.page.js';

/** The services these pages use. */
export type StatusDeps = Pick<WebDeps, 'status'>;

/** Settings → status (administrators): is everything cinelog depends on there and working? */
export function statusRoutes(app: App, { render }: Pages, deps: StatusDeps): void {
  app.get('/settings/status', { preHandler: [requireSignIn, requireAdmin] }, async (request, reply) => {
    const status = await deps.status.status();
    return render(request, reply, 'status', statusPage(status, currentUser(request).user.timezone));
  });
}
