import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  posterPng,
  startFakeTmdb,
} from '../../../test/fake-tmdb.js';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { createTmdbClient } from '../../integrations/tmdb/tmdb.client.js';
import { SWEEP_IMAGES } from './images.jobs.js';
import { FETCH_IMAGE } from './images.service.js';

// The image cache (IMAGE_CACHE=true): downloads by background job, served under /images, and never a
// broken image meanwhile or when TMDB fails.
describe('image cache', () => {
  let fake: FakeTmdb;
  let ctx: TestContext;
  let dir: string;
  let alice: TestUser;

  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    dir = mkdtempSync(join(tmpdir(), 'cinelog-images-'));
    ctx = await setupTestApp({
      tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }),
      env: { IMAGE_CACHE: 'true', IMAGE_CACHE_DIR: dir, TMDB_IMAGE_BASE_URL: fake.imageUrl },
    });
    alice = await createUser(ctx);
  });
  afterEach(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seed = FAKE_TMDB_MOVIES[0]!;
  const add = async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers: alice.auth,
      payload: { providerId: seed.id },
    });
    expect(res.statusCode).toBe(200);
    return res.json().serviceId as number;
  };
  const get = (url: string) => ctx.app.inject({ method: 'GET', url });
  const imageRequests = (path: string) => fake.requests.filter((request) => request.path === `/t/p${path}`);
  const cachedFiles = (size: string) => {
    try {
      return readdirSync(join(dir, size)).sort();
    } catch {
      return [];
    }
  };

  it('points posterPath at /images, redirects to TMDB until the job has fetched it, then serves it for a year', async () => {
    const id = await add();
    const details = await ctx.app.inject({ method: 'GET', url: `/api/movies/${id}`, headers: alice.auth });
    const poster = `/w342${seed.poster_path}`;
    expect(details.json().posterPath).toBe(`http://cinelog.test/images${poster}`);

    // Not cached yet: TMDB's copy, and its download queued (once, however often it is asked for).
    const first = await get(`/images${poster}`);
    expect(first.statusCode).toBe(307);
    expect(first.headers.location).toBe(`${fake.imageUrl}${poster}`);
    await get(`/images${poster}`);
    const queued = (await ctx.app.jobs.queue.recent()).filter((job) => job.kind === FETCH_IMAGE);
    expect(queued.map((job) => job.key)).toEqual([`w342${seed.poster_path}`]);

    await ctx.app.jobs.runner.runUntilEmpty();
    const served = await get(`/images${poster}`);
    expect(served.statusCode).toBe(200);
    expect(served.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    expect(served.rawPayload.equals(posterPng(seed.poster_path!.slice(1)))).toBe(true);

    // Fetched once: asking again, or a job for it again, does not go back to TMDB.
    await ctx.app.jobs.queue.enqueue(FETCH_IMAGE, { size: 'w342', path: seed.poster_path });
    await ctx.app.jobs.runner.runUntilEmpty();
    expect(imageRequests(poster)).toHaveLength(1);
  });

  it("serves a collection's poster and backdrop and a company's logo that a movie's details point to", async () => {
    const comets = FAKE_TMDB_MOVIES.find((movie) => movie.belongs_to_collection !== null)!;
    const added = await ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers: alice.auth,
      payload: { providerId: comets.id },
    });
    const details = await ctx.app.inject({
      method: 'GET',
      url: `/api/movies/${added.json().serviceId}`,
      headers: alice.auth,
    });
    const { collection, productionCompanies } = details.json();
    const urls = [
      collection.posterPath,
      collection.backdropPath,
      ...productionCompanies.map((company: { logoPath: string | null }) => company.logoPath).filter(Boolean),
    ] as string[];
    expect(urls).toHaveLength(3);
    for (const url of urls) {
      expect(url.startsWith('http://cinelog.test/images/')).toBe(true);
      const res = await get(url.slice('http://cinelog.test'.length));
      expect(res.statusCode, url).toBe(307);
      expect(res.headers.location).toBe(`${fake.imageUrl}${url.slice('http://cinelog.test/images'.length)}`);
    }
  });

  it("the sweep fetches every movie's poster and backdrop and the pictures of the people shown, each once", async () => {
    await add();
    await ctx.app.jobs.queue.enqueue(SWEEP_IMAGES, null);
    await ctx.app.jobs.runner.runUntilEmpty();
    expect(cachedFiles('w342')).toEqual([seed.poster_path!.slice(1)]);
    expect(cachedFiles('w780')).toEqual([seed.backdrop_path!.slice(1)]);
    const pictures = [
      ...seed.cast.filter((person) => person.order < 12),
      ...seed.crew.filter((person) => person.job === 'Director'),
    ]
      .map((person) => person.profile_path?.slice(1))
      .filter((file): file is string => typeof file === 'string');
    expect(pictures.length).toBeGreaterThan(0);
    expect(cachedFiles('w185')).toEqual([...new Set(pictures)].sort());

    const before = fake.requests.length;
    await ctx.app.jobs.queue.enqueue(SWEEP_IMAGES, null);
    await ctx.app.jobs.runner.runUntilEmpty();
    expect(fake.requests.length).toBe(before);
  });

  it('an image TMDB lacks, that is no image, or is too large is given up; a failing server is retried; pages keep TMDB meanwhile', async () => {
    for (const name of ['missing1', 'notimage1', 'huge1', 'broken1']) {
      await createMovie(ctx, { poster_path: `/${name}.jpg` });
    }
    await ctx.app.jobs.queue.enqueue(SWEEP_IMAGES, null);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 4, failed: 1 });
    expect(cachedFiles('w342')).toEqual([]);
    const jobs = await ctx.app.jobs.queue.recent();
    const outcome = (name: string) => jobs.find((job) => job.key === `w342/${name}.jpg`);
    expect(outcome('missing1')).toMatchObject({
      state: 'done',
      result: 'not cached: the image server answered 404',
    });
    expect(outcome('notimage1')).toMatchObject({
      state: 'done',
      result: expect.stringContaining('not a JPEG'),
    });
    expect(outcome('huge1')).toMatchObject({ state: 'done', result: expect.stringContaining('larger than') });
    expect(outcome('broken1')).toMatchObject({ state: 'queued', attempts: 1 });
    for (const name of ['missing1', 'notimage1', 'huge1', 'broken1']) {
      const res = await get(`/images/w342/${name}.jpg`);
      expect(res.statusCode).toBe(307);
      expect(res.headers.location).toBe(`${fake.imageUrl}/w342/${name}.jpg`);
    }
  });

  it("waits out a 429's Retry-After and fetches the image in the same run", async () => {
    await add();
    fake.failNext(1, 429, { retryAfter: '1' });
    await ctx.app.jobs.queue.enqueue(FETCH_IMAGE, { size: 'w342', path: seed.poster_path });
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(cachedFiles('w342')).toEqual([seed.poster_path!.slice(1)]);
  });

  it.each([
    '/images/w342/..%2F..%2Fetc%2Fpasswd',
    '/images/w342/%2E%2E',
    '/images/w342/..',
    '/images/w999/fakeLedgerPoster01.jpg',
    '/images/w342/fakeLedgerPoster01.svg',
    '/images/w342/fake%00.jpg',
    '/images/w342/notOneOfOurs.jpg',
  ])('%s is no image of ours: a 4xx in the envelope, nothing fetched or queued', async (url) => {
    await add();
    const before = (await ctx.app.jobs.queue.recent()).length;
    const res = await get(url);
    // A NUL in the name is refused as bad input (400) before anything looks for it; the rest are 404.
    expect(res.statusCode).toBe(url.includes('%00') ? 400 : 404);
    expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
    expect((await ctx.app.jobs.queue.recent()).length).toBe(before);
    expect(fake.requests.filter((request) => request.path.startsWith('/t/p'))).toEqual([]);
  });
});

describe('without the image cache (IMAGE_CACHE=false)', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await setupTestApp({ env: { IMAGE_CACHE: 'false' } });
  });
  afterEach(() => ctx.close());

  it("posterPath is TMDB's URL and there is no /images route", async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx, { poster_path: '/abc.jpg' });
    const res = await ctx.app.inject({ method: 'GET', url: `/api/movies/${movie.id}`, headers: alice.auth });
    expect(res.json().posterPath).toBe('http://images.test/t/p/w342/abc.jpg');
    expect((await ctx.app.inject({ method: 'GET', url: '/images/w342/abc.jpg' })).statusCode).toBe(404);
  });
});
