import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setRating,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';

const url = (name: string) => `/api/users/${name}/played/movies`;

type Method = 'POST' | 'PUT' | 'DELETE';

describe('played', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await setupTestApp();
  });
  afterEach(async () => {
    await ctx.close();
  });

  const get = (name: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: url(name) + query, headers });
  const write = (method: Method, name: string, headers: Record<string, string>, payload: unknown) =>
    ctx.app.inject({ method, url: url(name), headers, payload: payload as object });
  const ok = async (method: Method, owner: TestUser, payload: unknown) => {
    const res = await write(method, owner.user.name, owner.auth, payload);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
  };
  const titles = async (owner: TestUser, query = '') => {
    const res = await get(owner.user.name, owner.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().played.map((e: { movie: { title: string } }) => e.movie.title);
  };
  /** The stored watch dates, in a stable order. */
  const stored = () =>
    ctx.db
      .selectFrom('watch_dates')
      .select(['user_id', 'movie_id', 'watched_at', 'plays', 'comment', 'position'])
      .orderBy('user_id')
      .orderBy('movie_id')
      // The unknown (null) date first on every engine.
      .orderBy((eb) => eb.case().when('watched_at', 'is', null).then(0).else(1).end())
      .orderBy('watched_at')
      .execute();
  const watchlist = async (userId: number) =>
    (
      await ctx.db
        .selectFrom('watchlist')
        .select('movie_id')
        .where('user_id', '=', userId)
        .orderBy('movie_id')
        .execute()
    ).map((r) => r.movie_id);
  const onWatchlist = async (userId: number, ...movieIds: number[]) => {
    await ctx.db
      .insertInto('watchlist')
      .values(
        movieIds.map((movie_id) => ({ user_id: userId, movie_id, added_at: ctx.clock.now().toISOString() })),
      )
      .execute();
  };

  describe('authentication and access', () => {
    it('requires a token, before the body is even read', async () => {
      const { user } = await createUser(ctx);
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: url(user.name),
          payload: method === 'GET' ? undefined : [{ serviceId: 'not even valid' }],
        });
        expect(res.statusCode, method).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
      const bad = await get(user.name, { 'x-service-token': 'cinelog_not_a_real_token' });
      expect(bad.statusCode).toBe(401);
      expect(bad.body).toBe('');
    });

    it('accepts X-Service-Token as the credential, but not together with a Bearer token', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const header = { 'x-service-token': alice.token };
      const item = { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 1 }] };
      for (const method of ['POST', 'PUT'] as const) {
        expect((await write(method, alice.user.name, header, [item])).statusCode, method).toBe(204);
      }
      const res = await get(alice.user.name, header);
      expect(res.statusCode).toBe(200);
      expect(res.json().played).toHaveLength(1);
      expect((await write('DELETE', alice.user.name, header, [{ serviceId: movie.id }])).statusCode).toBe(
        204,
      );
      expect(await stored()).toEqual([]);
      const both = await get(alice.user.name, { ...header, ...alice.auth });
      expect(both.statusCode).toBe(401);
      expect(both.body).toBe('');
    });

    it("refuses writes to another user's plays and reads them unless private", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const movie = await createMovie(ctx);
      await ok('POST', alice, [{ serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02' }] }]);
      const before = await stored();

      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const dates = method === 'DELETE' ? ['2024-01-02'] : [{ watchedAt: '2024-01-03', plays: 1 }];
        const res = await write(method, alice.user.name, bob.auth, [
          { serviceId: movie.id, watchDates: dates },
        ]);
        expect(res.statusCode, method).toBe(403);
        expect(res.json().error).toBe('Forbidden');
      }
      expect(await stored()).toEqual(before);

      const read = await get(alice.user.name, bob.auth);
      expect(read.statusCode).toBe(200);
      expect(read.json().played.map((e: { movie: { title: string } }) => e.movie.title)).toEqual([
        movie.title,
      ]);
      await ctx.users.update(alice.user.name, { privacy: 'private' });
      const hidden = await get(alice.user.name, bob.auth);
      expect(hidden.statusCode).toBe(403);
      expect(hidden.json().error).toBe('Forbidden');
      expect(await titles(alice)).toEqual([movie.title]);
    });

    it('answers 404 for an unknown user', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const payload = [{ serviceId: movie.id, watchDates: [{ watchedAt: null, plays: 1 }] }];
      for (const res of [
        await get('nobody', alice.auth),
        await write('POST', 'nobody', alice.auth, payload),
        await write('PUT', 'nobody', alice.auth, payload),
        await write('DELETE', 'nobody', alice.auth, payload),
      ]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'UserNotFound', message: 'no user named "nobody"' });
      }
    });
  });

  describe('POST', () => {
    it('adds plays per date (null: unknown date) and lists them newest first, the unknown date last', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx, { title: 'Heat', poster_path: '/heat.jpg', imdb_id: 'tt0113277' });
      await setRating(ctx, alice.user.id, movie.id, 9);
      await ok('POST', alice, [
        {
          serviceId: movie.id,
          watchDates: [
            { watchedAt: '2024-01-02', plays: 2, comment: 'great' },
            { watchedAt: null },
            { watchedAt: '2024-05-06' },
          ],
        },
      ]);

      const res = await get(alice.user.name, alice.auth);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        played: [
          {
            movie: {
              title: 'Heat',
              originalTitle: 'Heat',
              releaseDate: '2001-02-03',
              tagline: 'A tagline',
              overview: 'An overview',
              originalLanguage: 'en',
              runtime: 100,
              posterPath: 'http://images.test/t/p/w342/heat.jpg',
              ids: {
                service: movie.id,
                provider: movie.tmdbId,
                tracker: null,
                catalog: 'tt0113277',
                journal: null,
              },
              userRating: 9,
              externalRatings: {
                provider: { average: 7.5, count: 1234 },
                catalog: { average: null, count: null },
              },
              updatedAt: null,
              createdAt: '2024-06-15',
            },
            watchedDates: [
              { date: '2024-05-06', plays: 1, comment: null },
              { date: '2024-01-02', plays: 2, comment: 'great' },
              { date: null, plays: 1, comment: null },
            ],
          },
        ],
        currentPage: 1,
        maxPage: 1,
      });
    });

    it('adds to the stored plays; a null or absent comment keeps the stored one, a new one replaces it', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      await ok('POST', alice, [
        {
          serviceId: movie.id,
          watchDates: [{ watchedAt: '2024-01-02', comment: 'great' }, { watchedAt: null }],
        },
      ]);
      await ok('POST', alice, [
        {
          serviceId: movie.id,
          watchDates: [
            { watchedAt: '2024-01-02', comment: null },
            { watchedAt: null, plays: 3, comment: 'sometime in the 90s' },
          ],
        },
        { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 5 }] },
      ]);
      const dates = async () => (await get(alice.user.name, alice.auth)).json().played[0].watchedDates;
      expect(await dates()).toEqual([
        { date: '2024-01-02', plays: 7, comment: 'great' },
        { date: null, plays: 4, comment: 'sometime in the 90s' },
      ]);
      await ok('POST', alice, [
        { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', comment: 'even better' }] },
      ]);
      expect((await dates())[0]).toEqual({ date: '2024-01-02', plays: 8, comment: 'even better' });
    });

    it("keeps a stored entry's position (set through history); a new entry gets 1", async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const history = await ctx.app.inject({
        method: 'PUT',
        url: `/api/users/${alice.user.name}/history/movies`,
        headers: alice.auth,
        payload: [{ serviceId: movie.id, watchedAt: '2024-01-02', plays: 1, position: 5 }],
      });
      expect(history.statusCode).toBe(204);
      await ok('POST', alice, [
        { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02' }, { watchedAt: null }] },
      ]);
      await ok('PUT', alice, [{ serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 4 }] }]);
      expect(await stored()).toEqual([
        {
          user_id: alice.user.id,
          movie_id: movie.id,
          watched_at: null,
          plays: 1,
          comment: null,
          position: 1,
        },
        {
          user_id: alice.user.id,
          movie_id: movie.id,
          watched_at: '2024-01-02',
          plays: 4,
          comment: null,
          position: 5,
        },
      ]);
    });

    it("takes the movie off the owner's watchlist, unless the owner turned that off", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const [a, b, c, d] = [
        await createMovie(ctx),
        await createMovie(ctx),
        await createMovie(ctx),
        await createMovie(ctx),
      ];
      await onWatchlist(alice.user.id, a.id, b.id, c.id, d.id);
      await onWatchlist(bob.user.id, a.id);

      await ok('POST', alice, [
        { serviceId: a.id, watchDates: [{ watchedAt: null }] },
        { serviceId: c.id, watchDates: [] }, // no play written: stays on the list
      ]);
      expect(await watchlist(alice.user.id)).toEqual([b.id, c.id, d.id]);
      await ok('PUT', alice, [{ serviceId: b.id, watchDates: [{ watchedAt: '2024-01-02', plays: 1 }] }]);
      expect(await watchlist(alice.user.id)).toEqual([c.id, d.id]);
      expect(await watchlist(bob.user.id)).toEqual([a.id]);

      await ctx.db
        .updateTable('users')
        .set({ watchlist_auto_remove: 0 })
        .where('id', '=', alice.user.id)
        .execute();
      await ok('POST', alice, [{ serviceId: c.id, watchDates: [{ watchedAt: '2024-01-03' }] }]);
      await ok('PUT', alice, [{ serviceId: d.id, watchDates: [{ watchedAt: '2024-01-03', plays: 1 }] }]);
      expect(await watchlist(alice.user.id)).toEqual([c.id, d.id]);
    });
  });

  describe('PUT', () => {
    it('replaces plays and comment of the given dates, creates missing ones and leaves other dates alone', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const other = await createMovie(ctx);
      await ok('POST', alice, [
        {
          serviceId: movie.id,
          watchDates: [
            { watchedAt: '2024-01-02', plays: 3, comment: 'x' },
            { watchedAt: '2024-05-06', comment: 'keep me' },
            { watchedAt: null, plays: 2, comment: 'y' },
          ],
        },
        { serviceId: other.id, watchDates: [{ watchedAt: '2024-01-02', plays: 2 }] },
      ]);
      await ok('PUT', alice, [
        {
          serviceId: movie.id,
          watchDates: [
            { watchedAt: '2024-01-02', plays: 1 },
            { watchedAt: null, plays: 5, comment: 'z' },
            { watchedAt: '2024-06-07', plays: 2, comment: 'new' },
          ],
        },
      ]);
      const body = (await get(alice.user.name, alice.auth, '?sortBy=title')).json();
      const byId = (id: number) =>
        body.played.find((e: { movie: { ids: { service: number } } }) => e.movie.ids.service === id)
          .watchedDates;
      expect(byId(movie.id)).toEqual([
        { date: '2024-06-07', plays: 2, comment: 'new' },
        { date: '2024-05-06', plays: 1, comment: 'keep me' },
        { date: '2024-01-02', plays: 1, comment: null },
        { date: null, plays: 5, comment: 'z' },
      ]);
      expect(byId(other.id)).toEqual([{ date: '2024-01-02', plays: 2, comment: null }]);
    });

    it('requires plays on every date', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const res = await write('PUT', alice.user.name, alice.auth, [
        { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02' }] },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('InvalidRequestBody');
      expect(await stored()).toEqual([]);
    });
  });

  describe('DELETE', () => {
    const seedDates = async (owner: TestUser, movieId: number) =>
      ok('POST', owner, [
        {
          serviceId: movieId,
          watchDates: [{ watchedAt: '2024-01-01' }, { watchedAt: '2024-02-02' }, { watchedAt: null }],
        },
      ]);
    const datesOf = async (movieId: number) =>
      (await stored()).filter((r) => r.movie_id === movieId).map((r) => r.watched_at);

    it('deletes the given dates, null being the unknown date', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      await seedDates(alice, movie.id);
      await ok('DELETE', alice, [{ serviceId: movie.id, watchDates: ['2024-01-01', '2023-01-01'] }]);
      expect(await datesOf(movie.id)).toEqual([null, '2024-02-02']);
      await ok('DELETE', alice, [{ serviceId: movie.id, watchDates: [null] }]);
      expect(await datesOf(movie.id)).toEqual(['2024-02-02']);
    });

    it('deletes every date of a movie when watchDates is absent or empty, only for the owner', async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const [a, b, c] = [await createMovie(ctx), await createMovie(ctx), await createMovie(ctx)];
      await seedDates(alice, a.id);
      await seedDates(alice, b.id);
      await seedDates(alice, c.id);
      await seedDates(bob, a.id);
      await ok('DELETE', alice, [{ serviceId: a.id }, { serviceId: b.id, watchDates: [] }]);
      expect((await stored()).map((r) => [r.user_id, r.movie_id])).toEqual([
        [alice.user.id, c.id],
        [alice.user.id, c.id],
        [alice.user.id, c.id],
        [bob.user.id, a.id],
        [bob.user.id, a.id],
        [bob.user.id, a.id],
      ]);
      expect(await titles(alice)).toEqual([c.title]);
      // A movie without plays: nothing to do.
      await ok('DELETE', alice, [{ serviceId: a.id }]);
    });
  });

  describe('atomic batches', () => {
    it('rejects a whole batch naming an unknown movie with a 404 naming the id', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      await ok('POST', alice, [{ serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 2 }] }]);
      await onWatchlist(alice.user.id, movie.id);
      const before = await stored();
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const dates = method === 'DELETE' ? ['2024-01-02'] : [{ watchedAt: '2024-01-02', plays: 1 }];
        const res = await write(method, alice.user.name, alice.auth, [
          { serviceId: movie.id, watchDates: dates },
          { serviceId: 424242, watchDates: dates },
        ]);
        expect(res.statusCode, method).toBe(404);
        expect(res.json(), method).toEqual({
          error: 'MovieNotFound',
          message: 'no movie with serviceId 424242',
        });
      }
      const noDates = await write('POST', alice.user.name, alice.auth, [
        { serviceId: 424243, watchDates: [] },
      ]);
      expect(noDates.statusCode).toBe(404);
      expect(await stored()).toEqual(before);
      expect(await watchlist(alice.user.id)).toEqual([movie.id]);
    });

    it('rejects a whole batch with one invalid item with a 400, changing nothing', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const good = { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 1 }] };
      const bad: [Method, unknown][] = [
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2023-02-30' }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2024-1-2' }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: '5' }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 0 }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', plays: 1.5 }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ watchedAt: '2024-01-02', comment: 5 }] }],
        ['POST', { serviceId: movie.id, watchDates: [{ plays: 1 }] }],
        ['POST', { serviceId: movie.id }],
        ['POST', { serviceId: String(movie.id), watchDates: [] }],
        ['PUT', { serviceId: movie.id, watchDates: [{ watchedAt: '2023-02-29', plays: 1 }] }],
        ['PUT', { serviceId: movie.id, watchDates: [{ watchedAt: null, plays: '1' }] }],
        ['DELETE', { serviceId: movie.id, watchDates: ['2023-02-30'] }],
        ['DELETE', { serviceId: movie.id, watchDates: '2024-01-02' }],
      ];
      for (const [method, item] of bad) {
        const res = await write(method, alice.user.name, alice.auth, [good, item]);
        expect(res.statusCode, `${method} ${JSON.stringify(item)}`).toBe(400);
        expect(res.json()).toEqual({ error: 'InvalidRequestBody', message: expect.any(String) });
      }
      expect(await stored()).toEqual([]);
    });
  });

  describe('GET', () => {
    /** Four played movies with ties and missing values in every sort key. */
    const seed = async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const alpha = await createMovie(ctx, { title: 'alpha', release_date: '2001-01-01', runtime: 120 });
      const bravo = await createMovie(ctx, { title: 'Bravo', release_date: null, runtime: 90 });
      const charlie = await createMovie(ctx, { title: 'charlie', release_date: '1999-05-05', runtime: null });
      const delta = await createMovie(ctx, { title: 'Delta', release_date: '2010-10-10', runtime: 90 });
      const unplayed = await createMovie(ctx, { title: 'Echo', release_date: '2001-06-06' });
      await setRating(ctx, alice.user.id, alpha.id, 5);
      await setRating(ctx, alice.user.id, charlie.id, 9);
      await setRating(ctx, alice.user.id, delta.id, 5);
      await setRating(ctx, bob.user.id, bravo.id, 10);
      await onWatchlist(alice.user.id, unplayed.id);
      await ok('POST', alice, [
        { serviceId: alpha.id, watchDates: [{ watchedAt: '2024-01-01' }, { watchedAt: null }] },
        { serviceId: bravo.id, watchDates: [{ watchedAt: null }] },
        { serviceId: charlie.id, watchDates: [{ watchedAt: '2023-12-31' }, { watchedAt: '2024-03-01' }] },
        { serviceId: delta.id, watchDates: [{ watchedAt: '2024-03-01' }] },
      ]);
      // Someone else's plays are not alice's.
      await ok('POST', bob, [{ serviceId: unplayed.id, watchDates: [{ watchedAt: '2024-06-01' }] }]);
      return alice;
    };

    it('sorts by every key in both directions, missing values last; addedAt is the latest watch date', async () => {
      const alice = await seed();
      const expected: Record<string, [string[], string[]]> = {
        addedAt: [
          ['alpha', 'charlie', 'Delta', 'Bravo'],
          ['charlie', 'Delta', 'alpha', 'Bravo'],
        ],
        title: [
          ['alpha', 'Bravo', 'charlie', 'Delta'],
          ['Delta', 'charlie', 'Bravo', 'alpha'],
        ],
        rating: [
          ['alpha', 'Delta', 'charlie', 'Bravo'],
          ['charlie', 'alpha', 'Delta', 'Bravo'],
        ],
        releaseDate: [
          ['charlie', 'alpha', 'Delta', 'Bravo'],
          ['Delta', 'alpha', 'charlie', 'Bravo'],
        ],
        runtime: [
          ['Bravo', 'Delta', 'alpha', 'charlie'],
          ['alpha', 'Bravo', 'Delta', 'charlie'],
        ],
      };
      for (const [sortBy, [asc, desc]] of Object.entries(expected)) {
        expect(await titles(alice, `?sortBy=${sortBy}&sortOrder=asc`), `${sortBy} asc`).toEqual(asc);
        expect(await titles(alice, `?sortBy=${sortBy}&sortOrder=desc`), `${sortBy} desc`).toEqual(desc);
      }
      expect(await titles(alice)).toEqual(expected.title![0]);
      expect(await titles(alice, '?sortOrder=desc')).toEqual(expected.title![1]);
      expect(await titles(alice, '?sortBy=addedAt')).toEqual(expected.addedAt![0]);
    });

    it('returns every watch date of each movie on the page', async () => {
      const alice = await seed();
      const body = (await get(alice.user.name, alice.auth, '?sortBy=title&limit=3')).json();
      expect(
        body.played.map((e: { movie: { title: string }; watchedDates: unknown[] }) => [
          e.movie.title,
          e.watchedDates,
        ]),
      ).toEqual([
        [
          'alpha',
          [
            { date: '2024-01-01', plays: 1, comment: null },
            { date: null, plays: 1, comment: null },
          ],
        ],
        ['Bravo', [{ date: null, plays: 1, comment: null }]],
        [
          'charlie',
          [
            { date: '2024-03-01', plays: 1, comment: null },
            { date: '2023-12-31', plays: 1, comment: null },
          ],
        ],
      ]);
      expect([body.currentPage, body.maxPage]).toEqual([1, 2]);
      expect(body.played[1].movie.userRating).toBeNull();
    });

    it('rejects unknown sort keys and orders', async () => {
      const alice = await createUser(ctx);
      for (const query of ['?sortBy=watchedAt', '?sortBy=', '?sortOrder=descending']) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error).toBe('InvalidQueryParameter');
      }
    });

    it('searches title and original title, case-insensitively, with % and _ matching themselves', async () => {
      const alice = await createUser(ctx);
      const movies = [
        await createMovie(ctx, { title: 'Amelie', original_title: 'Le Fabuleux Destin' }),
        await createMovie(ctx, { title: '100% Wolf', original_title: null }),
        await createMovie(ctx, { title: '1000 Wolves' }),
        await createMovie(ctx, { title: 'snake_case' }),
        await createMovie(ctx, { title: 'snake case' }),
      ];
      await ok(
        'POST',
        alice,
        movies.map((m) => ({ serviceId: m.id, watchDates: [{ watchedAt: null }] })),
      );
      expect(await titles(alice, '?search=aMeL')).toEqual(['Amelie']);
      expect(await titles(alice, '?search=FABULEUX')).toEqual(['Amelie']);
      expect(await titles(alice, '?search=%25')).toEqual(['100% Wolf']);
      expect(await titles(alice, '?search=_')).toEqual(['snake_case']);
      expect((await titles(alice, '?search=wol')).sort()).toEqual(['100% Wolf', '1000 Wolves']);
      expect(await titles(alice, '?search=zzz')).toEqual([]);
    });

    it('filters by release year', async () => {
      const alice = await seed();
      expect(await titles(alice, '?releaseYear=2001')).toEqual(['alpha']);
      expect(await titles(alice, '?releaseYear=2010&search=del')).toEqual(['Delta']);
      expect(await titles(alice, '?releaseYear=2002')).toEqual([]);
      for (const query of ['?releaseYear=abc', '?releaseYear=123', '?releaseYear=12345']) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error).toBe('InvalidQueryParameter');
      }
    });

    it('pages: maxPage 0 for an empty list, the last page, pages beyond the end, bad values', async () => {
      const alice = await createUser(ctx);
      expect((await get(alice.user.name, alice.auth)).json()).toEqual({
        played: [],
        currentPage: 1,
        maxPage: 0,
      });
      const movies = [];
      for (const title of ['a', 'b', 'c', 'd', 'e']) movies.push(await createMovie(ctx, { title }));
      await ok(
        'POST',
        alice,
        movies.map((m) => ({
          serviceId: m.id,
          watchDates: [{ watchedAt: '2024-01-01' }, { watchedAt: '2024-01-02' }],
        })),
      );
      const page = async (query: string) => {
        const body = (await get(alice.user.name, alice.auth, `?${query}`)).json();
        return [
          body.played.map((e: { movie: { title: string } }) => e.movie.title),
          body.currentPage,
          body.maxPage,
        ];
      };
      // Counted per movie, not per watch date.
      expect(await page('limit=2')).toEqual([['a', 'b'], 1, 3]);
      expect(await page('limit=2&page=3')).toEqual([['e'], 3, 3]);
      expect(await page('limit=2&page=9')).toEqual([[], 9, 3]);
      expect(await page('')).toEqual([['a', 'b', 'c', 'd', 'e'], 1, 1]);
      for (const query of ['?limit=0', '?limit=1001', '?page=0', '?page=abc']) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toEqual({ error: 'InvalidQueryParameter', message: expect.any(String) });
      }
    });
  });
});
