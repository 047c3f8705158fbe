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

export function createBackgroundJobs(deps: {
  db: Kysely<Database>;
  clock: Clock;
  handlers: JobHandlers;
  schedules: readonly Schedule[];
  options: RunnerOptions;
  log?: { error(object: object, message: string): void };
}): BackgroundJobs {
  const { db, clock } = deps;
  // An enqueue in this process wakes its own runner at once; other instances see it at their next poll.
  const queue = createJobQueue({ db, clock, onEnqueue: () => runner.wake() });
  const runner: JobRunner = new JobRunner(
    {
      db,
      clock,
      handlers: deps.handlers,
      queue,
      schedules: deps.schedules,
      ...(deps.log && { log: deps.log }),
    },
    deps.options,
  );
  return { queue, runner };
}
