import { afterEach, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../../test/databases.js';
import {
  createTestDatabase,
  secondDatabaseHandle,
  TestClock,
  type TestDatabase,
} from '../../test/harness.js';
import { createJobQueue, type JobQueue } from './queue.js';
import { backoffMs, type JobHandlers, JobRunner } from './runner.js';

// The background job queue on the test engine: jobs in the database, claimed under leases.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const database = await createTestDatabase();
  cleanups.push(() => database.destroy());
  const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'));
  const queue = createJobQueue({ db: database.db, clock });
  return { database, db: database.db, clock, queue };
}

function runner(
  deps: { db: TestDatabase['db']; clock: TestClock; queue: JobQueue },
  handlers: JobHandlers,
  options: { concurrency?: number; leaseMs?: number; schedules?: { kind: string; everyMs: number }[] } = {},
) {
  const jobs = new JobRunner(
    { db: deps.db, clock: deps.clock, queue: deps.queue, handlers, schedules: options.schedules ?? [] },
    {
      concurrency: options.concurrency ?? 1,
      pollMs: 20,
      leaseMs: options.leaseMs ?? 60_000,
      stopGraceMs: 2_000,
    },
  );
  cleanups.push(() => jobs.stop());
  return jobs;
}

const until = async (check: () => Promise<boolean> | boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the job queue', () => {
  it('runs a queued job with its payload, records its outcome and progress', async () => {
    const { db, clock, queue } = await setup();
    const seen: unknown[] = [];
    const id = await queue.enqueue('greet', { name: 'ada' });
    const jobs = runner(
      { db, clock, queue },
      {
        greet: {
          async run(job) {
            seen.push(job.payload);
            job.progress(3, 3);
            return 'greeted ada';
          },
        },
      },
    );
    expect(await jobs.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(seen).toEqual([{ name: 'ada' }]);
    const [view] = await queue.recent();
    expect(view).toMatchObject({
      id,
      kind: 'greet',
      state: 'done',
      attempts: 1,
      result: 'greeted ada',
      progress: { done: 3, total: 3 },
      finishedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('keeps one pending job per kind and key', async () => {
    const { queue } = await setup();
    expect(await queue.enqueue('refresh', { id: 1 }, { key: 'movie:1' })).toEqual(expect.any(Number));
    expect(await queue.enqueue('refresh', { id: 1 }, { key: 'movie:1' })).toBeNull();
    expect(await queue.enqueue('refresh', { id: 2 }, { key: 'movie:2' })).toEqual(expect.any(Number));
    expect(await queue.enqueue('other', {}, { key: 'movie:1' })).toEqual(expect.any(Number));
    // Without a key, never deduplicated.
    expect(await queue.enqueue('refresh', {})).toEqual(expect.any(Number));
    expect(await queue.enqueue('refresh', {})).toEqual(expect.any(Number));
    expect(await queue.recent()).toHaveLength(5);
  });

  it('retries a failing job with backoff, then gives up after its attempts', async () => {
    const { db, clock, queue } = await setup();
    await queue.enqueue('flaky', null, { maxAttempts: 3 });
    let calls = 0;
    const jobs = runner(
      { db, clock, queue },
      {
        flaky: {
          async run() {
            calls += 1;
            throw new Error(`failure ${calls}`);
          },
        },
      },
    );
    expect(await jobs.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    let [view] = await queue.recent();
    expect(view).toMatchObject({ state: 'queued', attempts: 1, error: 'failure 1' });
    expect(view?.runAt).toBe(new Date(Date.parse('2026-03-01T12:00:00.000Z') + backoffMs(1)).toISOString());
    // Not before its time.
    expect(await jobs.runUntilEmpty()).toEqual({ done: 0, failed: 0 });
    clock.advance(backoffMs(1));
    await jobs.runUntilEmpty();
    clock.advance(backoffMs(2));
    await jobs.runUntilEmpty();
    [view] = await queue.recent();
    expect(view).toMatchObject({ state: 'failed', attempts: 3, error: 'failure 3' });
    expect(calls).toBe(3);
    clock.advance(backoffMs(10));
    expect(await jobs.runUntilEmpty()).toEqual({ done: 0, failed: 0 });
    expect(backoffMs(1)).toBe(30_000);
    expect(backoffMs(2)).toBe(60_000);
    expect(backoffMs(20)).toBe(3_600_000);
  });

  it('takes up a job whose runner died, once its lease has run out', async () => {
    const { db, clock, queue } = await setup();
    await queue.enqueue('slow', null);
    let hang!: () => void;
    const dead = runner(
      { db, clock, queue },
      {
        slow: { run: () => new Promise<void>((resolve) => (hang = resolve)) },
      },
      { leaseMs: 60_000 },
    );
    await dead.start();
    await until(async () => (await queue.recent())[0]?.state === 'running');
    const heir = runner({ db, clock, queue }, { slow: { run: async () => 'finished by the heir' } });
    // While the lease holds, nobody else runs it.
    expect(await heir.runUntilEmpty()).toEqual({ done: 0, failed: 0 });
    clock.advance(60_001);
    expect(await heir.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await queue.recent()).toMatchObject([
      { state: 'done', attempts: 2, result: 'finished by the heir' },
    ]);
    // The first runner wakes up late: it lost its claim and writes nothing.
    hang();
    await dead.stop();
    expect(await queue.recent()).toMatchObject([{ state: 'done', result: 'finished by the heir' }]);
  });

  it('gives running jobs back to the queue when it stops, the attempt not counted', async () => {
    const { db, clock, queue } = await setup();
    await queue.enqueue('long', null);
    let sawAbort = false;
    let started = false;
    const jobs = runner(
      { db, clock, queue },
      {
        long: {
          run: (job) =>
            new Promise<void>((resolve) => {
              started = true;
              job.signal.addEventListener('abort', () => {
                sawAbort = true;
                resolve();
              });
            }),
        },
      },
    );
    await jobs.start();
    // The handler itself has begun (the row says 'running' as soon as the claim commits, before the
    // runner has read the claim's answer: a stop then gives the job back unrun, the test below).
    await until(() => started);
    await jobs.stop();
    expect(sawAbort).toBe(true);
    expect(await queue.recent()).toMatchObject([{ state: 'queued', attempts: 0 }]);
  });

  it('gives back a job claimed while it stops: the claim under way when stop() begins never runs', async () => {
    const { db, clock, queue } = await setup();
    await queue.enqueue('long', null);
    let ran = false;
    const jobs = runner(
      { db, clock, queue },
      {
        long: {
          run: async () => {
            ran = true;
          },
        },
      },
    );
    await jobs.start();
    // start() woke the runner: its claim is under way (a query) when stop() begins.
    await jobs.stop();
    expect(await queue.recent()).toMatchObject([{ state: 'queued', attempts: 0 }]);
    // Nothing claimed later either.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toBe(false);
    expect(await queue.recent()).toMatchObject([{ state: 'queued', attempts: 0 }]);
  });

  it('runs each job exactly once with two runners, concurrency 3 each (PostgreSQL: on two connections)', async () => {
    const { database, clock, queue } = await setup();
    // Two SQLite connections in one process would wait for each other's locks synchronously (the busy
    // timeout blocks the thread both need); SQLite's instances are processes (the server, the CLI).
    const other = TEST_ENGINE === 'postgres' ? secondDatabaseHandle(database) : null;
    if (other) cleanups.push(() => other.close());
    for (let i = 0; i < 40; i++) await queue.enqueue('count', { i });
    const runs = new Map<number, number>();
    const handlers: JobHandlers = {
      count: {
        async run(job) {
          runs.set(job.payload.i, (runs.get(job.payload.i) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        },
      },
    };
    const one = runner({ db: database.db, clock, queue }, handlers, { concurrency: 3 });
    const two = runner({ db: other?.db ?? database.db, clock, queue }, handlers, { concurrency: 3 });
    await Promise.all([one.start(), two.start()]);
    await until(async () => (await queue.recent(100)).every((job) => job.state === 'done'));
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual([...Array(40).keys()]);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it('queues a scheduled job again after each run, one pending whatever the number of runners', async () => {
    const { db, clock, queue } = await setup();
    let runs = 0;
    const handlers: JobHandlers = {
      daily: {
        async run() {
          runs += 1;
        },
      },
    };
    const schedules = [{ kind: 'daily', everyMs: 86_400_000 }];
    const one = runner({ db, clock, queue }, handlers, { schedules });
    const two = runner({ db, clock, queue }, handlers, { schedules });
    await one.start();
    await two.start();
    await until(async () => runs === 1 && (await queue.recent()).length === 2);
    const [next, first] = await queue.recent();
    expect(first).toMatchObject({ kind: 'daily', state: 'done' });
    expect(next).toMatchObject({ kind: 'daily', state: 'queued', runAt: '2026-03-02T12:00:00.000Z' });
    await one.stop();
    await two.stop();
    expect(runs).toBe(1);
  });

  it('runs nothing with concurrency 0, and leaves kinds it has no handler for', async () => {
    const { db, clock, queue } = await setup();
    await queue.enqueue('known', null);
    await queue.enqueue('unknown', null);
    const idle = runner({ db, clock, queue }, { known: { run: async () => 'ran' } }, { concurrency: 0 });
    await idle.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await queue.recent()).map((job) => job.state)).toEqual(['queued', 'queued']);
    const jobs = runner({ db, clock, queue }, { known: { run: async () => 'ran' } });
    expect(await jobs.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect((await queue.recent()).map((job) => [job.kind, job.state])).toEqual([
      ['unknown', 'queued'],
      ['known', 'done'],
    ]);
  });
});
