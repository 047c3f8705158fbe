import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, JobRow } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import type { Clock } from '../shared/clock.js';
import { isoString } from '../shared/dates.js';
import {
  claimJob,
  countDueJobs,
  deleteFinishedJobs,
  finishJob,
  insertJob,
  releaseJob,
  renewLease,
} from './jobs.repository.js';
import { DEFAULT_MAX_ATTEMPTS, type JobQueue } from './queue.js';

/** What a handler is given for one run of a job. */
export interface JobContext<P = unknown> {
  id: number;
  payload: P;
  /** 1 for the first run, 2 for the first retry... */
  attempt: number;
  /** The runs it may have: a throw on the last one fails the job for good. */
  maxAttempts: number;
  /** Reports progress, `done` of `total` (null: unknown). Cheap to call often: written at most once a second. */
  progress(done: number, total?: number | null): void;
  /** Aborted when the runner stops: a long handler should end early, its job is then queued again. */
  signal: AbortSignal;
}

/** The work of one kind of job. */
export interface JobHandler<P = unknown> {
  /** Does the job; a string it returns is kept as its outcome. A throw is retried with backoff. */
  run(job: JobContext<P>): Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: each handler narrows its own payload
export type JobHandlers = Record<string, JobHandler<any>>;

/** A job that comes back by itself: after each run, done or failed, the next is queued `everyMs` later. */
export interface Schedule {
  kind: string;
  everyMs: number;
  /** Before the first run ever, wait this long after start (default: at once). */
  firstAfterMs?: number;
}

export interface RunnerOptions {
  /** Jobs this runner runs at once; 0 runs none. */
  concurrency: number;
  /** How often an idle runner looks for due jobs (other instances' enqueues, retries coming due). */
  pollMs?: number;
  /** How long a claim holds without renewal: a job whose runner died is claimed again after it. */
  leaseMs?: number;
  /** How long stop() waits for running jobs before it gives them back to the queue. */
  stopGraceMs?: number;
  /** Finished jobs are forgotten after this long. */
  keepMs?: number;
}

const DEFAULTS = {
  pollMs: 5_000,
  leaseMs: 60_000,
  stopGraceMs: 10_000,
  keepMs: 30 * 86_400_000,
} as const;

/** The wait before the next attempt of a failed job: 30 s, 1 min, 2 min... at most an hour. */
export const backoffMs = (attempt: number) => Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempt - 1));

/** The key of a schedule's pending job: one per kind. */
const SCHEDULE_KEY = 'schedule';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/**
 * Runs queued jobs in this process, up to `concurrency` at once. Claims are leases renewed while a job
 * runs: a job is never run twice at once, also when several instances share one PostgreSQL database,
 * and a job whose process died is taken up again once its lease has run out.
 */
