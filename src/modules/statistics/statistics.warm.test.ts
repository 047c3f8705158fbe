import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { WARM_AFTER_MS } from './statistics.service.js';

// After a change to a library, the owner's all-time statistics are computed again in the background
// once the changes pause, so the next request is answered from the cache. Both engines.
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
  // Behind the library's back (no version change), the plays go: an answer computed now would show
  // none, the one computed in the background still shows them.
  await ctx.db.deleteFrom('watch_dates').where('user_id', '=', alice.user.id).execute();
  expect(await statistics()).toMatchObject({ plays: 3, movies: 1 });
});

it('computes nothing in the background without a change', async () => {
  const movie = await createMovie(ctx, { runtime: 90 });
  await ctx.db
    .insertInto('watch_dates')
    .values({
      user_id: alice.user.id,
      movie_id: movie.id,
      watched_at: '2024-05-01',
      plays: 2,
      comment: null,
      position: 1,
      created_at: '2024-05-01T00:00:00.000Z',
      updated_at: '2024-05-01T00:00:00.000Z',
    })
    .execute();
  await new Promise((resolve) => setTimeout(resolve, WARM_AFTER_MS + 500));
  await ctx.db.deleteFrom('watch_dates').where('user_id', '=', alice.user.id).execute();
  expect(await statistics()).toMatchObject({ plays: 0, movies: 0 });
});
