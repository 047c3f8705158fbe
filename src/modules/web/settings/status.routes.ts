import type { App } from '../../../shared/http.js';
import { formatDateTime } from '../shell/format.js';
import { currentUser, requireAdmin, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';

/** The services these pages use. */
export type StatusDeps = Pick<WebDeps, 'status'>;

/** Settings → status (administrators): is everything cinelog depends on there and working? */
export function statusRoutes(app: App, { render }: Pages, deps: StatusDeps): void {
  app.get('/settings/status', { preHandler: [requireSignIn, requireAdmin] }, async (request, reply) => {
    const status = await deps.status.status();
    const zone = currentUser(request).user.timezone;
    const failures = status.jobs.recentFailures.map((job) => ({
      ...job,
      when: formatDateTime(job.finishedAt ?? job.startedAt ?? job.createdAt, zone),
    }));
    const lastBackup = status.backups?.last ? formatDateTime(status.backups.last.finishedAt, zone) : null;
    return render(request, reply, 'status', { title: 'Status', status, failures, lastBackup });
  });
}
