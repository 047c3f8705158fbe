import type { App } from '../../../shared/http.js';
import { currentUser, requireAdmin, requireSignIn } from '../shell/web.context.js';
import { formatDateTime } from '../shell/web.format.js';
import type { WebContext } from '../web.deps.js';

/** Settings → status (administrators): is everything cinelog depends on there and working? */
export function statusRoutes(app: App, web: WebContext): void {
  app.get('/settings/status', { preHandler: [requireSignIn, requireAdmin] }, async (request, reply) => {
    const status = await web.status.status();
    const zone = currentUser(request).user.timezone;
    const failures = status.jobs.recentFailures.map((job) => ({
      ...job,
      when: formatDateTime(job.finishedAt ?? job.startedAt ?? job.createdAt, zone),
    }));
    const lastBackup = status.backups?.last ? formatDateTime(status.backups.last.finishedAt, zone) : null;
    return web.render(request, reply, 'status', { title: 'Status', status, failures, lastBackup });
  });
}
