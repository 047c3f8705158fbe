import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';

const url = (name: string) => `/api/users/${name}/ratings/movies`;

describe('ratings', () => {
  let ctx: TestContext;
  let alice: TestUser;
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
  });
  afterEach(async () => {
    await ctx.close();
  });

  const get = (name: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: url(name) + query, headers });
  const write = (method: 'PUT' | 'DELETE', name: string, headers: Record<string, string>, payload: unknown) =>
    ctx.app.inject({ method, url: url(name), headers, payload: payload as object });
  const rate = async (owner: TestUser, ...items: [number, number][]) => {
    const res = await write(
      'PUT',
      owner.user.name,
      owner.auth,
      items.map(([serviceId, rating]) => ({ serviceId, rating })),
    );
    expect(res.statusCode, res.body).toBe(204);
  };
  const listed = async (owner: TestUser, query = '') => {
    const res = await get(owner.user.name, owner.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      ratings: { movie: { title: string; userRating: number | null }; rating: number; ratedAt: string }[];
      currentPage: number;
      maxPage: number;
    };
  };
  const stored = () =>
    ctx.db.selectFrom('ratings').select(['user_id', 'movie_id', 'rating']).orderBy('movie_id').execute();

  describe('authentication and access', () => {
    it('requires a token before anything else, for every method', async () => {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: url('alice'),
          payload: method === 'GET' ? undefined : '{not json',
          headers: { 'content-type': 'application/json' },
        });
        expect(res.statusCode, method).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
    });

    it("refuses writes to another user's ratings and reads them unless they are private", async () => {
      const bob = await createUser(ctx, { name: 'bob' });
      const movie = await createMovie(ctx);
      await rate(alice, [movie.id, 7]);
      for (const method of ['PUT', 'DELETE'] as const) {
        const res = await write(method, 'alice', bob.auth, [{ serviceId: movie.id, rating: 1 }]);
        expect(res.statusCode, method).toBe(403);
        expect(res.json()).toMatchObject({ error: 'Forbidden' });
      }
      expect(await stored()).toEqual([{ user_id: alice.user.id, movie_id: movie.id, rating: 7 }]);
      expect((await listed(bob)).ratings).toEqual([]);
      const seen = await get('alice', bob.auth);
      expect(seen.statusCode).toBe(200);
      expect(seen.json().ratings[0]).toMatchObject({ rating: 7, movie: { userRating: 7 } });
      await ctx.users.update('alice', { privacy: 'private' });
      const hidden = await get('alice', bob.auth);
      expect(hidden.statusCode).toBe(403);
      expect(Object.keys(hidden.json()).sort()).toEqual(['error', 'message']);
      expect((await get('alice', alice.auth)).statusCode).toBe(200);
    });

    it('answers 404 for an unknown user, before validating the body', async () => {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: url('nobody'),
          headers: alice.auth,
          payload: method === 'GET' ? undefined : [{ serviceId: 'x' }],
        });
        expect(res.statusCode, method).toBe(404);
        expect(res.json()).toMatchObject({ error: 'UserNotFound' });
      }
    });
  });

  describe('writes', () => {
    it('sets, replaces and deletes ratings; deleting one that does not exist is no error', async () => {
      const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
      await rate(alice, [a.id, 4], [b.id, 10]);
      expect(await stored()).toEqual([
        { user_id: alice.user.id, movie_id: a.id, rating: 4 },
        { user_id: alice.user.id, movie_id: b.id, rating: 10 },
      ]);
      await rate(alice, [a.id, 9]);
      expect((await stored())[0]?.rating).toBe(9);
      const deleted = await write('DELETE', 'alice', alice.auth, [{ serviceId: a.id }, { serviceId: a.id }]);
      expect(deleted.statusCode).toBe(204);
      expect(await write('DELETE', 'alice', alice.auth, [{ serviceId: a.id }])).toMatchObject({
        statusCode: 204,
      });
      expect(await stored()).toEqual([{ user_id: alice.user.id, movie_id: b.id, rating: 10 }]);
      // A movie named twice in one batch gets the last of its ratings.
      await rate(alice, [a.id, 2], [a.id, 3]);
      expect((await stored())[0]).toMatchObject({ movie_id: a.id, rating: 3 });
    });

    it.each([
      ['a rating of 0', [{ serviceId: 1, rating: 0 }]],
      ['a rating of 11', [{ serviceId: 1, rating: 11 }]],
      ['a half rating', [{ serviceId: 1, rating: 7.5 }]],
      ['a rating as text', [{ serviceId: 1, rating: '7' }]],
      ['no rating', [{ serviceId: 1 }]],
      ['no serviceId', [{ rating: 5 }]],
      ['an object instead of an array', { serviceId: 1, rating: 5 }],
    ])('refuses %s with a 400 in the envelope, changing nothing', async (_case, payload) => {
      const movie = await createMovie(ctx);
      await rate(alice, [movie.id, 5]);
      const fixed = JSON.parse(
        JSON.stringify(payload).replaceAll('"serviceId":1', `"serviceId":${movie.id}`),
      );
      // A valid item first: the batch applies whole or not at all.
      const body = Array.isArray(fixed) ? [{ serviceId: movie.id, rating: 8 }, ...fixed] : fixed;
      const res = await write('PUT', 'alice', alice.auth, body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
      expect(res.json().error).toBe('InvalidRequestBody');
      expect(await stored()).toEqual([{ user_id: alice.user.id, movie_id: movie.id, rating: 5 }]);
    });

    it('rejects a whole batch naming an unknown movie with a 404 naming the id', async () => {
      const movie = await createMovie(ctx);
      for (const method of ['PUT', 'DELETE'] as const) {
        await rate(alice, [movie.id, 5]);
        const res = await write(method, 'alice', alice.auth, [
          { serviceId: movie.id, rating: 8 },
          { serviceId: 999_999, rating: 8 },
        ]);
        expect(res.statusCode, method).toBe(404);
        expect(res.json()).toMatchObject({ error: 'MovieNotFound' });
        expect(res.json().message).toContain('999999');
        expect(await stored(), method).toEqual([{ user_id: alice.user.id, movie_id: movie.id, rating: 5 }]);
      }
    });

    it("shows a change at once as userRating of the movie in the owner's other lists", async () => {
      const movie = await createMovie(ctx);
      const headers = { ...alice.auth, 'content-type': 'application/json' };
      await ctx.app.inject({
        method: 'POST',
        url: '/api/users/alice/history/movies',
        headers,
        payload: [{ serviceId: movie.id, watchedAt: '2024-01-01' }],
      });
      const userRating = async () =>
        (await ctx.app.inject({ url: '/api/users/alice/history/movies', headers: alice.auth })).json()
          .watchlist[0].movie.userRating;
      expect(await userRating()).toBeNull();
      await rate(alice, [movie.id, 6]);
      expect(await userRating()).toBe(6);
      await write('DELETE', 'alice', alice.auth, [{ serviceId: movie.id }]);
      expect(await userRating()).toBeNull();
    });
  });

  describe('the list', () => {
    it("lists ratings most recently rated first, with ratedAt in the owner's time zone", async () => {
      await ctx.users.update('alice', { timezone: 'Asia/Tokyo' });
      const [a, b] = [await createMovie(ctx, { title: 'Alpha' }), await createMovie(ctx, { title: 'Beta' })];
      ctx.clock.set('2024-06-15T20:00:00.000Z');
      await rate(alice, [a.id, 8]);
      ctx.clock.set('2024-06-16T10:00:00.000Z');
      await rate(alice, [b.id, 3]);
      const page = await listed(alice);
      expect(page).toMatchObject({ currentPage: 1, maxPage: 1 });
      expect(page.ratings.map((r) => [r.movie.title, r.rating, r.ratedAt, r.movie.userRating])).toEqual([
        ['Beta', 3, '2024-06-16', 3],
        ['Alpha', 8, '2024-06-16', 8],
      ]);
      // Replacing a rating moves it to the top: ratedAt is when it was last set.
      ctx.clock.set('2024-07-01T10:00:00.000Z');
      await rate(alice, [a.id, 9]);
      expect((await listed(alice)).ratings.map((r) => [r.movie.title, r.ratedAt])).toEqual([
        ['Alpha', '2024-07-01'],
        ['Beta', '2024-06-16'],
      ]);
    });

    it('sorts by rating, title and release date in both directions, and searches titles', async () => {
      const movies = [
        await createMovie(ctx, { title: 'Cobalt', release_date: '2001-01-01' }),
        await createMovie(ctx, { title: 'amber', original_title: 'Bernstein', release_date: null }),
        await createMovie(ctx, { title: 'Birch', release_date: '1999-05-05' }),
      ];
      await rate(alice, [movies[0]!.id, 5], [movies[1]!.id, 9], [movies[2]!.id, 5]);
      const order = async (query: string) => (await listed(alice, query)).ratings.map((r) => r.movie.title);
      expect(await order('?sortBy=rating&sortOrder=desc')).toEqual(['amber', 'Birch', 'Cobalt']);
      expect(await order('?sortBy=rating&sortOrder=asc')).toEqual(['Birch', 'Cobalt', 'amber']);
      expect(await order('?sortBy=title&sortOrder=asc')).toEqual(['amber', 'Birch', 'Cobalt']);
      expect(await order('?sortBy=title&sortOrder=desc')).toEqual(['Cobalt', 'Birch', 'amber']);
      expect(await order('?sortBy=releaseDate&sortOrder=asc')).toEqual(['Birch', 'Cobalt', 'amber']);
      expect(await order('?sortBy=releaseDate&sortOrder=desc')).toEqual(['Cobalt', 'Birch', 'amber']);
      expect(await order('?search=BERN')).toEqual(['amber']);
      expect(await order('?search=irc')).toEqual(['Birch']);
    });

    it('pages with a default of 24, and refuses unknown sorts and bad pages', async () => {
      const ids = [];
      for (let i = 0; i < 25; i++) ids.push((await createMovie(ctx)).id);
      await rate(alice, ...ids.map((id): [number, number] => [id, 5]));
      expect(await listed(alice)).toMatchObject({ currentPage: 1, maxPage: 2 });
      expect((await listed(alice)).ratings).toHaveLength(24);
      expect((await listed(alice, '?page=2')).ratings).toHaveLength(1);
      expect((await listed(alice, '?page=3&limit=10')).ratings).toHaveLength(5);
      for (const query of ['?sortBy=addedAt', '?sortBy=runtime', '?sortOrder=up', '?page=0', '?limit=1001']) {
        const res = await get('alice', alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error, query).toBe('InvalidQueryParameter');
      }
    });

    it('is in the OpenAPI document with all three methods', async () => {
      const doc = (await ctx.app.inject({ url: '/api/openapi.json' })).json();
      const path = doc.paths['/users/{username}/ratings/movies'];
      expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'put']);
      expect(path.put.responses['204']).toBeDefined();
      expect(path.get.responses['403']).toBeDefined();
    });
  });
});
