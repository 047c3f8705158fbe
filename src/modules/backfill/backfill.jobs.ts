import type { JobKinds } from '../../jobs/background-jobs.js';
import type { JobContext } from '../../jobs/runner.js';
import type { UsersService } from '../users/users.service.js';
import {
  BACKFILL_JOB,
  BACKFILL_SYNC_JOB,
  type BackfillJobPayload,
  type BackfillService,
  isPermanent,
} from './backfill.service.js';

/** How often the periodic sync looks for connections that are due (their own period is in hours). */
export const SYNC_CHECK_MS = 15 * 60_000;

/**
 * The backfill job: fetches the server's pages (each kept as it arrives, so a restart goes on from the
 * last one), then imports every play in one library write. A failure writes nothing: a wrong token or
 * URL fails at once, a server that is down or slow is tried again (3 runs in all), going on from the
 * pages it has.
 */
export function backfillJobs(deps: { backfill: BackfillService; users: UsersService }): JobKinds {
  const { backfill, users } = deps;
  return {
    handlers: {
      [BACKFILL_JOB]: {
        async run(job: JobContext<BackfillJobPayload>) {
          const { userId, userName, server, dryRun, periodic } = job.payload;
          const pages = backfill.jobPages(job.id);
          const fail = async (message: string) => {
            await pages.clear();
            const result = await backfill
              .recordResult(userId, server, { error: message, periodic })
              .catch(() => ({ error: message, periodic }));
            return JSON.stringify(result);
          };
          const user = await users.findByName(userName);
          if (!user || user.id !== userId) return fail('the user no longer exists');
          let connection: Awaited<ReturnType<BackfillService['savedConnection']>>;
          try {
            connection = await backfill.savedConnection(userId, server);
          } catch (error) {
            // The token cannot be opened (SECRET_KEY changed): it must be entered again.
            return fail(`${(error as Error).message}: replace the token`);
          }
          if (!connection) return fail('the connection was removed');
          try {
            const summary = await backfill.backfill(user, connection, {
              dryRun,
              pages,
              signal: job.signal,
              onFetched: (done, total) => job.progress(done, total),
              onProgress: (done, total) => job.progress(done, total),
            });
            await pages.clear();
            return JSON.stringify(await backfill.recordResult(userId, server, { ...summary, periodic }));
          } catch (error) {
            if (isPermanent(error)) return fail((error as Error).message);
            // The server is down or slow, or TMDB is: tried again, from the pages kept so far.
            if (job.attempt >= job.maxAttempts && !job.signal.aborted) await fail((error as Error).message);
            throw error;
          }
        },
      },
      [BACKFILL_SYNC_JOB]: {
        async run() {
          const queued = await backfill.queueDueSyncs();
          return JSON.stringify({ queued });
        },
      },
    },
    schedules: [{ kind: BACKFILL_SYNC_JOB, everyMs: SYNC_CHECK_MS, firstAfterMs: 60_000 }],
  };
}
