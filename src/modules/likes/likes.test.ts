import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';

const url = (name: string) => `/api/users/${name}/likes/movies`;

describe('likes', () => {
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
  const like = async (owner: TestUser, ...ids: number[]) => {
    const res = await write(
      'PUT',
      owner.user.name,
      owner.auth,
      ids.map((serviceId) => ({ serviceId })),
    );
    expect(res.statusCode, res.body).toBe(204);
  };
  const listed = async (owner: TestUser, query = '', name = owner.user.name) => {
    const res = await get(name, owner.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as {
      likes: {
        movie: { title: string; userRating: number | null; ids: { service: number } };
        likedAt: string;
      }[];
      currentPage: number;
      maxPage: number;
    };
  };
  const stored = () =>
    ctx.db.selectFrom('likes').select(['user_id', 'movie_id', 'liked_at']).orderBy('movie_id').execute();

  describe('authentication and access', () => {
    it('requires authentication, for every method', async () => {
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

    it("other user's data: refuses writes to another user's likes, reads them unless they are private", async () => {
      const bob = await createUser(ctx, { name: 'bob' });
      const movie = await createMovie(ctx);
      await like(alice, movie.id);
      for (const method of ['PUT', 'DELETE'] as const) {
        const res = await write(method, 'alice', bob.auth, [{ serviceId: movie.id }]);
        expect(res.statusCode, method).toBe(403);
        expect(res.json()).toMatchObject({ error: 'Forbidden' });
      }
      expect(await stored()).toEqual([
        { user_id: alice.user.id, movie_id: movie.id, liked_at: expect.any(String) },
      ]);
      expect((await listed(bob)).likes).toEqual([]);
      expect((await listed(bob, '', 'alice')).likes.map((l) => l.movie.ids.service)).toEqual([movie.id]);
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
    it('likes and unlikes; liking twice keeps the first likedAt, unliking a movie not liked is no error', async () => {
      const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
      ctx.clock.set('2024-06-01T10:00:00.000Z');
      await like(alice, a.id);
      ctx.clock.set('2024-06-05T10:00:00.000Z');
      await like(alice, a.id, b.id, b.id);
      expect(await stored()).toEqual([
        { user_id: alice.user.id, movie_id: a.id, liked_at: '2024-06-01T10:00:00.000Z' },
        { user_id: alice.user.id, movie_id: b.id, liked_at: '2024-06-05T10:00:00.000Z' },
      ]);
      const deleted = await write('DELETE', 'alice', alice.auth, [{ serviceId: a.id }, { serviceId: a.id }]);
      expect(deleted.statusCode).toBe(204);
      expect((await write('DELETE', 'alice', alice.auth, [{ serviceId: a.id }])).statusCode).toBe(204);
      expect((await stored()).map((row) => row.movie_id)).toEqual([b.id]);
      // A like is apart from a rating: neither touches the other.
      expect(await ctx.db.selectFrom('ratings').selectAll().execute()).toEqual([]);
    });

    it('rejects a whole batch naming an unknown movie with a 404 naming the id, changing nothing', async () => {
      const [a, b] = [await createMovie(ctx), await createMovie(ctx)];
      await like(alice, a.id);
      const before = await stored();
      for (const method of ['PUT', 'DELETE'] as const) {
        const res = await write(method, 'alice', alice.auth, [
          { serviceId: b.id },
          { serviceId: a.id },
          { serviceId: 999_999 },
        ]);
        expect(res.statusCode, method).toBe(404);
        expect(res.json()).toMatchObject({ error: 'MovieNotFound' });
        expect(res.json().message).toContain('999999');
        expect(await stored(), method).toEqual(before);
      }
    });

    it.each([
      ['a serviceId as text', [{ serviceId: '1' }]],
      ['no serviceId', [{}]],
      ['a serviceId of 0', [{ serviceId: 0 }]],
      ['an object instead of an array', { serviceId: 1 }],
    ])('refuses %s with a 400 in the envelope, changing nothing', async (_case, payload) => {
      const movie = await createMovie(ctx);
      const body = Array.isArray(payload) ? [{ serviceId: movie.id }, ...payload] : payload;
      const res = await write('PUT', 'alice', alice.auth, body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
      expect(res.json().error).toBe('InvalidRequestBody');
      expect(await stored()).toEqual([]);
    });
  });

  describe('the list', () => {
    it("lists likes newest first, with likedAt in the owner's time zone and the owner's rating", async () => {
      await ctx.users.update('alice', { timezone: 'Asia/Tokyo' });
      const [a, b] = [await createMovie(ctx, { title: 'Alpha' }), await createMovie(ctx, { title: 'Beta' })];
      ctx.clock.set('2024-06-15T20:00:00.000Z');
      await like(alice, a.id);
      ctx.clock.set('2024-06-16T10:00:00.000Z');
      await like(alice, b.id);
      await ctx.app.inject({
        method: 'PUT',
        url: `/api/users/alice/ratings/movies`,
        headers: alice.auth,
        payload: [{ serviceId: a.id, rating: 9 }],
      });
      const page = await listed(alice);
      expect(page).toMatchObject({ currentPage: 1, maxPage: 1 });
      expect(page.likes.map((l) => [l.movie.title, l.likedAt, l.movie.userRating])).toEqual([
        ['Beta', '2024-06-16', null],
        ['Alpha', '2024-06-16', 9],
      ]);
      // Liking again moves nothing: likedAt is the first like.
      ctx.clock.set('2024-07-01T10:00:00.000Z');
      await like(alice, a.id);
      expect((await listed(alice)).likes.map((l) => l.movie.title)).toEqual(['Beta', 'Alpha']);
      // A change shows at once (cached pages go stale with the owner's data version).
      await write('DELETE', 'alice', alice.auth, [{ serviceId: b.id }]);
      expect((await listed(alice)).likes.map((l) => l.movie.title)).toEqual(['Alpha']);
    });

    it('pages with a default of 24 as the ratings do, and refuses bad pages', async () => {
      const ids = [];
      for (let i = 0; i < 25; i++) {
        const movie = await createMovie(ctx);
        ids.push(movie.id);
        ctx.clock.advance(1000);
        await like(alice, movie.id);
      }
      expect(await listed(alice)).toMatchObject({ currentPage: 1, maxPage: 2 });
      const first = (await listed(alice)).likes.map((l) => l.movie.ids.service);
      expect(first).toEqual(ids.slice(1).reverse());
      expect((await listed(alice, '?page=2')).likes.map((l) => l.movie.ids.service)).toEqual([ids[0]]);
      expect((await listed(alice, '?page=3&limit=10')).likes).toHaveLength(5);
      expect(await listed(alice, '?page=9')).toMatchObject({ likes: [], currentPage: 9, maxPage: 2 });
      for (const query of ['?page=0', '?limit=1001', '?limit=x']) {
        const res = await get('alice', alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error, query).toBe('InvalidQueryParameter');
      }
    });

    it('is in the OpenAPI document with all three methods, tagged likes', async () => {
      const doc = (await ctx.app.inject({ url: '/api/openapi.json' })).json();
      const path = doc.paths['/users/{username}/likes/movies'];
      expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'put']);
      expect(path.put.responses['204']).toBeDefined();
      expect(path.get.responses['403']).toBeDefined();
      for (const method of ['get', 'put', 'delete']) expect(path[method].tags).toEqual(['likes']);
    });
  });
});
