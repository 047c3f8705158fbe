import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import {
  MAX_LIST_DESCRIPTION_LENGTH,
  MAX_LIST_MOVIES,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_NOTE_LENGTH,
  MAX_LISTS_PER_USER,
} from '../library/library.rules.js';

const base = (name: string) => `/api/users/${name}/lists`;

interface ListBody {
  id: number;
  name: string;
  description: string | null;
  ranked: boolean;
  visibility: string;
  movieCount: number;
  createdAt: string;
  updatedAt: string;
}
interface ListRead extends ListBody {
  movies: {
    movie: { title: string; ids: { service: number } };
    position: number;
    note: string | null;
    addedAt: string;
  }[];
  currentPage: number;
  maxPage: number;
}

describe('lists', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let bob: TestUser;
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
    bob = await createUser(ctx, { name: 'bob' });
  });
  afterEach(async () => {
    await ctx.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    headers: Record<string, string>,
    payload?: unknown,
  ) =>
    ctx.app.inject({
      method,
      url: path,
      headers,
      ...(payload !== undefined && { payload: payload as object }),
    });

  const create = async (owner: TestUser, body: object = { name: 'My list' }) => {
    const res = await call('POST', base(owner.user.name), owner.auth, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as ListBody;
  };
  const read = async (owner: TestUser, id: number, query = '', reader = owner) => {
    const res = await call('GET', `${base(owner.user.name)}/${id}${query}`, reader.auth);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ListRead;
  };
  const put = async (owner: TestUser, id: number, items: object[]) => {
    const res = await call('PUT', `${base(owner.user.name)}/${id}/movies`, owner.auth, items);
    expect(res.statusCode, res.body).toBe(204);
  };
  const remove = async (owner: TestUser, id: number, ids: number[]) => {
    const res = await call(
      'DELETE',
      `${base(owner.user.name)}/${id}/movies`,
      owner.auth,
      ids.map((serviceId) => ({ serviceId })),
    );
    expect(res.statusCode, res.body).toBe(204);
  };
  /** The list's movies as stored: [movie id, position, note], in position order. */
  const stored = async (listId: number) =>
    (
      await ctx.db
        .selectFrom('list_movies')
        .select(['movie_id', 'position', 'note'])
        .where('list_id', '=', listId)
        .orderBy('position')
        .execute()
    ).map((row) => [row.movie_id, row.position, row.note]);
  const order = async (listId: number) => (await stored(listId)).map(([movieId]) => movieId);
  const movies = async (n: number) => {
    const made = [];
    for (let i = 0; i < n; i++) made.push((await createMovie(ctx, { title: `Movie ${i + 1}` })).id);
    // As many as asked for: destructured by the tests.
    return made as [number, number, number, number, number];
  };

  /** Every endpoint, for a list `id` of `name`. */
  const endpoints = (name: string, id: number) =>
    [
      ['GET', base(name), undefined],
      ['POST', base(name), { name: 'x' }],
      ['GET', `${base(name)}/${id}`, undefined],
      ['PATCH', `${base(name)}/${id}`, { name: 'x' }],
      ['DELETE', `${base(name)}/${id}`, undefined],
      ['PUT', `${base(name)}/${id}/movies`, [{ serviceId: 1 }]],
      ['DELETE', `${base(name)}/${id}/movies`, [{ serviceId: 1 }]],
    ] as const;

  describe('authentication and access', () => {
    it('requires authentication on every endpoint', async () => {
      const list = await create(alice);
      for (const [method, path] of endpoints('alice', list.id)) {
        const res = await ctx.app.inject({
          method,
          url: path,
          headers: { 'content-type': 'application/json' },
          ...(method !== 'GET' && { payload: '{not json' }),
        });
        expect(res.statusCode, `${method} ${path}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
    });

    it("other user's data: refuses every write to another user's lists, changing nothing", async () => {
      const [m] = await movies(1);
      const list = await create(alice, { name: 'Mine', visibility: 'public' });
      await put(alice, list.id, [{ serviceId: m, note: 'kept' }]);
      const before = await read(alice, list.id);
      for (const [method, path, payload] of endpoints('alice', list.id).filter(
        ([method]) => method !== 'GET',
      )) {
        const res = await call(method, path, bob.auth, payload);
        expect(res.statusCode, `${method} ${path}`).toBe(403);
        expect(res.json()).toMatchObject({ error: 'Forbidden' });
      }
      expect(await read(alice, list.id)).toEqual(before);
      expect(await ctx.db.selectFrom('lists').select('user_id').execute()).toEqual([
        { user_id: alice.user.id },
      ]);
    });

    it("other user's data: a list id of another user under one's own name is a 404 on every endpoint", async () => {
      const [m] = await movies(1);
      const theirs = await create(bob, { name: "Bob's", visibility: 'public' });
      await put(bob, theirs.id, [{ serviceId: m }]);
      for (const [method, path, payload] of endpoints('alice', theirs.id).filter(([, path]) =>
        path.includes(`/${theirs.id}`),
      )) {
        const res = await call(method, path, alice.auth, payload);
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.json()).toEqual({ error: 'ListNotFound', message: `no list ${theirs.id}` });
      }
      expect(await read(bob, theirs.id)).toMatchObject({ name: "Bob's", movieCount: 1 });
      expect(await order(theirs.id)).toEqual([m]);
    });

    it('answers 404 for an unknown user and 400 for a malformed list id, after the credential', async () => {
      for (const [method, path, payload] of endpoints('nobody', 1)) {
        const res = await call(method, path, alice.auth, payload);
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'UserNotFound' });
      }
      for (const id of ['abc', '0', '1.5', '99999999999']) {
        for (const [method, path, payload] of endpoints('alice', 1).filter(([, path]) =>
          path.includes('/1'),
        )) {
          const res = await call(method, path.replace('/lists/1', `/lists/${id}`), alice.auth, payload);
          expect(res.statusCode, `${method} ${id}`).toBe(400);
          expect(res.json().error, `${method} ${id}`).toBe('InvalidPathParameter');
        }
      }
    });
  });

  describe('visibility', () => {
    it('the owner reads every list; another signed-in user users and public ones; a hidden list reads as none', async () => {
      const [m] = await movies(1);
      const hidden = await create(alice, { name: 'Hidden' });
      const shared = await create(alice, { name: 'Shared', visibility: 'users' });
      ctx.clock.advance(1000);
      const open = await create(alice, { name: 'Open', visibility: 'public' });
      for (const list of [hidden, shared, open]) await put(alice, list.id, [{ serviceId: m }]);
      const names = async (reader: TestUser) => {
        const res = await call('GET', base('alice'), reader.auth);
        expect(res.statusCode).toBe(200);
        return (res.json().lists as ListBody[]).map((list) => list.name);
      };
      // The most recently changed first.
      expect(await names(alice)).toEqual(['Open', 'Shared', 'Hidden']);
      expect(await names(bob)).toEqual(['Open', 'Shared']);
      for (const list of [hidden, shared, open]) expect((await read(alice, list.id)).movieCount).toBe(1);
      expect((await read(alice, shared.id, '', bob)).movies.map((e) => e.movie.ids.service)).toEqual([m]);
      expect((await read(alice, open.id, '', bob)).name).toBe('Open');
      // The private list answers exactly as a list that does not exist.
      const unknownId = open.id + 1000;
      const asHidden = await call('GET', `${base('alice')}/${hidden.id}`, bob.auth);
      const asNone = await call('GET', `${base('alice')}/${unknownId}`, bob.auth);
      expect([asHidden.statusCode, asNone.statusCode]).toEqual([404, 404]);
      expect(asHidden.json()).toEqual({ error: 'ListNotFound', message: `no list ${hidden.id}` });
      expect(asNone.json()).toEqual({ error: 'ListNotFound', message: `no list ${unknownId}` });
      expect(Object.keys(asHidden.headers).sort()).toEqual(Object.keys(asNone.headers).sort());

      // Made private, it goes out of sight at once.
      ctx.clock.advance(1000);
      const patched = await call('PATCH', `${base('alice')}/${shared.id}`, alice.auth, {
        visibility: 'private',
      });
      expect(patched.statusCode).toBe(200);
      expect(await names(bob)).toEqual(['Open']);
      expect((await call('GET', `${base('alice')}/${shared.id}`, bob.auth)).statusCode).toBe(404);

      // An owner whose privacy is private: as their history, a 403 for anyone else, whatever the list.
      await ctx.users.update('alice', { privacy: 'private' });
      for (const path of [base('alice'), `${base('alice')}/${open.id}`, `${base('alice')}/${unknownId}`]) {
        const res = await call('GET', path, bob.auth);
        expect(res.statusCode, path).toBe(403);
        expect(res.json().error).toBe('Forbidden');
      }
      expect(await names(alice)).toEqual(['Shared', 'Open', 'Hidden']);
    });

    it('no one signed in: the API asks a token; the library shows a public list only with the public profile on', async () => {
      await create(alice, { name: 'Hidden' });
      await create(alice, { name: 'Shared', visibility: 'users' });
      const open = await create(alice, { name: 'Open', visibility: 'public' });
      for (const path of [base('alice'), `${base('alice')}/${open.id}`]) {
        expect((await ctx.app.inject({ url: path })).statusCode, path).toBe(401);
      }
      const owner = async () => (await ctx.users.findByName('alice'))!;
      const anonymous = async () => (await ctx.library.lists(await owner(), null)).map((list) => list.name);
      expect(await anonymous()).toEqual([]);
      expect(await ctx.library.listWithMovies(await owner(), open.id, null, {})).toBeUndefined();
      await ctx.users.update('alice', { publicProfile: true });
      expect(await anonymous()).toEqual(['Open']);
      expect(await ctx.library.listWithMovies(await owner(), open.id, null, {})).toMatchObject({
        name: 'Open',
      });
      // Private privacy turns the public profile off, and the public list with it.
      await ctx.users.update('alice', { privacy: 'private' });
      expect(await anonymous()).toEqual([]);
      expect((await ctx.library.lists(await owner(), bob.user.id)).map((list) => list.name)).toEqual([]);
      expect(await ctx.library.lists(await owner(), alice.user.id)).toHaveLength(3);
    });
  });

  describe('a list', () => {
    it('is created with its defaults, renamed and changed by PATCH, and deleted with its movies', async () => {
      ctx.clock.set('2024-06-01T10:00:00.000Z');
      const list = await create(alice, { name: 'Watch with Dad' });
      expect(list).toEqual({
        id: expect.any(Number),
        name: 'Watch with Dad',
        description: null,
        ranked: false,
        visibility: 'private',
        movieCount: 0,
        createdAt: '2024-06-01T10:00:00.000Z',
        updatedAt: '2024-06-01T10:00:00.000Z',
      });
      const full = await create(alice, {
        name: 'Top 3',
        description: 'The best',
        ranked: true,
        visibility: 'users',
      });
      expect(full).toMatchObject({ description: 'The best', ranked: true, visibility: 'users' });

      ctx.clock.set('2024-06-02T10:00:00.000Z');
      const patch = (body: object) => call('PATCH', `${base('alice')}/${list.id}`, alice.auth, body);
      const renamed = await patch({ name: 'Films with Dad', description: 'Sundays' });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toEqual({
        ...list,
        name: 'Films with Dad',
        description: 'Sundays',
        updatedAt: '2024-06-02T10:00:00.000Z',
      });
      expect((await patch({ ranked: true, visibility: 'public' })).json()).toMatchObject({
        name: 'Films with Dad',
        description: 'Sundays',
        ranked: true,
        visibility: 'public',
      });
      expect((await patch({ description: null })).json()).toMatchObject({ description: null });
      // Nothing to change: nothing changes, not even updatedAt.
      ctx.clock.set('2024-06-03T10:00:00.000Z');
      expect((await patch({})).json()).toMatchObject({ updatedAt: '2024-06-02T10:00:00.000Z' });

      const [m1, m2] = await movies(2);
      await put(alice, list.id, [{ serviceId: m1 }, { serviceId: m2 }]);
      const deleted = await call('DELETE', `${base('alice')}/${list.id}`, alice.auth);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await call('GET', `${base('alice')}/${list.id}`, alice.auth)).statusCode).toBe(404);
      expect((await call('DELETE', `${base('alice')}/${list.id}`, alice.auth)).statusCode).toBe(404);
      expect(await stored(list.id)).toEqual([]);
      expect(
        (await call('GET', base('alice'), alice.auth)).json().lists.map((l: ListBody) => l.name),
      ).toEqual(['Top 3']);
    });

    it('holds movies in position order: appended, inserted at a position, moved, with notes, paged', async () => {
      const [a, b, c, d, e] = await movies(5);
      const list = await create(alice, { name: 'Ranked', ranked: true });
      ctx.clock.set('2024-06-20T10:00:00.000Z');
      await put(alice, list.id, [{ serviceId: a }, { serviceId: b, note: 'second' }]);
      // No position: appended at the end.
      await put(alice, list.id, [{ serviceId: c }]);
      expect(await stored(list.id)).toEqual([
        [a, 1, null],
        [b, 2, 'second'],
        [c, 3, null],
      ]);
      // A position: inserted there, the others shift down.
      await put(alice, list.id, [{ serviceId: d, position: 1, note: 'first' }]);
      expect(await stored(list.id)).toEqual([
        [d, 1, 'first'],
        [a, 2, null],
        [b, 3, 'second'],
        [c, 4, null],
      ]);
      // Moves: up, down, past the end (the end); a move keeps the note unless one is sent.
      await put(alice, list.id, [{ serviceId: c, position: 2 }]);
      expect(await order(list.id)).toEqual([d, c, a, b]);
      await put(alice, list.id, [{ serviceId: d, position: 3 }]);
      expect(await order(list.id)).toEqual([c, a, d, b]);
      await put(alice, list.id, [{ serviceId: c, position: 99 }]);
      expect(await stored(list.id)).toEqual([
        [a, 1, null],
        [d, 2, 'first'],
        [b, 3, 'second'],
        [c, 4, null],
      ]);
      // Inserted past the end: at the end. A movie named without a position stays; null clears its note.
      await put(alice, list.id, [
        { serviceId: e, position: 50 },
        { serviceId: b, note: null },
        { serviceId: a, note: 'changed' },
      ]);
      expect(await stored(list.id)).toEqual([
        [a, 1, 'changed'],
        [d, 2, 'first'],
        [b, 3, null],
        [c, 4, null],
        [e, 5, null],
      ]);

      const page = await read(alice, list.id);
      expect(page).toMatchObject({ name: 'Ranked', ranked: true, movieCount: 5, currentPage: 1, maxPage: 1 });
      expect(page.updatedAt).toBe('2024-06-20T10:00:00.000Z');
      expect(page.movies.map((entry) => [entry.movie.ids.service, entry.position, entry.note])).toEqual([
        [a, 1, 'changed'],
        [d, 2, 'first'],
        [b, 3, null],
        [c, 4, null],
        [e, 5, null],
      ]);
      expect(page.movies[0]!.addedAt).toBe('2024-06-20');
      const second = await read(alice, list.id, '?page=2&limit=2');
      expect(second).toMatchObject({ currentPage: 2, maxPage: 3 });
      expect(second.movies.map((entry) => entry.position)).toEqual([3, 4]);
      expect((await read(alice, list.id, '?page=9')).movies).toEqual([]);
      const bad = await call('GET', `${base('alice')}/${list.id}?limit=0`, alice.auth);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toBe('InvalidQueryParameter');

      // Removed: the rest close up; a movie not on the list is no error.
      await remove(alice, list.id, [d, c, d]);
      expect(await stored(list.id)).toEqual([
        [a, 1, 'changed'],
        [b, 2, null],
        [e, 3, null],
      ]);
      await remove(alice, list.id, [d]);
      await remove(alice, list.id, [a]);
      expect(await stored(list.id)).toEqual([
        [b, 1, null],
        [e, 2, null],
      ]);
    });

    it('holds a movie on many lists, each with its own place and note', async () => {
      const [a, b] = await movies(2);
      const one = await create(alice, { name: 'One' });
      const two = await create(alice, { name: 'Two' });
      await put(alice, one.id, [{ serviceId: a, note: 'in one' }, { serviceId: b }]);
      await put(alice, two.id, [{ serviceId: b }, { serviceId: a, position: 1, note: 'in two' }]);
      expect(await stored(one.id)).toEqual([
        [a, 1, 'in one'],
        [b, 2, null],
      ]);
      expect(await stored(two.id)).toEqual([
        [a, 1, 'in two'],
        [b, 2, null],
      ]);
      await remove(alice, one.id, [a]);
      expect(await order(two.id)).toEqual([a, b]);
    });

    it('applies a batch naming an unknown movie not at all: a 404 naming it', async () => {
      const [a, b, c] = await movies(3);
      const list = await create(alice);
      await put(alice, list.id, [{ serviceId: a }, { serviceId: b }]);
      const before = await read(alice, list.id);
      for (const method of ['PUT', 'DELETE'] as const) {
        const res = await call(method, `${base('alice')}/${list.id}/movies`, alice.auth, [
          { serviceId: c, position: 1 },
          { serviceId: a },
          { serviceId: 999_999 },
        ]);
        expect(res.statusCode, method).toBe(404);
        expect(res.json()).toMatchObject({ error: 'MovieNotFound' });
        expect(res.json().message).toContain('999999');
        expect(await read(alice, list.id), method).toEqual(before);
      }
    });
  });

  describe('validation', () => {
    it.each([
      ['an empty name', { name: '' }],
      ['a name of spaces', { name: '   ' }],
      ['no name', { description: 'x' }],
      ['a name too long', { name: 'x'.repeat(MAX_LIST_NAME_LENGTH + 1) }],
      ['a description too long', { name: 'x', description: 'x'.repeat(MAX_LIST_DESCRIPTION_LENGTH + 1) }],
      ['an unknown visibility', { name: 'x', visibility: 'friends' }],
      ['ranked as text', { name: 'x', ranked: 'yes' }],
      ['an array', [{ name: 'x' }]],
    ])('refuses to create a list with %s: 400, nothing created', async (_case, body) => {
      const res = await call('POST', base('alice'), alice.auth, body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'message']);
      expect(res.json().error).toBe('InvalidRequestBody');
      expect(await ctx.db.selectFrom('lists').selectAll().execute()).toEqual([]);
    });

    it('takes names and descriptions at their limits, and refuses a change past them, changing nothing', async () => {
      const name = 'n'.repeat(MAX_LIST_NAME_LENGTH);
      const description = 'd'.repeat(MAX_LIST_DESCRIPTION_LENGTH);
      const list = await create(alice, { name, description });
      for (const body of [
        { name: ' ' },
        { name: `${name}x` },
        { description: `${description}x` },
        { ranked: 1 },
      ]) {
        const res = await call('PATCH', `${base('alice')}/${list.id}`, alice.auth, body);
        expect(res.statusCode, JSON.stringify(body).slice(0, 30)).toBe(400);
        expect(res.json().error).toBe('InvalidRequestBody');
      }
      expect(await read(alice, list.id)).toMatchObject({ name, description, ranked: false });
    });

    it.each([
      ['a note too long', { note: 'x'.repeat(MAX_LIST_NOTE_LENGTH + 1) }],
      ['a position of 0', { position: 0 }],
      ['a position past the most movies a list holds', { position: MAX_LIST_MOVIES + 1 }],
      ['a fractional position', { position: 1.5 }],
      ['a position as text', { position: '1' }],
    ])('refuses a movie with %s: 400, nothing of the batch applied', async (_case, fields) => {
      const [a, b] = await movies(2);
      const list = await create(alice);
      await put(alice, list.id, [{ serviceId: a }]);
      const res = await call('PUT', `${base('alice')}/${list.id}/movies`, alice.auth, [
        { serviceId: b },
        { serviceId: a, ...fields },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('InvalidRequestBody');
      expect(await stored(list.id)).toEqual([[a, 1, null]]);
    });

    it('takes a note at its limit', async () => {
      const [a] = await movies(1);
      const list = await create(alice);
      await put(alice, list.id, [{ serviceId: a, note: 'x'.repeat(MAX_LIST_NOTE_LENGTH) }]);
      expect((await read(alice, list.id)).movies[0]!.note).toHaveLength(MAX_LIST_NOTE_LENGTH);
    });

    it(`keeps at most ${MAX_LISTS_PER_USER} lists per user`, async () => {
      const now = ctx.clock.now().toISOString();
      const rows = Array.from({ length: MAX_LISTS_PER_USER - 1 }, (_, i) => ({
        user_id: alice.user.id,
        name: `List ${i}`,
        description: null,
        ranked: 0,
        visibility: 'private' as const,
        created_at: now,
        updated_at: now,
      }));
      for (let i = 0; i < rows.length; i += 200)
        await ctx.db
          .insertInto('lists')
          .values(rows.slice(i, i + 200))
          .execute();
      await create(alice, { name: 'The last one' });
      const res = await call('POST', base('alice'), alice.auth, { name: 'One too many' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'InvalidRequestBody',
        message: `a user keeps at most ${MAX_LISTS_PER_USER.toLocaleString('en')} lists`,
      });
      expect((await call('GET', base('alice'), alice.auth)).json().lists).toHaveLength(MAX_LISTS_PER_USER);
      // Another user's lists do not count.
      await create(bob, { name: 'Fine' });
    });

    it(`holds at most ${MAX_LIST_MOVIES} movies on a list`, async () => {
      const list = await create(alice);
      const now = ctx.clock.now().toISOString();
      const ids: number[] = [];
      for (let i = 0; i < MAX_LIST_MOVIES; i += 500) {
        const made = await ctx.db
          .insertInto('movies')
          .values(
            Array.from({ length: 500 }, (_, j) => ({
              title: `Bulk ${i + j}`,
              tmdb_id: 5_000_000 + i + j,
              created_at: now,
            })),
          )
          .returning('id')
          .execute();
        ids.push(...made.map((row) => row.id));
      }
      const rows = ids.slice(0, MAX_LIST_MOVIES - 1).map((movieId, i) => ({
        list_id: list.id,
        movie_id: movieId,
        position: i + 1,
        note: null,
        added_at: now,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await ctx.db
          .insertInto('list_movies')
          .values(rows.slice(i, i + 500))
          .execute();
      await put(alice, list.id, [{ serviceId: ids[MAX_LIST_MOVIES - 1]!, position: 1 }]);
      const [extra] = await movies(1);
      const res = await call('PUT', `${base('alice')}/${list.id}/movies`, alice.auth, [
        { serviceId: ids[0]!, position: 2 },
        { serviceId: extra },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain(`at most ${MAX_LIST_MOVIES.toLocaleString('en')} movies`);
      const first = await read(alice, list.id, '?limit=2');
      expect(first.movieCount).toBe(MAX_LIST_MOVIES);
      expect(first.movies.map((entry) => entry.movie.ids.service)).toEqual([
        ids[MAX_LIST_MOVIES - 1],
        ids[0],
      ]);
    });
  });

  it('is in the OpenAPI document, tagged lists', async () => {
    const doc = (await ctx.app.inject({ url: '/api/openapi.json' })).json();
    const paths = doc.paths as Record<string, Record<string, { tags: string[]; responses: object }>>;
    expect(Object.keys(paths['/users/{username}/lists']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/users/{username}/lists/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(paths['/users/{username}/lists/{id}/movies']!).sort()).toEqual(['delete', 'put']);
    for (const path of [
      '/users/{username}/lists',
      '/users/{username}/lists/{id}',
      '/users/{username}/lists/{id}/movies',
    ]) {
      for (const operation of Object.values(paths[path]!)) expect(operation.tags).toEqual(['lists']);
    }
    expect(Object.keys(paths['/users/{username}/lists']!.post!.responses)).toContain('201');
  });
});
