import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeImdb, gzipped, ratingsTsv, startFakeImdb } from '../../../test/fake-imdb.js';
import { createMovie, createUser, setupTestApp, type TestContext } from '../../../test/harness.js';
import { IMPORT_IMDB_RATINGS } from './imdb-ratings.jobs.js';

// The daily IMDb ratings job, through the app's job queue, against a local stand-in for IMDb.
describe('the daily IMDb ratings job', () => {
  let imdb: FakeImdb;
  let ctx: TestContext;
  beforeAll(async () => {
    imdb = await startFakeImdb();
  });
  afterAll(() => imdb.close());
  afterEach(() => ctx.close());

  it('downloads the dataset and shows the ratings of known movies as externalRatings.catalog', async () => {
    ctx = await setupTestApp({ env: { IMDB_RATINGS_URL: imdb.url } });
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx, { imdb_id: 'tt0000042' });
    await ctx.library.write(alice.user.id, (lib) => lib.addToWatchlist([movie.id]));
    imdb.serve({
      body: gzipped(
        ratingsTsv([
          ['tt0000042', 8.3, 123456],
          ['tt9999999', 5.1, 10],
        ]),
      ),
      pieces: 3,
    });

    await ctx.app.jobs.queue.enqueue(IMPORT_IMDB_RATINGS, null);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    // The run, and the next one queued a day later (a scheduled kind comes back after every run).
    const [next, job] = await ctx.app.jobs.queue.recent();
    expect(next).toMatchObject({
      kind: IMPORT_IMDB_RATINGS,
      state: 'queued',
      runAt: '2024-06-16T12:00:00.000Z',
    });
    expect(JSON.parse(job!.result!)).toMatchObject({ lines: 2, matched: 1, updated: 1, skipped: 0 });
    expect(job!.progress?.done).toBeGreaterThan(0);
    const page = await ctx.app.inject({
      url: `/api/users/${alice.user.name}/watchlist/movies`,
      headers: alice.auth,
    });
    expect(page.json().watchlist[0].movie.externalRatings.catalog).toEqual({ average: 8.3, count: 123456 });
  });

  it('is retried later when IMDb fails, changing nothing', async () => {
    ctx = await setupTestApp({ env: { IMDB_RATINGS_URL: imdb.url } });
    await createMovie(ctx, { imdb_id: 'tt0000043' });
    imdb.serve({ status: 503 });
    await ctx.app.jobs.queue.enqueue(IMPORT_IMDB_RATINGS, null);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    expect(await ctx.app.jobs.queue.recent()).toMatchObject([{ state: 'queued', attempts: 1 }]);
    expect(
      await ctx.db
        .selectFrom('movies')
        .select('imdb_rating_average')
        .where('imdb_id', '=', 'tt0000043')
        .executeTakeFirst(),
    ).toEqual({ imdb_rating_average: null });
  });

  it('runs once a day from ten minutes after start, and not at all when IMDB_RATINGS_URL is empty', async () => {
    ctx = await setupTestApp({ env: { IMDB_RATINGS_URL: imdb.url } });
    await ctx.app.jobs.runner.start();
    const scheduled = (await ctx.app.jobs.queue.recent()).find((job) => job.kind === IMPORT_IMDB_RATINGS);
    expect(Date.parse(scheduled!.runAt) - ctx.clock.now().getTime()).toBe(10 * 60_000);
    await ctx.close();

    ctx = await setupTestApp({ env: { IMDB_RATINGS_URL: '' } });
    await ctx.app.jobs.runner.start();
    expect((await ctx.app.jobs.queue.recent()).map((job) => job.kind)).not.toContain(IMPORT_IMDB_RATINGS);
    expect(ctx.app.jobs.runner.kinds).not.toContain(IMPORT_IMDB_RATINGS);
  });
});
