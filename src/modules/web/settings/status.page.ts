import type { SystemStatus } from '../../status/status.service.js';
import { formatDateTime } from '../shell/format.js';

/**
 * Settings → status: what the status service found, with the failed jobs' and the last backup's
 * times in the administrator's time zone (`timeZone`). Pure: the status in, the template's data out.
 */
export function statusPage(status: SystemStatus, timeZone: string) {
  const failures = status.jobs.recentFailures.map((job) => ({
    ...job,
    when: formatDateTime(job.finishedAt ?? job.startedAt ?? job.createdAt, timeZone),
  }));
  const lastBackup = status.backups?.last ? formatDateTime(status.backups.last.finishedAt, timeZone) : null;
  return { title: 'Status', status, failures, lastBackup };
}
