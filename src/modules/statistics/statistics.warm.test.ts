import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { createStatisticsService, WARM_AFTER_MS } from './statistics.service.js';

// After a change to a library, the owner's all-time statistics are brought up to date and computed in
// the background once the changes pause, so the next request is answered from the cache. Both engines.
let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
});
afterEach(() => ctx.close());

const statistics = async () => {
  const res = await ctx.app.inject({
    method: 'GET',
    url: '/api/users/alice/statistics',
    headers: alice.auth,
  });
  expect(res.statusCode).toBe(200);
  return res.json().totals as { plays: number; movies: number };
};

it("computes the owner's statistics in the background once their changes pause", async () => {
  const movie = await createMovie(ctx, { runtime: 90 });
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/users/alice/history/movies',
    headers: alice.auth,
    payload: [{ serviceId: movie.id, watchedAt: '2024-05-01', plays: 3 }],
  });
  expect(res.statusCode).toBe(204);
  await new Promise((resolve) => setTimeout(resolve, WARM_AFTER_MS + 1_000));
  // Behind the library's back (no version change), the plays and their aggregates go: an answer
  // computed now would show none, the one computed in the background still shows them.
  for (const table of [
    'watch_dates',
    'statistics_pending',
    'statistics_groups',
    'statistics_movies',
    'statistics_days',
  ] as const) {
    await ctx.db.deleteFrom(table).where('user_id', '=', alice.user.id).execute();
  }
  expect(await statistics()).toMatchObject({ plays: 3, movies: 1 });
});

it('reads nothing in the background without a change, and nothing again once it has', async () => {
  let statements = 0;
  const counted = ctx.db.withPlugin({
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const service = createStatisticsService({
    db: counted,
    clock: ctx.clock,
    imageBaseUrl: 'http://images.test',
    findUser: (id) => ctx.users.findById(id),
    warmAfterMs: 20,
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statements).toBe(0);
    service.changed(alice.user.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statements).toBeGreaterThan(0);
    // Computed: the owner's next request is answered from the cache.
    statements = 0;
    await service.json((await ctx.users.findByName('alice'))!);
    const cacheCheck = statements;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statements).toBe(cacheCheck);
    expect(cacheCheck).toBeLessThanOrEqual(2);
  } finally {
    service.close();
  }
});