export class JobRunner {
  readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly #options: Required<RunnerOptions>;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #stopping = false;
  #claiming = false;
  #again = false;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: Clock;
      handlers: JobHandlers;
      queue: JobQueue;
      schedules?: readonly Schedule[];
      log?: { error(object: object, message: string): void; info?(object: object, message: string): void };
    },
    options: RunnerOptions,
  ) {
    this.#options = { ...DEFAULTS, ...options };
  }

  get kinds(): string[] {
    return Object.keys(this.deps.handlers);
  }

  /** Starts running jobs in the background (nothing with concurrency 0), and queues the schedules' first runs. */
  async start(): Promise<void> {
    if (this.#options.concurrency <= 0 || this.#started) return;
    this.#started = true;
    await this.#ensureSchedules();
    this.wake();
  }

  /** Looks for due jobs now (after an enqueue in this process) instead of at the next poll. */
  wake(): void {
    if (!this.#started || this.#stopping) return;
    void this.#fill();
  }

  /**
   * Stops claiming, asks running jobs to stop (their signal aborts), waits for them up to the grace
   * period, and gives back to the queue any still running, so that another runner takes them up.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    // A claim under way ends first (its job given back): nothing starts after stop().
    await this.#filling;
    for (const { controller } of this.#running.values()) controller.abort();
    const all = Promise.all([...this.#running.values()].map((run) => run.done));
    const grace = new Promise((resolve) => setTimeout(resolve, this.#options.stopGraceMs).unref());
    await Promise.race([all, grace]);
    for (const id of this.#running.keys()) await releaseJob(this.deps.db, id, this.owner);
  }

  /**
   * For `cinelog jobs run`: runs due jobs one after the other until none is due, each reported to
   * `onJob` (and its progress to `onProgress`). Jobs queued for later (retries, schedules) stay queued.
   */
  async runUntilEmpty(
    hooks: {
      /** Only jobs of these kinds (default: every kind this runner has a handler for). */
      kinds?: readonly string[];
      onJob?: (job: JobRow) => void;
      onProgress?: (done: number, total: number | null) => void;
      onFinish?: (job: JobRow, outcome: { ok: boolean; message: string | null }) => void;
    } = {},
  ): Promise<{ done: number; failed: number }> {
    const counts = { done: 0, failed: 0 };
    for (;;) {
      const job = await this.#claim(hooks.kinds);
      if (!job) return counts;
      hooks.onJob?.(job);
      const outcome = await this.#run(job, new AbortController(), hooks.onProgress);
      counts[outcome.ok ? 'done' : 'failed'] += 1;
      hooks.onFinish?.(job, outcome);
    }
  }

  /** Jobs of this runner's kinds that are due now. */
  dueCount(): Promise<number> {
    return countDueJobs(this.deps.db, this.kinds, this.#now());
  }

  #now(offsetMs = 0): string {
    return isoString(this.deps.clock.now().getTime() + offsetMs);
  }

  #claim(kinds: readonly string[] = this.kinds): Promise<JobRow | undefined> {
    return claimJob(this.deps.db, {
      kinds: kinds.filter((kind) => this.deps.handlers[kind] !== undefined),
      owner: this.owner,
      now: this.#now(),
      lockedUntil: this.#now(this.#options.leaseMs),
    });
  }

  /** The claiming under way, if any: stop() waits for it, so that nothing is claimed after it. */
  #filling: Promise<void> | null = null;

  /** Claims jobs while there is room; then sleeps until the next poll. One filler at a time. */
  #fill(): Promise<void> {
    if (this.#claiming) {
      this.#again = true;
      return Promise.resolve();
    }
    this.#filling = this.#claimWhileRoom();
    return this.#filling;
  }

  async #claimWhileRoom(): Promise<void> {
    this.#claiming = true;
    try {
      do {
        this.#again = false;
        while (!this.#stopping && this.#running.size < this.#options.concurrency) {
          const job = await this.#claim();
          if (!job) break;
          if (this.#stopping) {
            // stop() began while this claim was under way: the job goes back to the queue unrun.
            await releaseJob(this.deps.db, job.id, this.owner);
            break;
          }
          const controller = new AbortController();
          const done = this.#run(job, controller).then(() => {
            this.#running.delete(job.id);
            this.wake();
          });
          this.#running.set(job.id, { controller, done });
        }
      } while (this.#again && !this.#stopping);
    } catch (error) {
      this.deps.log?.error({ err: error }, 'jobs: claiming failed');
    } finally {
      this.#claiming = false;
      this.#filling = null;
      this.#schedulePoll();
    }
  }

  #schedulePoll(): void {
    if (this.#stopping) return;
    if (this.#timer) clearTimeout(this.#timer);
    // Unref'd: an idle runner keeps no process alive.
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#cleanUp();
      void this.#fill();
    }, this.#options.pollMs).unref();
  }

  #lastCleanUp = 0;
  async #cleanUp(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.#lastCleanUp < 3_600_000) return;
    this.#lastCleanUp = now;
    try {
      await deleteFinishedJobs(this.deps.db, isoString(now - this.#options.keepMs));
    } catch (error) {
      this.deps.log?.error({ err: error }, 'jobs: cleaning up failed');
    }
  }

  /** Runs one claimed job to its end, renewing its lease meanwhile; never throws. */
  async #run(
    job: JobRow,
    controller: AbortController,
    onProgress?: (done: number, total: number | null) => void,
  ): Promise<{ ok: boolean; message: string | null }> {
    const { db } = this.deps;
    const handler = this.deps.handlers[job.kind];
    let progress: { done: number; total: number | null } | undefined;
    let written = 0;
    let lost = false;
    const renew = async () => {
      const ok = await renewLease(db, job.id, this.owner, this.#now(this.#options.leaseMs), progress);
      if (!ok && !lost) {
        // Another runner holds it now (this one stalled past its lease): stop, write nothing more.
        lost = true;
        controller.abort();
      }
    };
    const heartbeat = setInterval(() => void renew().catch(() => undefined), this.#options.leaseMs / 4);
    heartbeat.unref();
    try {
      if (!handler) throw new Error(`no handler for jobs of kind ${job.kind}`);
      const result = await handler.run({
        id: job.id,
        payload: JSON.parse(job.payload) as unknown,
        attempt: job.attempts,
        maxAttempts: job.max_attempts,
        signal: controller.signal,
        progress: (done, total = null) => {
          progress = { done, total };
          onProgress?.(done, total);
          const now = Date.now();
          if (now - written >= 1_000) {
            written = now;
            void renew().catch(() => undefined);
          }
        },
      });
      if (lost) return { ok: false, message: 'lost its claim' };
      if (controller.signal.aborted && this.#stopping) {
        // Stopped early on shutdown: back to the queue, for this or another instance to run again.
        await releaseJob(db, job.id, this.owner);
        return { ok: false, message: 'stopped' };
      }
      if (progress) await renewLease(db, job.id, this.owner, this.#now(this.#options.leaseMs), progress);
      await this.#finish(job, {
        state: 'done',
        // Kept whole: a result is JSON its reader parses (an import's summary), and its handler keeps it small.
        result: typeof result === 'string' ? result : null,
        now: this.#now(),
      });
      return { ok: true, message: typeof result === 'string' ? result : null };
    } catch (error) {
      if (lost || (controller.signal.aborted && this.#stopping))
        return { ok: false, message: messageOf(error) };
      const message = messageOf(error);
      const retry = job.attempts < job.max_attempts;
      this.deps.log?.error(
        { jobId: job.id, kind: job.kind, attempt: job.attempts, error: message },
        'job failed',
      );
      await this.#finish(
        job,
        retry
          ? { state: 'queued', error: message, runAt: this.#now(backoffMs(job.attempts)), now: this.#now() }
          : { state: 'failed', error: message, now: this.#now() },
      ).catch((finishError: unknown) =>
        this.deps.log?.error({ err: finishError }, 'jobs: recording a failure failed'),
      );
      return { ok: false, message };
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Records how a run ended. A scheduled kind that is done (or failed for good) gets its next run in
   * the same transaction: at no moment is none pending, so a runner starting meanwhile adds none.
   */
  async #finish(job: JobRow, outcome: Parameters<typeof finishJob>[3]): Promise<void> {
    const schedule =
      outcome.state === 'queued' ? undefined : this.deps.schedules?.find((s) => s.kind === job.kind);
    await inTransaction(this.deps.db, async (trx) => {
      const finished = await finishJob(trx, job.id, this.owner, outcome);
      if (!finished || !schedule) return;
      await insertJob(trx, {
        kind: job.kind,
        key: SCHEDULE_KEY,
        payload: 'null',
        maxAttempts: DEFAULT_MAX_ATTEMPTS,
        runAt: this.#now(schedule.everyMs),
        now: this.#now(),
      });
    });
  }

  /** Queues each schedule's next run unless one is pending (every instance asks; the key keeps one). */
  async #ensureSchedules(): Promise<void> {
    for (const schedule of this.deps.schedules ?? []) {
      if (!this.deps.handlers[schedule.kind]) continue;
      await this.deps.queue.enqueue(schedule.kind, null, {
        key: SCHEDULE_KEY,
        runAt: new Date(this.deps.clock.now().getTime() + (schedule.firstAfterMs ?? 0)),
      });
    }
  }
}
