import type { Kysely } from 'kysely';
import type { Database, JobRow, JobState } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { isoString } from '../shared/dates.js';
import { countJobsByState, countPendingJobsOf, findJob, insertJob, listJobs } from './jobs.repository.js';

/** A job as `cinelog jobs list` and the pages show it. */
export interface JobView {
  id: number;
  kind: string;
  key: string | null;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  /** When a queued job may run next. */
  runAt: string;
  progress: { done: number; total: number | null } | null;
  result: string | null;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface EnqueueOptions {
  /** At most one queued or running job per kind and key: enqueueing it again while one is pending is a no-op. */
  key?: string;
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Runs after which a failing job is given up (default 5). */
  maxAttempts?: number;
  /** The user whose job it is (an import): their jobs are counted and listed by it. */
  userId?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/** Adds work for the background job runners (src/jobs/runner.ts), in the database: it survives restarts. */
export interface JobQueue {
  /** The job's id, or null when a job of this kind and key is already pending. */
  enqueue(kind: string, payload: unknown, options?: EnqueueOptions): Promise<number | null>;
  /** The most recent jobs (of one kind, when given), newest first. */
  recent(limit?: number, kind?: string): Promise<JobView[]>;
  /** The most recent jobs of a kind with their payloads, newest first; only the user's with `userId`. */
  recentWithPayload(
    kind: string,
    limit: number,
    userId?: number,
  ): Promise<(JobView & { payload: unknown })[]>;
  /** How many of the user's jobs of a kind are queued or running. */
  pendingOf(kind: string, userId: number): Promise<number>;
  /** The job with this id and kind, with its payload; null when there is none (or it was forgotten). */
  find(id: number, kind: string): Promise<(JobView & { payload: unknown }) | null>;
  /** How many jobs are queued, running, done and failed (finished ones are kept 30 days). */
  counts(): Promise<Record<JobState, number>>;
}

export function createJobQueue(deps: {
  db: Kysely<Database>;
  clock: Clock;
  /** Called after each enqueue: this process's runner looks at once instead of at its next poll. */
  onEnqueue?: () => void;
}): JobQueue {
  const { db, clock } = deps;
  return {
    async enqueue(kind, payload, options = {}) {
      const now = clock.now();
      const id = await insertJob(db, {
        kind,
        key: options.key ?? null,
        payload: JSON.stringify(payload ?? null),
        maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        runAt: isoString((options.runAt ?? now).getTime()),
        now: isoString(now.getTime()),
        userId: options.userId,
      });
      if (id !== null) deps.onEnqueue?.();
      return id;
    },

    async recent(limit = 50, kind) {
      return (await listJobs(db, limit, kind)).map(toJobView);
    },

    async recentWithPayload(kind, limit, userId) {
      return (await listJobs(db, limit, kind, userId)).map((row) => ({
        ...toJobView(row),
        payload: JSON.parse(row.payload),
      }));
    },

    async find(id, kind) {
      const row = await findJob(db, id, kind);
      return row ? { ...toJobView(row), payload: JSON.parse(row.payload) } : null;
    },

    pendingOf: (kind, userId) => countPendingJobsOf(db, kind, userId),

    counts: () => countJobsByState(db),
  };
}

export const toJobView = (row: JobRow): JobView => ({
  id: row.id,
  kind: row.kind,
  key: row.key,
  state: row.state,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  runAt: row.run_at,
  progress: row.progress_done === null ? null : { done: row.progress_done, total: row.progress_total },
  result: row.result,
  error: row.error,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});
