import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { createJobQueue, type JobQueue } from './queue.js';
import { type JobHandlers, JobRunner, type RunnerOptions, type Schedule } from './runner.js';

/** The queue to add jobs to, and this process's runner of them (started by main.ts, or `cinelog jobs run`). */
export interface BackgroundJobs {
  queue: JobQueue;
  runner: JobRunner;
}

/** What each domain contributes: the kinds of job it runs, and the ones that come back by themselves. */
export interface JobKinds {
  handlers: JobHandlers;
  schedules: readonly Schedule[];
}

/**
 * The queue first, then this process's runner of the kinds of job: what queues jobs (import uploads,
 * the image cache) is built with the queue, and the kinds' handlers with what was built.
 */
export function createBackgroundJobs(deps: { db: Kysely<Database>; clock: Clock }): {
  queue: JobQueue;
  /** The runner of these kinds (once). */
  run(
    kinds: readonly JobKinds[],
    options: RunnerOptions,
    log?: { error(object: object, message: string): void },
  ): BackgroundJobs;
} {
  const { db, clock } = deps;
  let runner: JobRunner | undefined;
  // An enqueue in this process wakes its own runner at once; other instances see it at their next poll.
  const queue = createJobQueue({ db, clock, onEnqueue: () => runner?.wake() });
  return {
    queue,
    run(kinds, options, log) {
      if (runner) throw new Error('the job runner is already built');
      runner = new JobRunner(
        {
          db,
          clock,
          handlers: Object.assign({}, ...kinds.map((kind) => kind.handlers)) as JobHandlers,
          queue,
          schedules: kinds.flatMap((kind) => kind.schedules),
          ...(log && { log }),
        },
        options,
      );
      return { queue, runner };
    },
  };
}
