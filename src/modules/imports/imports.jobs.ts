import { rm } from 'node:fs/promises';
import type { JobKinds } from '../../jobs/background-jobs.js';
import type { UsersService } from '../users/users.service.js';
import type { ImportsService } from './import.service.js';
import type { ImportFormat } from './import.types.js';

/** An import uploaded through the API, run in the background (docs/imports-exports.md). */
export const IMPORT_JOB = 'library.import';

export interface ImportJobPayload {
  userId: number;
  userName: string;
  format: ImportFormat;
  /** The upload's own folder under IMPORTS_DIR; deleted once imported. */
  dir: string;
  dryRun: boolean;
}

/** The unmatched rows a job keeps in its result (the counts cover all of them). */
const UNMATCHED_KEPT = 500;

export function importJobs(deps: { imports: ImportsService; users: UsersService }): JobKinds {
  const { imports, users } = deps;
  return {
    handlers: {
      [IMPORT_JOB]: {
        async run(job: { payload: ImportJobPayload; progress(done: number, total?: number | null): void }) {
          const { userId, userName, format, dir, dryRun } = job.payload;
          const user = await users.findByName(userName);
          if (!user || user.id !== userId) {
            await rm(dir, { recursive: true, force: true });
            return JSON.stringify({ error: 'the user no longer exists' });
          }
          const summary = await imports.importPath(format, user, dir, {
            dryRun,
            onProgress: (done, total) => job.progress(done, total),
          });
          await rm(dir, { recursive: true, force: true });
          return JSON.stringify({
            ...summary,
            unmatchedRows: summary.unmatchedRows.slice(0, UNMATCHED_KEPT),
          });
        },
      },
    },
    schedules: [],
  };
}
