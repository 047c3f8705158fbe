import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, TestClock } from '../../test/harness.js';
import { databaseHitCounter } from './rate-limit-store.js';

// The hit counter behind the webhook rate limit and the sign-in attempt limits, on the test engine.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function counter() {
  const handle = await createTestDatabase();
  cleanups.push(() => handle.destroy());
  const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'));
  return { db: handle.db, clock, count: databaseHitCounter(handle.db, clock) };
}

describe('databaseHitCounter', () => {
  it('counts the hits of a window, then starts a fresh one once it is over', async () => {
    const { db, clock, count } = await counter();
    expect(await count('k', 60_000)).toEqual({ current: 1, ttl: 60_000 });
    clock.advance(10_000);
    expect(await count('k', 60_000)).toEqual({ current: 2, ttl: 50_000 });
    // Another key has a window of its own.
    expect(await count('other', 60_000)).toEqual({ current: 1, ttl: 60_000 });
    clock.advance(50_000);
    expect(await count('k', 60_000)).toEqual({ current: 1, ttl: 60_000 });
    expect(await count('k', 60_000)).toEqual({ current: 2, ttl: 60_000 });
    const rows = await db.selectFrom('rate_limits').selectAll().orderBy('key').execute();
    expect(rows).toEqual([
      { key: 'k', hits: 2, reset_at: '2026-03-01T12:02:00.000Z' },
      { key: 'other', hits: 1, reset_at: '2026-03-01T12:01:10.000Z' },
    ]);
  });

  it('counts every one of many hits arriving together, in a live window and at its renewal', async () => {
    const { clock, count } = await counter();
    const together = async (n: number) =>
      (await Promise.all(Array.from({ length: n }, () => count('k', 60_000)))).map((r) => r.current);
    expect((await together(20)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    clock.advance(60_000);
    // The first of these renews the expired window; none is lost or counted twice.
    expect((await together(20)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await count('k', 60_000)).current).toBe(21);
  });
});
