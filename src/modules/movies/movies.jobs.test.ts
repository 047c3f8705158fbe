import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  startFakeTmdb,
} from '../../../test/fake-tmdb.js';
import { createMovie, createUser, setupTestApp, type TestContext } from '../../../test/harness.js';
import { createTmdbClient } from '../../integrations/tmdb/tmdb.client.js';
import { REFRESH_MOVIE, REFRESH_STALE, REFRESHES_PER_HOUR } from './movies.jobs.js';

// The movie data's background jobs, through the app's own job queue and runner.
describe('movie refresh jobs', () => {
  let fake: FakeTmdb;
  let ctx: TestContext;
  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    ctx = await setupTestApp({
      tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }),
    });
  });
  afterEach(() => ctx.close());

  const seed = FAKE_TMDB_MOVIES[0]!;
  const add = async () => {
    const alice = await createUser(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers: alice.auth,
      payload: { providerId: seed.id },
    });
    expect(res.statusCode).toBe(200);
    return { alice, serviceId: res.json().serviceId as number };
  };
  const title = async (serviceId: number) =>
    (await ctx.db.selectFrom('movies').select('title').where('id', '=', serviceId).executeTakeFirstOrThrow())
      .title;

  it('refreshes a movie whose data is older than METADATA_REFRESH_DAYS, and only those', async () => {
    const { serviceId } = await add();
    // A movie stored by hand, never fetched: refreshed first (and then fails at TMDB, which does not know it).
    const unknown = await createMovie(ctx, { tmdb_id: 999_999_001 });
    fake.putMovie({ ...seed, title: 'Renamed at TMDB' });
    const { runner } = ctx.app.jobs;

    await ctx.app.jobs.queue.enqueue(REFRESH_STALE, null);
    await runner.runUntilEmpty();
    // Only the never-fetched one was stale: the fresh movie keeps its title.
    expect(await title(serviceId)).toBe(seed.title);
    const refreshes = (await ctx.app.jobs.queue.recent()).filter((job) => job.kind === REFRESH_MOVIE);
    expect(refreshes.map((job) => job.key)).toEqual([`movie:${unknown.id}`]);

    ctx.clock.advance(31 * 86_400_000);
    await ctx.app.jobs.queue.enqueue(REFRESH_STALE, null);
    await runner.runUntilEmpty();
    expect(await title(serviceId)).toBe('Renamed at TMDB');
    expect(REFRESHES_PER_HOUR).toBeGreaterThan(0);
  });

  it('retries a refresh when TMDB fails, and keeps the movie as it was meanwhile', async () => {
    const { serviceId } = await add();
    fake.putMovie({ ...seed, title: 'Later title' });
    fake.failNext(1, 503);
    await ctx.app.jobs.queue.enqueue(REFRESH_MOVIE, { movieId: serviceId }, { key: `movie:${serviceId}` });
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    expect(await title(serviceId)).toBe(seed.title);
    expect((await ctx.app.jobs.queue.recent())[0]).toMatchObject({ state: 'queued', attempts: 1 });
    ctx.clock.advance(60_000);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await title(serviceId)).toBe('Later title');
  });

  it('looks for stale movies every hour once started, the first look a few minutes after start', async () => {
    await ctx.app.jobs.runner.start();
    const [scheduled] = await ctx.app.jobs.queue.recent();
    expect(scheduled).toMatchObject({ kind: REFRESH_STALE, key: 'schedule', state: 'queued' });
    expect(Date.parse(scheduled!.runAt) - ctx.clock.now().getTime()).toBe(5 * 60_000);
  });
});
