import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMovie, createUser, setRating, setupTestApp, type TestContext } from '../../../test/harness.js';

const url = (name: string) => `/api/users/${name}/history/movies`;

describe('history', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await setupTestApp();
  });
  afterEach(async () => {
    await ctx.close();
  });

  const get = (name: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: url(name) + query, headers });
  const write = (
    method: 'POST' | 'PUT' | 'DELETE',
    name: string,
    headers: Record<string, string>,
    payload: unknown,
  ) => ctx.app.inject({ method, url: url(name), headers, payload: payload as object });

  it('requires a token', async () => {
    const { user } = await createUser(ctx);
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      const res = await ctx.app.inject({
        method,
        url: url(user.name),
        payload: method === 'GET' ? undefined : [],
      });
      expect(res.statusCode, method).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toBe('');
    }
  });

  it('adds plays, lists newest first with the movie object, and sums repeated plays', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx, { title: 'Alpha', poster_path: '/a.jpg' });
    const other = await createMovie(ctx, { title: 'Beta' });
    await setRating(ctx, alice.user.id, movie.id, 8);
    expect(
      (
        await write('POST', alice.user.name, alice.auth, [
          { serviceId: movie.id, watchedAt: '2024-01-02' },
          { serviceId: other.id, watchedAt: '2024-03-04', plays: 2, comment: 'great' },
        ])
      ).statusCode,
    ).toBe(204);
    expect(
      (await write('POST', alice.user.name, alice.auth, [{ serviceId: movie.id, watchedAt: '2024-01-02' }]))
        .statusCode,
    ).toBe(204);

    const res = await get(alice.user.name, alice.auth);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.currentPage).toBe(1);
    expect(body.maxPage).toBe(1);
    expect(body.watchlist.map((e: { watchedAt: string }) => e.watchedAt)).toEqual([
      '2024-03-04',
      '2024-01-02',
    ]);
    const entry = body.watchlist[1];
    expect(entry.movie).toEqual({
      title: 'Alpha',
      originalTitle: 'Alpha',
      releaseDate: '2001-02-03',
      tagline: 'A tagline',
      overview: 'An overview',
      originalLanguage: 'en',
      runtime: 100,
      posterPath: 'http://images.test/t/p/w342/a.jpg',
      ids: {
        service: movie.id,
        provider: movie.tmdbId,
        tracker: null,
        catalog: expect.stringMatching(/^tt\d+$/),
        journal: null,
      },
      userRating: 8,
      externalRatings: { provider: { average: 7.5, count: 1234 }, catalog: { average: null, count: null } },
      updatedAt: null,
      createdAt: '2024-06-15',
    });
    const plays = await ctx.db
      .selectFrom('watch_dates')
      .select(['movie_id', 'plays', 'comment'])
      .orderBy('movie_id')
      .execute();
    expect(plays).toEqual([
      { movie_id: movie.id, plays: 2, comment: null },
      { movie_id: other.id, plays: 2, comment: 'great' },
    ]);
  });

  it('rejects a whole batch that names an unknown movie, with a 404 naming the id', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx);
    const res = await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-02' },
      { serviceId: 99999, watchedAt: '2024-01-02' },
    ]);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'MovieNotFound', message: expect.stringContaining('99999') });
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
  });

  it("refuses to write another user's history (403) and reads it unless private", async () => {
    const alice = await createUser(ctx);
    const bob = await createUser(ctx);
    const movie = await createMovie(ctx);
    expect(
      (await write('POST', alice.user.name, bob.auth, [{ serviceId: movie.id, watchedAt: '2024-01-02' }]))
        .statusCode,
    ).toBe(403);
    expect((await get(alice.user.name, bob.auth)).statusCode).toBe(200);
    await ctx.users.update(alice.user.name, { privacy: 'private' });
    expect((await get(alice.user.name, bob.auth)).statusCode).toBe(403);
    expect((await get(alice.user.name, alice.auth)).statusCode).toBe(200);
    expect((await get('nobody', alice.auth)).statusCode).toBe(404);
  });

  it('validates dates strictly', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx);
    const res = await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2023-02-30' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('InvalidRequestBody');
  });
});
