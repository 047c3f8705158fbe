import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setRating,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';

const url = (name: string) => `/api/users/${name}/watchlist/movies`;

describe('watchlist', () => {
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
    method: 'POST' | 'DELETE',
    name: string,
    headers: Record<string, string>,
    payload: unknown,
  ) => ctx.app.inject({ method, url: url(name), headers, payload: payload as object });
  const add = async (owner: TestUser, ...movieIds: number[]) => {
    const res = await write(
      'POST',
      owner.user.name,
      owner.auth,
      movieIds.map((serviceId) => ({ serviceId })),
    );
    expect(res.statusCode, res.body).toBe(204);
  };
  const titles = async (owner: TestUser, query = '') => {
    const res = await get(owner.user.name, owner.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().watchlist.map((e: { movie: { title: string } }) => e.movie.title);
  };
  const stored = (userId?: number) => {
    let query = ctx.db.selectFrom('watchlist').select(['user_id', 'movie_id', 'added_at']).orderBy('id');
    if (userId !== undefined) query = query.where('user_id', '=', userId);
    return query.execute();
  };

  describe('authentication and access', () => {
    it('requires a token, before the body is even read', async () => {
      const { user } = await createUser(ctx);
      for (const method of ['GET', 'POST', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: url(user.name),
          payload: method === 'GET' ? undefined : [{ serviceId: 'not even valid' }],
        });
        expect(res.statusCode, method).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
      const bad = await get(user.name, { authorization: 'Bearer cinelog_not_a_real_token' });
      expect(bad.statusCode).toBe(401);
    });

    it('accepts X-Service-Token as the credential, but not together with a Bearer token', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const header = { 'x-service-token': alice.token };
      expect((await write('POST', alice.user.name, header, [{ serviceId: movie.id }])).statusCode).toBe(204);
      const res = await get(alice.user.name, header);
      expect(res.statusCode).toBe(200);
      expect(res.json().watchlist).toHaveLength(1);
      expect((await write('DELETE', alice.user.name, header, [{ serviceId: movie.id }])).statusCode).toBe(
        204,
      );
      expect(await stored()).toEqual([]);
      const both = await get(alice.user.name, { ...header, ...alice.auth });
      expect(both.statusCode).toBe(401);
      expect(both.body).toBe('');
    });

    it("refuses writes to another user's watchlist and reads it unless it is private", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const movie = await createMovie(ctx);
      await add(alice, movie.id);
      const before = await stored();

      for (const method of ['POST', 'DELETE'] as const) {
        const res = await write(method, alice.user.name, bob.auth, [{ serviceId: movie.id }]);
        expect(res.statusCode, method).toBe(403);
        expect(res.json().error).toBe('Forbidden');
      }
      expect(await stored()).toEqual(before);

      expect(await titles({ ...bob, user: alice.user })).toEqual([movie.title]);
      await ctx.users.update(alice.user.name, { privacy: 'private' });
      const hidden = await get(alice.user.name, bob.auth);
      expect(hidden.statusCode).toBe(403);
      expect(hidden.json().error).toBe('Forbidden');
      expect(await titles(alice)).toEqual([movie.title]);
    });

    it('answers 404 for an unknown user', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      for (const res of [
        await get('nobody', alice.auth),
        await write('POST', 'nobody', alice.auth, [{ serviceId: movie.id }]),
        await write('DELETE', 'nobody', alice.auth, [{ serviceId: movie.id }]),
      ]) {
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'UserNotFound', message: 'no user named "nobody"' });
      }
    });
  });

  describe('POST and DELETE', () => {
    it('adds movies and lists them with the whole movie object, most recently added first', async () => {
      const alice = await createUser(ctx);
      const first = await createMovie(ctx, {
        title: 'First',
        poster_path: '/first.jpg',
        imdb_id: 'tt0000001',
      });
      const second = await createMovie(ctx, { title: 'Second', release_date: null, runtime: null });
      await setRating(ctx, alice.user.id, first.id, 7);
      await add(alice, first.id);
      ctx.clock.advance(86_400_000);
      await add(alice, second.id);

      const res = await get(alice.user.name, alice.auth);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        watchlist: [
          {
            movie: expect.objectContaining({ title: 'Second', releaseDate: null, runtime: null }),
            addedAt: '2024-06-16',
          },
          {
            movie: {
              title: 'First',
              originalTitle: 'First',
              releaseDate: '2001-02-03',
              tagline: 'A tagline',
              overview: 'An overview',
              originalLanguage: 'en',
              runtime: 100,
              posterPath: 'http://images.test/t/p/w342/first.jpg',
              ids: {
                service: first.id,
                provider: first.tmdbId,
                tracker: null,
                catalog: 'tt0000001',
                journal: null,
              },
              userRating: 7,
              externalRatings: {
                provider: { average: 7.5, count: 1234 },
                catalog: { average: null, count: null },
              },
              updatedAt: null,
              createdAt: '2024-06-15',
            },
            addedAt: '2024-06-15',
          },
        ],
        currentPage: 1,
        maxPage: 1,
      });
    });

    it("shows another user's own rating nowhere: userRating is the list owner's", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const movie = await createMovie(ctx);
      await setRating(ctx, bob.user.id, movie.id, 3);
      await add(alice, movie.id);
      const res = await get(alice.user.name, bob.auth);
      expect(res.json().watchlist[0].movie.userRating).toBeNull();
      await setRating(ctx, alice.user.id, movie.id, 9);
      expect((await get(alice.user.name, bob.auth)).json().watchlist[0].movie.userRating).toBe(9);
    });

    it('keeps one entry with its first added date when a movie is added again, also within one batch', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const other = await createMovie(ctx);
      await add(alice, movie.id, movie.id);
      ctx.clock.advance(3 * 86_400_000);
      await add(alice, other.id, movie.id, other.id);

      expect(await stored()).toEqual([
        { user_id: alice.user.id, movie_id: movie.id, added_at: '2024-06-15T12:00:00.000Z' },
        { user_id: alice.user.id, movie_id: other.id, added_at: '2024-06-18T12:00:00.000Z' },
      ]);
      const body = (await get(alice.user.name, alice.auth)).json();
      expect(
        body.watchlist.map((e: { movie: { ids: { service: number } }; addedAt: string }) => [
          e.movie.ids.service,
          e.addedAt,
        ]),
      ).toEqual([
        [other.id, '2024-06-18'],
        [movie.id, '2024-06-15'],
      ]);
    });

    it("gives addedAt as the calendar date in the list owner's time zone", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const movie = await createMovie(ctx);
      await ctx.users.update(alice.user.name, { timezone: 'Europe/Berlin' });
      ctx.clock.set('2024-06-15T22:30:00.000Z'); // 00:30 on the 16th in Berlin
      await add(alice, movie.id);
      const addedAt = (res: { json(): { watchlist: { addedAt: string }[] } }) =>
        res.json().watchlist[0]?.addedAt;
      expect(addedAt(await get(alice.user.name, alice.auth))).toBe('2024-06-16');
      // Whoever reads it: the owner's zone, not the reader's (bob is on UTC).
      expect(addedAt(await get(alice.user.name, bob.auth))).toBe('2024-06-16');

      await ctx.users.update(alice.user.name, { timezone: 'America/Los_Angeles' }); // 15:30 on the 15th
      expect(addedAt(await get(alice.user.name, alice.auth))).toBe('2024-06-15');
      await ctx.users.update(alice.user.name, { timezone: 'UTC' });
      expect(addedAt(await get(alice.user.name, alice.auth))).toBe('2024-06-15');
    });

    it('removes movies; a movie not on the list is ignored', async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const [a, b, c] = [await createMovie(ctx), await createMovie(ctx), await createMovie(ctx)];
      await add(alice, a.id, b.id);
      await add(bob, a.id);
      const res = await write('DELETE', alice.user.name, alice.auth, [
        { serviceId: a.id },
        { serviceId: c.id },
      ]);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect((await stored()).map((r) => [r.user_id, r.movie_id])).toEqual([
        [alice.user.id, b.id],
        [bob.user.id, a.id],
      ]);
      expect((await write('DELETE', alice.user.name, alice.auth, [])).statusCode).toBe(204);
      expect(await stored(alice.user.id)).toHaveLength(1);
    });

    it('rejects a whole batch naming an unknown movie with a 404 naming the id', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const other = await createMovie(ctx);
      await add(alice, other.id);
      const before = await stored();

      const added = await write('POST', alice.user.name, alice.auth, [
        { serviceId: movie.id },
        { serviceId: 987654 },
      ]);
      expect(added.statusCode).toBe(404);
      expect(added.json()).toEqual({ error: 'MovieNotFound', message: 'no movie with serviceId 987654' });
      expect(await stored()).toEqual(before);

      const removed = await write('DELETE', alice.user.name, alice.auth, [
        { serviceId: other.id },
        { serviceId: 987654 },
        { serviceId: 987655 },
      ]);
      expect(removed.statusCode).toBe(404);
      expect(removed.json().error).toBe('MovieNotFound');
      expect(removed.json().message).toContain('987654, 987655');
      expect(await stored()).toEqual(before);
    });

    it('rejects a batch with one invalid item with a 400, changing nothing', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      for (const payload of [
        [{ serviceId: movie.id }, { serviceId: String(movie.id) }],
        [{ serviceId: movie.id }, { serviceId: 0 }],
        [{ serviceId: movie.id }, {}],
        [{ serviceId: movie.id }, { serviceId: 1.5 }],
        { serviceId: movie.id },
      ]) {
        for (const method of ['POST', 'DELETE'] as const) {
          const res = await write(method, alice.user.name, alice.auth, payload);
          expect(res.statusCode, JSON.stringify(payload)).toBe(400);
          expect(res.json()).toEqual({ error: 'InvalidRequestBody', message: expect.any(String) });
        }
      }
      expect(await stored()).toEqual([]);
    });

    it('accepts 10,000 items in a batch, not more', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx);
      const many = Array.from({ length: 10_000 }, () => ({ serviceId: movie.id }));
      expect((await write('POST', alice.user.name, alice.auth, many)).statusCode).toBe(204);
      expect(await stored()).toHaveLength(1);
      const tooMany = await write('POST', alice.user.name, alice.auth, [...many, { serviceId: movie.id }]);
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().error).toBe('InvalidRequestBody');
    });
  });

  describe('GET', () => {
    /** Four movies with ties and missing values in every sort key. */
    const seed = async () => {
      const alice = await createUser(ctx);
      const alpha = await createMovie(ctx, { title: 'alpha', release_date: '2001-01-01', runtime: 120 });
      const bravo = await createMovie(ctx, { title: 'Bravo', release_date: null, runtime: 90 });
      const charlie = await createMovie(ctx, { title: 'charlie', release_date: '1999-05-05', runtime: null });
      const delta = await createMovie(ctx, { title: 'Delta', release_date: '2010-10-10', runtime: 90 });
      await setRating(ctx, alice.user.id, alpha.id, 5);
      await setRating(ctx, alice.user.id, charlie.id, 9);
      await setRating(ctx, alice.user.id, delta.id, 5);
      await add(alice, alpha.id);
      ctx.clock.advance(60_000);
      await add(alice, bravo.id);
      ctx.clock.advance(60_000);
      await add(alice, charlie.id, delta.id); // same timestamp: insertion order breaks the tie
      return alice;
    };

    it('sorts by every key in both directions, missing values last', async () => {
      const alice = await seed();
      const expected: Record<string, [string[], string[]]> = {
        addedAt: [
          ['alpha', 'Bravo', 'charlie', 'Delta'],
          ['Delta', 'charlie', 'Bravo', 'alpha'],
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
      expect(await titles(alice)).toEqual(expected.addedAt![1]);
      expect(await titles(alice, '?sortBy=rating')).toEqual(expected.rating![1]);
      expect(await titles(alice, '?sortOrder=asc')).toEqual(expected.addedAt![0]);
    });

    it('rejects unknown sort keys and orders', async () => {
      const alice = await createUser(ctx);
      for (const query of ['?sortBy=popularity', '?sortBy=', '?sortOrder=up', '?sortBy=Title']) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error).toBe('InvalidQueryParameter');
      }
    });

    it('searches title and original title, case-insensitively, with % and _ matching themselves', async () => {
      const alice = await createUser(ctx);
      const amelie = await createMovie(ctx, { title: 'Amelie', original_title: 'Le Fabuleux Destin' });
      const wolf = await createMovie(ctx, { title: '100% Wolf', original_title: null });
      const plain = await createMovie(ctx, { title: '1000 Wolves' });
      const underscore = await createMovie(ctx, { title: 'snake_case' });
      const space = await createMovie(ctx, { title: 'snake case' });
      await add(alice, amelie.id, wolf.id, plain.id, underscore.id, space.id);

      expect(await titles(alice, '?search=AMEL')).toEqual(['Amelie']);
      expect(await titles(alice, '?search=fabuleux')).toEqual(['Amelie']);
      expect(await titles(alice, '?search=%25')).toEqual(['100% Wolf']);
      expect(await titles(alice, '?search=0%25%20W')).toEqual(['100% Wolf']);
      expect(await titles(alice, '?search=_')).toEqual(['snake_case']);
      expect((await titles(alice, '?search=wol')).sort()).toEqual(['100% Wolf', '1000 Wolves']);
      expect(await titles(alice, '?search=nothing')).toEqual([]);
      const res = await get(alice.user.name, alice.auth, '?search=wol&limit=1');
      expect(res.json().maxPage).toBe(2);
    });

    it('filters by release year', async () => {
      const alice = await seed();
      expect(await titles(alice, '?releaseYear=2001')).toEqual(['alpha']);
      expect(await titles(alice, '?releaseYear=1999&search=CHAR')).toEqual(['charlie']);
      expect(await titles(alice, '?releaseYear=2020')).toEqual([]);
      for (const query of [
        '?releaseYear=abc',
        '?releaseYear=99',
        '?releaseYear=20011',
        '?releaseYear=2001.5',
      ]) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error).toBe('InvalidQueryParameter');
      }
    });

    it('pages: maxPage 0 for an empty list, the last page, and pages beyond the end', async () => {
      const alice = await createUser(ctx);
      expect((await get(alice.user.name, alice.auth)).json()).toEqual({
        watchlist: [],
        currentPage: 1,
        maxPage: 0,
      });
      expect((await get(alice.user.name, alice.auth, '?page=3')).json()).toEqual({
        watchlist: [],
        currentPage: 3,
        maxPage: 0,
      });

      const movies = [];
      for (const title of ['a', 'b', 'c', 'd', 'e']) movies.push(await createMovie(ctx, { title }));
      await add(alice, ...movies.map((m) => m.id));
      const page = async (query: string) => {
        const body = (await get(alice.user.name, alice.auth, `?sortBy=title&sortOrder=asc&${query}`)).json();
        return [
          body.watchlist.map((e: { movie: { title: string } }) => e.movie.title),
          body.currentPage,
          body.maxPage,
        ];
      };
      expect(await page('limit=2')).toEqual([['a', 'b'], 1, 3]);
      expect(await page('limit=2&page=2')).toEqual([['c', 'd'], 2, 3]);
      expect(await page('limit=2&page=3')).toEqual([['e'], 3, 3]);
      expect(await page('limit=2&page=4')).toEqual([[], 4, 3]);
      expect(await page('limit=5')).toEqual([['a', 'b', 'c', 'd', 'e'], 1, 1]);
      expect(await page('limit=1000')).toEqual([['a', 'b', 'c', 'd', 'e'], 1, 1]);
      expect(await page('')).toEqual([['a', 'b', 'c', 'd', 'e'], 1, 1]);
    });

    it('rejects a bad page or limit', async () => {
      const alice = await createUser(ctx);
      for (const query of [
        '?limit=0',
        '?limit=1001',
        '?limit=-1',
        '?page=0',
        '?page=abc',
        '?page=1.5',
        '?limit=x',
      ]) {
        const res = await get(alice.user.name, alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toEqual({ error: 'InvalidQueryParameter', message: expect.any(String) });
      }
    });

    it('lists 25 movies on two pages by default', async () => {
      const alice = await createUser(ctx);
      const ids = [];
      for (let i = 0; i < 25; i += 1) ids.push((await createMovie(ctx)).id);
      await add(alice, ...ids);
      const first = (await get(alice.user.name, alice.auth)).json();
      expect([first.watchlist.length, first.currentPage, first.maxPage]).toEqual([24, 1, 2]);
      // Added in one batch: newest first is the reverse of the request's order.
      expect(first.watchlist[0].movie.ids.service).toBe(ids[24]);
      const second = (await get(alice.user.name, alice.auth, '?page=2')).json();
      expect(
        second.watchlist.map((e: { movie: { ids: { service: number } } }) => e.movie.ids.service),
      ).toEqual([ids[0]]);
    });
  });
});
