import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { backupSqlite } from '../../db/backup.js';
import type { JobHandlers, Schedule } from '../../jobs/runner.js';
import type { Clock } from '../../shared/clock.js';

/** A scheduled backup of the SQLite database into BACKUP_DIR (only with BACKUP_DIR set). */
export const BACKUP_DATABASE = 'database.backup';

/** The scheduled backups' names: their time (UTC) sorts them. Other files in BACKUP_DIR are never touched. */
const SCHEDULED_NAME = /^cinelog-\d{8}-\d{6}Z\.sqlite$/;

export const scheduledBackupName = (at: Date) =>
  `cinelog-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, 'Z')}.sqlite`;

/** Deletes the oldest scheduled backups in `dir` past the newest `keep`; returns the names deleted. */
export function pruneBackups(dir: string, keep: number): string[] {
  const names = readdirSync(dir)
    .filter((name) => SCHEDULED_NAME.test(name))
    .sort()
    .reverse();
  const old = names.slice(keep);
  for (const name of old) rmSync(join(dir, name), { force: true });
  return old;
}

export function backupJobs(deps: {
  clock: Clock;
  /** The SQLite file of DATABASE_URL. */
  databaseFile: string;
  dir: string;
  keep: number;
  everyHours: number;
}): { handlers: JobHandlers; schedules: Schedule[] } {
  const { clock, databaseFile, keep } = deps;
  const dir = resolve(deps.dir);
  return {
    handlers: {
      [BACKUP_DATABASE]: {
        async run({ progress, signal }) {
          const result = await backupSqlite(databaseFile, join(dir, scheduledBackupName(clock.now())), {
            signal,
            onProgress: ({ copiedPages, totalPages }) => progress(copiedPages, totalPages),
          });
          const removed = pruneBackups(dir, keep);
          return `${result.path} (${result.pages} pages)${removed.length > 0 ? `; deleted ${removed.join(', ')}` : ''}`;
        },
      },
    },
    // The first a quarter of an hour after the first start with BACKUP_DIR, then every BACKUP_INTERVAL_HOURS.
    schedules: [{ kind: BACKUP_DATABASE, everyMs: deps.everyHours * 3_600_000, firstAfterMs: 15 * 60_000 }],
  };
}
