import { type Kysely, sql } from 'kysely';
import type { Database, JobRow, JobState } from '../db/schema.js';
import { isPostgres } from '../db/transaction.js';

type Db = Kysely<Database>;

/** Adds a job; with a `key`, only when no job of that kind and key is queued or running. Its id, or null. */
export async function insertJob(
  db: Db,
  job: {
    kind: string;
    key: string | null;
    payload: string;
    maxAttempts: number;
    runAt: string;
    now: string;
    userId?: number | null | undefined;
  },
): Promise<number | null> {
  const row = await db
    .insertInto('jobs')
    .values({
      kind: job.kind,
      key: job.key,
      payload: job.payload,
      state: 'queued',
      max_attempts: job.maxAttempts,
      run_at: job.runAt,
      created_at: job.now,
      user_id: job.userId ?? null,
    })
    // The partial unique index's own predicate, as literals: SQLite matches the conflict target by its text.
    .onConflict((oc) =>
      oc.columns(['kind', 'key']).where(sql<boolean>`state in ('queued', 'running')`).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Claims the next due job of these kinds for `owner` until `lockedUntil`: a queued one whose time has
 * come, or a running one whose claimer stopped renewing its lease (a process that died). One statement;
 * on PostgreSQL the row is taken with FOR UPDATE SKIP LOCKED, so instances never claim the same job.
 */
export async function claimJob(
  db: Db,
  claim: { kinds: readonly string[]; owner: string; now: string; lockedUntil: string },
): Promise<JobRow | undefined> {
  if (claim.kinds.length === 0) return undefined;
  let due = db
    .selectFrom('jobs')
    .select('id')
    .where('kind', 'in', claim.kinds)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', claim.now)]),
        eb.and([eb('state', '=', 'running'), eb('locked_until', '<', claim.now)]),
      ]),
    )
    .orderBy('run_at')
    .orderBy('id')
    .limit(1);
  if (isPostgres(db)) due = due.forUpdate().skipLocked();
  return db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      locked_by: claim.owner,
      locked_until: claim.lockedUntil,
      attempts: eb('attempts', '+', 1),
      started_at: eb.fn.coalesce('started_at', eb.val(claim.now)),
    }))
    .where('id', '=', (eb) => eb.selectFrom(due.as('due')).select('due.id'))
    .returningAll()
    .executeTakeFirst();
}

/** Extends the lease of a job this owner runs; false when it is no longer theirs. */
export async function renewLease(
  db: Db,
  id: number,
  owner: string,
  lockedUntil: string,
  progress?: { done: number; total: number | null },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      locked_until: lockedUntil,
      ...(progress && { progress_done: progress.done, progress_total: progress.total }),
    })
    .where('id', '=', id)
    .where('locked_by', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends a run of a job this owner holds: done, queued again for a later attempt, or failed for good. */
export async function finishJob(
  db: Db,
  id: number,
  owner: string,
  outcome:
    | { state: 'done'; result: string | null; now: string }
    | { state: 'queued'; error: string; runAt: string; now: string }
    | { state: 'failed'; error: string; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      state: outcome.state,
      locked_by: null,
      locked_until: null,
      ...(outcome.state === 'done' && { result: outcome.result, error: null, finished_at: outcome.now }),
      ...(outcome.state === 'queued' && { error: outcome.error, run_at: outcome.runAt }),
      ...(outcome.state === 'failed' && { error: outcome.error, finished_at: outcome.now }),
    })
    .where('id', '=', id)
    .where('locked_by', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a job back unfinished (the runner stops): queued again at once, the attempt not counted. */
export async function releaseJob(db: Db, id: number, owner: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({ state: 'queued', locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', '=', id)
    .where('locked_by', '=', owner)
    .where('state', '=', 'running')
    .execute();
}

/** The most recent jobs, newest first. */
/** The job with this id and kind, if there is one (still kept). */
export function findJob(db: Db, id: number, kind: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst();
}

export function listJobs(db: Db, limit: number, kind?: string, userId?: number): Promise<JobRow[]> {
  let query = db.selectFrom('jobs').selectAll();
  if (kind !== undefined) query = query.where('kind', '=', kind);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** A user's jobs of a kind that are queued or running. */
export async function countPendingJobsOf(db: Db, kind: string, userId: number): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('kind', '=', kind)
    .where('user_id', '=', userId)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Jobs of these kinds due now (queued and their time has come, or running with a dead lease). */
export async function countDueJobs(db: Db, kinds: readonly string[], now: string): Promise<number> {
  if (kinds.length === 0) return 0;
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('kind', 'in', kinds)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
        eb.and([eb('state', '=', 'running'), eb('locked_until', '<', now)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Forgets finished jobs older than `before`. */
export async function deleteFinishedJobs(db: Db, before: string): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where('state', 'in', ['done', 'failed'])
    .where('finished_at', '<', before)
    .execute();
}

/** How many jobs are in each state. */
export async function countJobsByState(db: Db): Promise<Record<JobState, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['state', eb.fn.countAll<number | string>().as('count')])
    .groupBy('state')
    .execute();
  const counts: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
  for (const row of rows) counts[row.state] = Number(row.count);
  return counts;
}
