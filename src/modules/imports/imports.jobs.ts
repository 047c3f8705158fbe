import { rm } from 'node:fs/promises';
import type { JobKinds } from '../../jobs/background-jobs.js';
import type { JobContext } from '../../jobs/runner.js';
import type { UsersService } from '../users/users.service.js';
import type { ImportsService } from './import.service.js';
import { IMPORT_JOB, ImportFileError, type ImportJobPayload } from './import.types.js';

export { IMPORT_JOB, type ImportJobPayload };

import type { ImportUploads } from './import-uploads.js';

/** Removes uploads that no job waits for any more (a crash between receiving and queueing). */
export const IMPORT_SWEEP_JOB = 'library.import-sweep';

export function importJobs(deps: {
  imports: ImportsService;
  users: UsersService;
  uploads: ImportUploads;
}): JobKinds {
  const { imports, users } = deps;
  return {
    handlers: {
      [IMPORT_JOB]: {
        async run(job: JobContext<ImportJobPayload>) {
          const { userId, userName, format, dir, dryRun } = job.payload;
          const removeUpload = () => rm(dir, { recursive: true, force: true });
          const user = await users.findByName(userName);
          if (!user || user.id !== userId) {
            await removeUpload();
            return JSON.stringify({ error: 'the user no longer exists' });
          }
          try {
            const summary = await imports.importPath(format, user, dir, {
              dryRun,
              onProgress: (done, total) => job.progress(done, total),
            });
            await removeUpload();
            // Small: the counts cover every row, the lists name the first ROWS_LISTED.
            return JSON.stringify(summary);
          } catch (error) {
            // A file that cannot be imported fails the same way every time: no retry. Any other
            // failure (TMDB down) is tried again, and the upload kept until the last try.
            if (error instanceof ImportFileError) {
              await removeUpload();
              return JSON.stringify({ error: error.message });
            }
            if (job.attempt >= job.maxAttempts) await removeUpload();
            throw error;
          }
        },
      },
      [IMPORT_SWEEP_JOB]: {
        async run() {
          const removed = await deps.uploads.sweep();
          return JSON.stringify({ removed });
        },
      },
    },
    schedules: [{ kind: IMPORT_SWEEP_JOB, everyMs: 6 * 3_600_000, firstAfterMs: 60_000 }],
  };
}
