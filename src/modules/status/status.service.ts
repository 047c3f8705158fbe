import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Database, JobState } from '../../db/schema.js';
import { isPostgres } from '../../db/transaction.js';
import type { TmdbClient } from '../../integrations/tmdb/tmdb.types.js';
import type { JobQueue, JobView } from '../../jobs/queue.js';
import { packageRoot } from '../../shared/paths.js';
import { BACKUP_DATABASE } from '../backups/backups.jobs.js';

/** How long the status page waits for TMDB before it calls it unreachable. */
const TMDB_PING_MS = 5_000;

/** What an administrator's status page shows: is everything cinelog depends on there and working? */
export interface SystemStatus {
  version: string;
  node: string;
  database: { engine: 'SQLite' | 'PostgreSQL'; ok: boolean };
  /** TMDB: whether TMDB_API_KEY is set, and whether TMDB answered with it just now. */
  tmdb: { configured: boolean; reachable: boolean | null; latencyMs: number | null; error: string | null };
  jobs: { concurrency: number; counts: Record<JobState, number>; recentFailures: JobView[] };
  imdbDailyDownload: boolean;
  /** Scheduled backups (BACKUP_DIR): null when off; the last one done, when there was one in the last 30 days. */
  backups: {
    dir: string;
    keep: number;
    everyHours: number;
    last: { finishedAt: string; result: string | null } | null;
  } | null;
}

export interface StatusService {
  /** Checks every dependency now (TMDB included: up to 5 s). */
  status(): Promise<SystemStatus>;
  /** Whether TMDB_API_KEY is set (cheap: no request). */
  readonly tmdbConfigured: boolean;
}

export function createStatusService(deps: {
  db: Kysely<Database>;
  config: Config;
  tmdb: TmdbClient | null;
  queue: JobQueue;
}): StatusService {
  const { db, config, tmdb, queue } = deps;
  const version = String(
    (
      JSON.parse(readFileSync(join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as {
        version: unknown;
      }
    ).version,
  );

  const pingTmdb = async (): Promise<SystemStatus['tmdb']> => {
    if (!tmdb) return { configured: false, reachable: null, latencyMs: null, error: null };
    const started = performance.now();
    try {
      await Promise.race([
        tmdb.ping(),
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new Error(`no answer within ${TMDB_PING_MS / 1000} s`)),
            TMDB_PING_MS,
          ).unref(),
        ),
      ]);
      return {
        configured: true,
        reachable: true,
        latencyMs: Math.round(performance.now() - started),
        error: null,
      };
    } catch (error) {
      return {
        configured: true,
        reachable: false,
        latencyMs: null,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  };

  const databaseOk = async () => {
    try {
      await sql`select 1`.execute(db);
      return true;
    } catch {
      return false;
    }
  };

  return {
    tmdbConfigured: tmdb !== null,

    async status() {
      const [tmdbStatus, ok, counts, recent] = await Promise.all([
        pingTmdb(),
        databaseOk(),
        queue.counts(),
        queue.recent(200),
      ]);
      return {
        version,
        node: process.version,
        database: { engine: isPostgres(db) ? 'PostgreSQL' : 'SQLite', ok },
        tmdb: tmdbStatus,
        jobs: {
          concurrency: config.jobsConcurrency,
          counts,
          recentFailures: recent.filter((job) => job.error !== null).slice(0, 5),
        },
        imdbDailyDownload: config.imdbRatingsUrl !== null,
        backups: config.backupDir
          ? {
              dir: config.backupDir,
              keep: config.backupKeep,
              everyHours: config.backupIntervalHours,
              last: lastBackup(recent),
            }
          : null,
      };
    },
  };
}

function lastBackup(recent: readonly JobView[]): { finishedAt: string; result: string | null } | null {
  const done = recent.find((job) => job.kind === BACKUP_DATABASE && job.state === 'done' && job.finishedAt);
  return done ? { finishedAt: done.finishedAt!, result: done.result } : null;
}
