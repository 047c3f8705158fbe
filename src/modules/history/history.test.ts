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

  it('orders by date then position, newest first by default and oldest first with sortOrder=asc', async () => {
    const alice = await createUser(ctx);
    const [a, b, c] = [await createMovie(ctx), await createMovie(ctx), await createMovie(ctx)];
    await write('POST', alice.user.name, alice.auth, [
      { serviceId: a.id, watchedAt: '2024-05-01', position: 2 },
      { serviceId: b.id, watchedAt: '2024-05-01', position: 1 },
      { serviceId: c.id, watchedAt: '2023-12-31' },
    ]);
    const ids = async (query: string) =>
      (await get(alice.user.name, alice.auth, query))
        .json()
        .watchlist.map((e: { movie: { ids: { service: number } } }) => e.movie.ids.service);
    expect(await ids('')).toEqual([a.id, b.id, c.id]);
    expect(await ids('?sortOrder=desc')).toEqual([a.id, b.id, c.id]);
    expect(await ids('?sortOrder=asc')).toEqual([c.id, b.id, a.id]);
    const bad = await get(alice.user.name, alice.auth, '?sortOrder=up');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('InvalidQueryParameter');
  });

  it('paginates with maxPage = ceil(total / limit) and validates page and limit', async () => {
    const alice = await createUser(ctx);
    const empty = await get(alice.user.name, alice.auth);
    expect(empty.json()).toEqual({ watchlist: [], currentPage: 1, maxPage: 0 });
    const movie = await createMovie(ctx);
    await write(
      'POST',
      alice.user.name,
      alice.auth,
      ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'].map((watchedAt) => ({
        serviceId: movie.id,
        watchedAt,
      })),
    );
    const page = async (query: string) => (await get(alice.user.name, alice.auth, query)).json();
    expect(await page('?limit=2')).toMatchObject({ currentPage: 1, maxPage: 3 });
    const last = await page('?limit=2&page=3');
    expect(last.watchlist.map((e: { watchedAt: string }) => e.watchedAt)).toEqual(['2024-01-01']);
    expect(await page('?limit=2&page=4')).toEqual({ watchlist: [], currentPage: 4, maxPage: 3 });
    expect((await page('?limit=1000')).watchlist).toHaveLength(5);
    expect((await page('?')).watchlist).toHaveLength(5);
    for (const query of ['?limit=0', '?limit=1001', '?page=0', '?page=-1', '?page=abc', '?limit=2.5']) {
      const res = await get(alice.user.name, alice.auth, query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('InvalidQueryParameter');
    }
  });

  it('searches titles and original titles case-insensitively, taking % and _ literally', async () => {
    const alice = await createUser(ctx);
    const amelie = await createMovie(ctx, { title: 'Amelie', original_title: 'Le Fabuleux Destin' });
    const percent = await createMovie(ctx, { title: '100% Wolf', original_title: null });
    await write('POST', alice.user.name, alice.auth, [
      { serviceId: amelie.id, watchedAt: '2024-01-01' },
      { serviceId: percent.id, watchedAt: '2024-01-02' },
    ]);
    const titles = async (search: string) =>
      (await get(alice.user.name, alice.auth, `?search=${encodeURIComponent(search)}`))
        .json()
        .watchlist.map((e: { movie: { title: string } }) => e.movie.title);
    expect(await titles('AMEL')).toEqual(['Amelie']);
    expect(await titles('fabuleux')).toEqual(['Amelie']);
    expect(await titles('0%')).toEqual(['100% Wolf']);
    expect(await titles('%')).toEqual(['100% Wolf']);
    expect(await titles('_')).toEqual([]);
    expect(await titles('')).toEqual(['100% Wolf', 'Amelie']);
  });

  it('PUT replaces plays, comment and position; absent comment becomes null', async () => {
    const alice = await createUser(ctx, {});
    const movie = await createMovie(ctx);
    await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01', plays: 3, comment: 'first' },
    ]);
    await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01', comment: null },
    ]);
    const row = () =>
      ctx.db.selectFrom('watch_dates').select(['plays', 'comment', 'position']).executeTakeFirstOrThrow();
    expect(await row()).toEqual({ plays: 4, comment: 'first', position: 1 });
    const put = await write('PUT', alice.user.name, { 'x-service-token': alice.token }, [
      { serviceId: movie.id, watchedAt: '2024-01-01', plays: 2, comment: 'second', position: 5.5 },
    ]);
    expect(put.statusCode).toBe(204);
    expect(await row()).toEqual({ plays: 2, comment: 'second', position: 5.5 });
    await write('PUT', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01', plays: 1 },
    ]);
    expect(await row()).toEqual({ plays: 1, comment: null, position: 1 });
    const missingPlays = await write('PUT', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01' },
    ]);
    expect(missingPlays.statusCode).toBe(400);
    const zeroPlays = await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01', plays: 0 },
    ]);
    expect(zeroPlays.statusCode).toBe(400);
    expect(await row()).toEqual({ plays: 1, comment: null, position: 1 });
  });

  it('DELETE removes one date, or every date of a movie when watchedAt is absent', async () => {
    const alice = await createUser(ctx);
    const bob = await createUser(ctx);
    const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
    const dates = ['2024-01-01', '2024-01-02'];
    await write(
      'POST',
      alice.user.name,
      alice.auth,
      dates.flatMap((d) => [
        { serviceId: a.id, watchedAt: d },
        { serviceId: b.id, watchedAt: d },
      ]),
    );
    await write('POST', bob.user.name, bob.auth, [{ serviceId: a.id, watchedAt: '2024-01-01' }]);
    expect((await write('DELETE', alice.user.name, bob.auth, [{ serviceId: a.id }])).statusCode).toBe(403);
    expect(
      (await write('DELETE', alice.user.name, alice.auth, [{ serviceId: a.id, watchedAt: '2024-01-01' }]))
        .statusCode,
    ).toBe(204);
    expect((await write('DELETE', alice.user.name, alice.auth, [{ serviceId: b.id }])).statusCode).toBe(204);
    const rows = await ctx.db
      .selectFrom('watch_dates')
      .select(['user_id', 'movie_id', 'watched_at'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { user_id: alice.user.id, movie_id: a.id, watched_at: '2024-01-02' },
      { user_id: bob.user.id, movie_id: a.id, watched_at: '2024-01-01' },
    ]);
    const unknown = await write('DELETE', alice.user.name, alice.auth, [
      { serviceId: a.id },
      { serviceId: 424242 },
    ]);
    expect(unknown.statusCode).toBe(404);
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toHaveLength(2);
  });

  it('takes a played movie off the watchlist unless the user turned that off', async () => {
    const alice = await createUser(ctx);
    const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
    const now = ctx.clock.now().toISOString();
    await ctx.db
      .insertInto('watchlist')
      .values([a, b].map((m) => ({ user_id: alice.user.id, movie_id: m.id, added_at: now })))
      .execute();
    await write('POST', alice.user.name, alice.auth, [{ serviceId: a.id, watchedAt: '2024-01-01' }]);
    await ctx.db
      .updateTable('users')
      .set({ watchlist_auto_remove: 0 })
      .where('id', '=', alice.user.id)
      .execute();
    await write('POST', alice.user.name, alice.auth, [{ serviceId: b.id, watchedAt: '2024-01-01' }]);
    const left = await ctx.db.selectFrom('watchlist').select('movie_id').execute();
    expect(left).toEqual([{ movie_id: b.id }]);
  });

  it('rejects a batch with one invalid item as a whole', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx);
    const res = await write('POST', alice.user.name, alice.auth, [
      { serviceId: movie.id, watchedAt: '2024-01-01' },
      { serviceId: movie.id, watchedAt: 'today' },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('watchedAt');
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
  });

  it('refuses plays that would add up past 1,000,000 on one entry, in a batch or over time, changing nothing', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx);
    const entry = (plays: number) => ({ serviceId: movie.id, watchedAt: '2024-01-01', plays });
    const stored = () => ctx.db.selectFrom('watch_dates').select('plays').execute();
    // 2,149 entries of a million would pass 2^31: PostgreSQL answered 500, SQLite stored it.
    const many = await write(
      'POST',
      alice.user.name,
      alice.auth,
      Array.from({ length: 2149 }, () => entry(1_000_000)),
    );
    expect(many.statusCode).toBe(400);
    expect(many.json()).toMatchObject({ error: 'InvalidRequestBody' });
    expect(many.json().message).toContain('1,000,000');
    expect(await stored()).toEqual([]);
    const two = await write('POST', alice.user.name, alice.auth, [entry(999_999), entry(2)]);
    expect(two.statusCode).toBe(400);
    expect(await stored()).toEqual([]);

    expect((await write('POST', alice.user.name, alice.auth, [entry(1_000_000)])).statusCode).toBe(204);
    const more = await write('POST', alice.user.name, alice.auth, [entry(1)]);
    expect(more.statusCode).toBe(400);
    expect(await stored()).toEqual([{ plays: 1_000_000 }]);
    const played = await ctx.app.inject({
      method: 'POST',
      url: `/api/users/${alice.user.name}/played/movies`,
      headers: alice.auth,
      payload: [{ serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-01', plays: 5 }] }],
    });
    expect(played.statusCode).toBe(400);
    expect(await stored()).toEqual([{ plays: 1_000_000 }]);
    // Replacing sets the count: no sum, nothing to refuse.
    expect((await write('PUT', alice.user.name, alice.auth, [entry(7), entry(1_000_000)])).statusCode).toBe(
      204,
    );
    expect(await stored()).toEqual([{ plays: 1_000_000 }]);
  });
});
