import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';

// The diary entry of issue 30 over HTTP, on both engines: its own rating (not the movie's), its rewatch
// flag (derived unless set), its tags, the filters, and the access rules of the spec's history.

const diaryUrl = (name: string) => `/api/users/${name}/diary`;
const tagsUrl = (name: string) => `/api/users/${name}/tags`;

interface Entry {
  id: number;
  movie: { title: string; userRating: number | null; ids: { service: number } };
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  rating: number | null;
  rewatch: boolean;
  tags: string[];
  position: number;
}

describe('the diary', () => {
  let ctx: TestContext;
  let alice: TestUser;
  beforeEach(async () => {
    ctx = await setupTestApp();
    // Today is 2025-06-15 in alice's time zone (UTC): every date of these tests is in the past.
    ctx.clock.set('2025-06-15T12:00:00.000Z');
    alice = await createUser(ctx, { name: 'alice' });
  });
  afterEach(async () => {
    await ctx.close();
  });

  const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });
  const get = (name: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: diaryUrl(name) + query, headers });
  const post = (name: string, headers: Record<string, string>, payload: unknown) =>
    ctx.app.inject({
      method: 'POST',
      url: diaryUrl(name),
      headers: json(headers),
      payload: payload as object,
    });
  const patch = (name: string, headers: Record<string, string>, id: number | string, payload: unknown) =>
    ctx.app.inject({
      method: 'PATCH',
      url: `${diaryUrl(name)}/${id}`,
      headers: json(headers),
      payload: payload as object,
    });
  const remove = (name: string, headers: Record<string, string>, id: number | string) =>
    ctx.app.inject({ method: 'DELETE', url: `${diaryUrl(name)}/${id}`, headers });
  const log = async (owner: TestUser, items: unknown[]) => {
    const res = await post(owner.user.name, owner.auth, items);
    expect(res.statusCode, res.body).toBe(204);
  };
  const diary = async (owner: TestUser, query = '') => {
    const res = await get(owner.user.name, owner.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { diary: Entry[]; currentPage: number; maxPage: number };
  };
  const tags = async (owner: TestUser) => {
    const res = await ctx.app.inject({ url: tagsUrl(owner.user.name), headers: owner.auth });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { tags: { name: string; count: number }[] }).tags;
  };
  const movieRating = async (userId: number, movieId: number) =>
    (
      await ctx.db
        .selectFrom('ratings')
        .select('rating')
        .where('user_id', '=', userId)
        .where('movie_id', '=', movieId)
        .executeTakeFirst()
    )?.rating ?? null;
  /** Everything the diary keeps, straight from the tables: a refused write leaves it as it was. */
  const stored = async () => ({
    entries: await ctx.db
      .selectFrom('watch_dates')
      .select(['user_id', 'movie_id', 'watched_at', 'plays', 'comment', 'rating', 'rewatch'])
      .orderBy('id')
      .execute(),
    tags: await ctx.db.selectFrom('tags').select(['user_id', 'name', 'key']).orderBy('id').execute(),
    links: await ctx.db
      .selectFrom('entry_tags')
      .select(['tag_id', 'watch_date_id'])
      .orderBy('tag_id')
      .orderBy('watch_date_id')
      .execute(),
    ratings: await ctx.db.selectFrom('ratings').select(['user_id', 'movie_id', 'rating']).execute(),
  });

  describe('authentication and access', () => {
    it('requires authentication on every endpoint, before anything else', async () => {
      const requests = [
        { method: 'GET', url: diaryUrl('alice') },
        { method: 'POST', url: diaryUrl('alice'), payload: '{not json' },
        { method: 'PATCH', url: `${diaryUrl('alice')}/1`, payload: '{not json' },
        { method: 'DELETE', url: `${diaryUrl('alice')}/1` },
        { method: 'GET', url: tagsUrl('alice') },
      ] as const;
      for (const request of requests) {
        const res = await ctx.app.inject({ ...request, headers: { 'content-type': 'application/json' } });
        expect(res.statusCode, `${request.method} ${request.url}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
    });

    it("refuses writes to another user's diary, and reads it and its tags unless it is private", async () => {
      const bob = await createUser(ctx, { name: 'bob' });
      const movie = await createMovie(ctx);
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-01-01', rating: 6, tags: ['noir'] }]);
      const [entry] = (await diary(alice)).diary;
      const before = await stored();

      const refused = [
        await post('alice', bob.auth, [{ serviceId: movie.id, watchedAt: '2025-01-02', rating: 1 }]),
        await patch('alice', bob.auth, entry!.id, { rating: 1, tags: [] }),
        await remove('alice', bob.auth, entry!.id),
      ];
      for (const res of refused) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ error: 'Forbidden' });
      }
      // An entry id names the owner's entry: alice's entry is none of bob's.
      expect((await patch('bob', bob.auth, entry!.id, { rating: 1 })).statusCode).toBe(404);
      expect((await remove('bob', bob.auth, entry!.id)).json()).toMatchObject({ error: 'EntryNotFound' });
      expect(await stored()).toEqual(before);

      expect((await get('alice', bob.auth)).json().diary).toHaveLength(1);
      expect((await ctx.app.inject({ url: tagsUrl('alice'), headers: bob.auth })).json()).toEqual({
        tags: [{ name: 'noir', count: 1 }],
      });
      await ctx.users.update('alice', { privacy: 'private' });
      for (const url of [diaryUrl('alice'), tagsUrl('alice')]) {
        const hidden = await ctx.app.inject({ url, headers: bob.auth });
        expect(hidden.statusCode, url).toBe(403);
        expect(Object.keys(hidden.json()).sort()).toEqual(['error', 'message']);
      }
      expect((await diary(alice)).diary).toHaveLength(1);
      expect(await tags(alice)).toEqual([{ name: 'noir', count: 1 }]);
    });

    it('answers 404 for an unknown user on every endpoint', async () => {
      const requests = [
        { method: 'GET', url: diaryUrl('nobody') },
        { method: 'POST', url: diaryUrl('nobody'), payload: [] },
        { method: 'PATCH', url: `${diaryUrl('nobody')}/1`, payload: {} },
        { method: 'DELETE', url: `${diaryUrl('nobody')}/1` },
        { method: 'GET', url: tagsUrl('nobody') },
      ] as const;
      for (const request of requests) {
        const res = await ctx.app.inject({ ...request, headers: alice.auth });
        expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
        expect(res.json()).toMatchObject({ error: 'UserNotFound' });
      }
    });
  });

  describe('the entry and the movie', () => {
    it('the Lanternfish story: a past entry keeps its own rating, the movie has the latest', async () => {
      const lanternfish = await createMovie(ctx, { title: 'Lanternfish' });
      await log(alice, [{ serviceId: lanternfish.id, watchedAt: '2024-12-31' }]);
      await log(alice, [{ serviceId: lanternfish.id, watchedAt: '2025-01-05', rating: 9 }]);

      const { diary: entries } = await diary(alice);
      expect(entries.map((e) => [e.watchedAt, e.rating, e.rewatch, e.movie.userRating])).toEqual([
        ['2025-01-05', 9, true, 9],
        ['2024-12-31', null, false, 9],
      ]);
      expect(await movieRating(alice.user.id, lanternfish.id)).toBe(9);
      expect(entries[0]).toEqual({
        id: expect.any(Number),
        movie: expect.objectContaining({
          title: 'Lanternfish',
          ids: expect.objectContaining({ service: lanternfish.id }),
        }),
        watchedAt: '2025-01-05',
        plays: 1,
        comment: null,
        rating: 9,
        rewatch: true,
        tags: [],
        position: 1,
      });

      // Rating a past entry leaves the movie's rating as it is.
      const res = await patch('alice', alice.auth, entries[1]!.id, { rating: 6 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ watchedAt: '2024-12-31', rating: 6, rewatch: false });
      expect(await movieRating(alice.user.id, lanternfish.id)).toBe(9);

      // The history's entries carry each its own rating (the pages show it); the spec's history
      // answer keeps its exact shape.
      const history = await ctx.library.list('history', alice.user, {});
      expect(history.items.map((e) => [e.watchedAt, e.rating, e.movie.userRating])).toEqual([
        ['2025-01-05', 9, 9],
        ['2024-12-31', 6, 9],
      ]);
      const api = await ctx.app.inject({ url: '/api/users/alice/history/movies', headers: alice.auth });
      expect(api.json().watchlist.map((e: object) => Object.keys(e).sort())).toEqual([
        ['movie', 'watchedAt'],
        ['movie', 'watchedAt'],
      ]);
    });

    it('merges a logged play into the entry of its movie and date, as the history POST does', async () => {
      const movie = await createMovie(ctx);
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-02-01', comment: 'first', tags: ['Cosy'] }]);
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-02-01', plays: 2, tags: ['cosy', 'Snow'] }]);
      const { diary: entries } = await diary(alice);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ plays: 3, comment: 'first', rating: null, tags: ['Cosy', 'Snow'] });
      // A rating of null or none keeps the entry's; a rewatch flag is set, and null makes it derived.
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-02-01', rating: 8, rewatch: true }]);
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-02-01', rating: null }]);
      expect((await diary(alice)).diary[0]).toMatchObject({ plays: 5, rating: 8, rewatch: true });
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-02-01', rewatch: null }]);
      expect((await diary(alice)).diary[0]).toMatchObject({ plays: 6, rating: 8, rewatch: false });
    });

    it('derives rewatch from an earlier dated entry only, unless told otherwise', async () => {
      const movie = await createMovie(ctx, { title: 'Again' });
      const other = await createMovie(ctx, { title: 'Once' });
      // An undated play is never "earlier", and never a rewatch by itself.
      await ctx.library.write(alice.user.id, (lib) =>
        lib.addPlays([{ movieId: movie.id, watchedAt: null, plays: 1, comment: null }]),
      );
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-03-01' },
        { serviceId: movie.id, watchedAt: '2025-03-02' },
        { serviceId: other.id, watchedAt: '2025-03-02' },
      ]);
      const rewatches = async () =>
        (await diary(alice)).diary.map((e) => [e.movie.title, e.watchedAt, e.rewatch]);
      expect(await rewatches()).toEqual([
        ['Once', '2025-03-02', false],
        ['Again', '2025-03-02', true],
        ['Again', '2025-03-01', false],
      ]);
      const [once, second, first] = (await diary(alice)).diary;
      await patch('alice', alice.auth, first!.id, { rewatch: true });
      await patch('alice', alice.auth, second!.id, { rewatch: false });
      await patch('alice', alice.auth, once!.id, { rewatch: true });
      expect(await rewatches()).toEqual([
        ['Once', '2025-03-02', true],
        ['Again', '2025-03-02', false],
        ['Again', '2025-03-01', true],
      ]);
      // null: derived again.
      const res = await patch('alice', alice.auth, second!.id, { rewatch: null });
      expect(res.json()).toMatchObject({ rewatch: true });
      expect((await stored()).entries.map((e) => e.rewatch)).toEqual([null, 1, null, 1]);
    });
  });

  describe('the filters and the pages', () => {
    const fill = async () => {
      const [a, b, c] = [
        await createMovie(ctx, { title: 'Alpha' }),
        await createMovie(ctx, { title: 'Beta' }),
        await createMovie(ctx, { title: 'Gamma' }),
      ];
      await log(alice, [
        { serviceId: a.id, watchedAt: '2024-10-31', rating: 7, tags: ['Horror', 'October'] },
        { serviceId: b.id, watchedAt: '2024-11-02', rating: 4, tags: ['horror'] },
        { serviceId: a.id, watchedAt: '2025-01-10', rating: 9, tags: ['HORROR'] },
        { serviceId: c.id, watchedAt: '2025-01-20', rating: 9 },
        { serviceId: c.id, watchedAt: '2025-02-01' },
      ]);
    };
    const listed = async (query: string) =>
      (await diary(alice, query)).diary.map((e) => `${e.movie.title} ${e.watchedAt}`);

    it('filters by year, month, tag (ignoring case), rating and rewatch, newest first', async () => {
      await fill();
      expect(await listed('')).toEqual([
        'Gamma 2025-02-01',
        'Gamma 2025-01-20',
        'Alpha 2025-01-10',
        'Beta 2024-11-02',
        'Alpha 2024-10-31',
      ]);
      expect(await listed('?year=2024')).toEqual(['Beta 2024-11-02', 'Alpha 2024-10-31']);
      expect(await listed('?year=2025&month=1')).toEqual(['Gamma 2025-01-20', 'Alpha 2025-01-10']);
      expect(await listed('?year=2024&month=12')).toEqual([]);
      expect(await listed('?tag=hOrRoR')).toEqual([
        'Alpha 2025-01-10',
        'Beta 2024-11-02',
        'Alpha 2024-10-31',
      ]);
      expect(await listed('?tag=%20october%20')).toEqual(['Alpha 2024-10-31']);
      expect(await listed('?tag=comedy')).toEqual([]);
      expect(await listed('?rating=9')).toEqual(['Gamma 2025-01-20', 'Alpha 2025-01-10']);
      expect(await listed('?rewatch=true')).toEqual(['Gamma 2025-02-01', 'Alpha 2025-01-10']);
      expect(await listed('?rewatch=false')).toEqual([
        'Gamma 2025-01-20',
        'Beta 2024-11-02',
        'Alpha 2024-10-31',
      ]);
      expect(await listed('?tag=horror&year=2025&rating=9&rewatch=true')).toEqual(['Alpha 2025-01-10']);
      // The tag keeps its first spelling; each entry lists its tags by name.
      expect(await tags(alice)).toEqual([
        { name: 'Horror', count: 3 },
        { name: 'October', count: 1 },
      ]);
      expect((await diary(alice, '?year=2024&month=10')).diary[0]?.tags).toEqual(['Horror', 'October']);
    });

    it('counts rewatches and first watches exactly, derived and marked, undated entries apart', async () => {
      // Three movies on several dates, an undated play, and marks both ways: against the derived value
      // (two first watches marked rewatches, a rewatch marked not one) and agreeing with it.
      const movies = [await createMovie(ctx), await createMovie(ctx), await createMovie(ctx)];
      const dates = ['2024-01-05', '2024-03-01', '2024-07-14', '2025-01-02', '2025-05-30'];
      await log(
        alice,
        dates.flatMap((watchedAt, d) =>
          movies
            .filter((_, m) => (d + m) % 2 === 0 || m === 0)
            .map((movie) => ({ serviceId: movie.id, watchedAt })),
        ),
      );
      await ctx.library.write(alice.user.id, (lib) =>
        lib.addPlays([{ movieId: movies[1]!.id, watchedAt: null, plays: 1, comment: null }]),
      );
      const all = (await diary(alice, '?limit=100')).diary;
      const byMovieDate = (m: number, date: string) =>
        all.find((e) => e.movie.ids.service === movies[m]!.id && e.watchedAt === date)!;
      await patch('alice', alice.auth, byMovieDate(0, '2024-01-05').id, { rewatch: true });
      await patch('alice', alice.auth, byMovieDate(0, '2024-03-01').id, { rewatch: false });
      await patch('alice', alice.auth, byMovieDate(0, '2024-07-14').id, { rewatch: true });
      await patch('alice', alice.auth, byMovieDate(2, '2024-01-05').id, { rewatch: true });
      const entries = (await diary(alice, '?limit=100')).diary;
      for (const flag of [true, false]) {
        const expected = entries.filter((e) => e.rewatch === flag).map((e) => e.id);
        const listed = (await diary(alice, `?rewatch=${flag}&limit=100`)).diary.map((e) => e.id);
        expect(listed, `rewatch=${flag}`).toEqual(expected);
        // The total, as the pages count it: one entry a page.
        expect((await diary(alice, `?rewatch=${flag}&limit=1`)).maxPage, `rewatch=${flag}`).toBe(
          expected.length,
        );
        // Narrowed by a year, the total is counted entry by entry: the same rule.
        const in2024 = entries.filter((e) => e.rewatch === flag && e.watchedAt?.startsWith('2024'));
        expect((await diary(alice, `?rewatch=${flag}&year=2024&limit=1`)).maxPage).toBe(in2024.length);
      }
      expect(entries.filter((e) => e.rewatch).length).toBeGreaterThan(3);
      expect(entries.filter((e) => !e.rewatch).length).toBeGreaterThan(1);
    });

    it('refuses filters that are no filters with a 400', async () => {
      for (const query of [
        '?month=1',
        '?year=2025&month=13',
        '?rating=11',
        '?rewatch=maybe',
        '?year=25',
        '?limit=0',
      ]) {
        const res = await get('alice', alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json(), query).toMatchObject({ error: 'InvalidQueryParameter' });
      }
    });

    it('pages the entries', async () => {
      await fill();
      const first = await diary(alice, '?limit=2');
      expect(first).toMatchObject({ currentPage: 1, maxPage: 3 });
      expect(first.diary.map((e) => e.watchedAt)).toEqual(['2025-02-01', '2025-01-20']);
      const third = await diary(alice, '?limit=2&page=3');
      expect(third).toMatchObject({ currentPage: 3, maxPage: 3 });
      expect(third.diary.map((e) => e.watchedAt)).toEqual(['2024-10-31']);
      expect(await diary(alice, '?limit=2&page=4')).toEqual({ diary: [], currentPage: 4, maxPage: 3 });
      expect(await diary(alice, '?tag=horror&limit=2&page=2')).toMatchObject({ currentPage: 2, maxPage: 2 });
    });
  });

  describe('changing and deleting an entry', () => {
    it('changes an entry in place: rating, rewatch, tags, plays, comment and its date', async () => {
      const movie = await createMovie(ctx, { title: 'Heat' });
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-04-01', rating: 8, tags: ['Heist', 'LA'] }]);
      const [entry] = (await diary(alice)).diary;
      const res = await patch('alice', alice.auth, entry!.id, {
        watchedAt: '2025-04-03',
        plays: 2,
        comment: 'The diner.',
        tags: ['la', 'Crime '],
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        id: entry!.id,
        watchedAt: '2025-04-03',
        plays: 2,
        comment: 'The diner.',
        rating: 8,
        tags: ['Crime', 'LA'],
      });
      // The tag no entry has any more is gone.
      expect(await tags(alice)).toEqual([
        { name: 'Crime', count: 1 },
        { name: 'LA', count: 1 },
      ]);
      const cleared = await patch('alice', alice.auth, entry!.id, { rating: null, comment: null, tags: [] });
      expect(cleared.json()).toMatchObject({ rating: null, comment: null, tags: [], plays: 2 });
      expect(await movieRating(alice.user.id, movie.id)).toBe(8);
      expect(await tags(alice)).toEqual([]);
      expect((await stored()).tags).toEqual([]);
    });

    it('refuses a change that cannot be, changing nothing', async () => {
      const movie = await createMovie(ctx);
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-04-01', tags: ['one'] },
        { serviceId: movie.id, watchedAt: '2025-04-02' },
      ]);
      const [, older] = (await diary(alice)).diary;
      const before = await stored();
      const cases: [unknown, number, string][] = [
        [{ watchedAt: '2025-04-02' }, 400, 'has an entry on 2025-04-02 already'],
        [{ watchedAt: '2025-06-16' }, 400, 'the date is in the future'],
        [{ rating: 0 }, 400, ''],
        [{ plays: 0 }, 400, ''],
        [{ tags: ['  '] }, 400, 'a tag cannot be empty'],
        [{ tags: ['x'.repeat(101)] }, 400, ''],
        [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 400, ''],
      ];
      for (const [body, status, message] of cases) {
        const res = await patch('alice', alice.auth, older!.id, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(status);
        expect(res.json().error).toBe('InvalidRequestBody');
        expect(res.json().message).toContain(message);
      }
      for (const id of [999_999, 'x']) {
        const res = await patch('alice', alice.auth, id, { rating: 5 });
        expect(res.statusCode).toBe(id === 'x' ? 400 : 404);
      }
      expect(await stored()).toEqual(before);
    });

    it('deletes an entry with its tags', async () => {
      const movie = await createMovie(ctx);
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-04-01', tags: ['gone', 'kept'] },
        { serviceId: movie.id, watchedAt: '2025-04-02', tags: ['kept'] },
      ]);
      const [newer, older] = (await diary(alice)).diary;
      const res = await remove('alice', alice.auth, older!.id);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect((await diary(alice)).diary.map((e) => e.id)).toEqual([newer!.id]);
      expect(await tags(alice)).toEqual([{ name: 'kept', count: 1 }]);
      expect((await stored()).links).toHaveLength(1);
      expect((await remove('alice', alice.auth, older!.id)).statusCode).toBe(404);
    });

    it("a history DELETE removes the entry's tags with it", async () => {
      const movie = await createMovie(ctx);
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-04-01', tags: ['Gone'] },
        { serviceId: movie.id, watchedAt: '2025-04-02', tags: ['Kept'] },
      ]);
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: '/api/users/alice/history/movies',
        headers: json(alice.auth),
        payload: [{ serviceId: movie.id, watchedAt: '2025-04-01' }],
      });
      expect(res.statusCode).toBe(204);
      expect(await tags(alice)).toEqual([{ name: 'Kept', count: 1 }]);
      const after = await stored();
      expect(after.tags.map((t) => t.name)).toEqual(['Kept']);
      expect(after.links).toHaveLength(1);
      // Every date of the movie.
      await ctx.app.inject({
        method: 'DELETE',
        url: '/api/users/alice/history/movies',
        headers: json(alice.auth),
        payload: [{ serviceId: movie.id }],
      });
      expect(await stored()).toMatchObject({ entries: [], tags: [], links: [] });
    });
  });

  describe('the tags', () => {
    it('are one per spelling ignoring case, trimmed, kept as first written', async () => {
      const movie = await createMovie(ctx);
      const bob = await createUser(ctx, { name: 'bob' });
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-05-01', tags: ['  Film   Noir ', 'film noir'] },
      ]);
      await log(alice, [{ serviceId: movie.id, watchedAt: '2025-05-02', tags: ['FILM NOIR'] }]);
      await log(bob, [{ serviceId: movie.id, watchedAt: '2025-05-02', tags: ['film noir'] }]);
      expect(await tags(alice)).toEqual([{ name: 'Film Noir', count: 2 }]);
      // Each user's tags are their own.
      expect(await tags(bob)).toEqual([{ name: 'film noir', count: 1 }]);
      expect((await diary(alice)).diary.map((e) => e.tags)).toEqual([['Film Noir'], ['Film Noir']]);
    });

    it('refuses a batch with an empty, overlong or 51st tag whole, writing nothing', async () => {
      const movie = await createMovie(ctx);
      const other = await createMovie(ctx);
      await log(alice, [
        { serviceId: movie.id, watchedAt: '2025-05-01', tags: Array.from({ length: 30 }, (_, i) => `a${i}`) },
      ]);
      const before = await stored();
      const valid = { serviceId: other.id, watchedAt: '2025-05-02', rating: 5, tags: ['fine'] };
      const cases: [string, unknown[]][] = [
        [
          '51 tags',
          [
            valid,
            {
              serviceId: movie.id,
              watchedAt: '2025-05-03',
              tags: Array.from({ length: 51 }, (_, i) => `t${i}`),
            },
          ],
        ],
        [
          '51 tags once merged',
          [
            valid,
            {
              serviceId: movie.id,
              watchedAt: '2025-05-01',
              tags: Array.from({ length: 21 }, (_, i) => `b${i}`),
            },
          ],
        ],
        ['an empty tag', [valid, { serviceId: movie.id, watchedAt: '2025-05-03', tags: [''] }]],
        ['a blank tag', [valid, { serviceId: movie.id, watchedAt: '2025-05-03', tags: [' \t '] }]],
        [
          'a tag of 101 characters',
          [valid, { serviceId: movie.id, watchedAt: '2025-05-03', tags: ['x'.repeat(101)] }],
        ],
        ['a rating of 11', [valid, { serviceId: movie.id, watchedAt: '2025-05-03', rating: 11 }]],
        ['a date in the future', [valid, { serviceId: movie.id, watchedAt: '2025-06-16' }]],
      ];
      for (const [name, body] of cases) {
        const res = await post('alice', alice.auth, body);
        expect(res.statusCode, name).toBe(400);
        expect(Object.keys(res.json()).sort(), name).toEqual(['error', 'message']);
        expect(await stored(), name).toEqual(before);
      }
      const merged = await post('alice', alice.auth, cases[1]![1]);
      expect(merged.json().message).toContain('at most 50 tags');
      // 50 once merged (20 new, spellings of the same tag counted once) is fine.
      await log(alice, [
        {
          serviceId: movie.id,
          watchedAt: '2025-05-01',
          tags: [...Array.from({ length: 20 }, (_, i) => `b${i}`), 'A0'],
        },
      ]);
      expect((await diary(alice)).diary[0]?.tags).toHaveLength(50);
    });

    it('names an unknown movie with a 404 and writes nothing of the batch', async () => {
      const movie = await createMovie(ctx);
      const res = await post('alice', alice.auth, [
        { serviceId: movie.id, watchedAt: '2025-05-01', rating: 5, tags: ['x'] },
        { serviceId: 999_999, watchedAt: '2025-05-01' },
      ]);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'MovieNotFound' });
      expect(await stored()).toEqual({ entries: [], tags: [], links: [], ratings: [] });
    });
  });

  it('lists no tag that no entry has, in the tags and the statistics (a tag row left without links)', async () => {
    const movie = await createMovie(ctx);
    await log(alice, [{ serviceId: movie.id, watchedAt: '2025-01-01', tags: ['noir', 'Heist'] }]);
    await log(alice, [{ serviceId: movie.id, watchedAt: '2025-01-02', tags: ['noir'] }]);
    // A tag whose last entry went behind the library's back (a cascade): a row with no links.
    await ctx.db
      .insertInto('tags')
      .values({
        user_id: alice.user.id,
        name: 'Left over',
        key: 'left over',
        created_at: '2025-01-03T00:00:00.000Z',
      })
      .execute();
    expect(await tags(alice)).toEqual([
      { name: 'noir', count: 2 },
      { name: 'Heist', count: 1 },
    ]);
    const statistics = await ctx.app.inject({ url: `/api/users/alice/statistics`, headers: alice.auth });
    expect(statistics.statusCode, statistics.body).toBe(200);
    expect(statistics.json().topTags).toEqual([
      { name: 'noir', entries: 2 },
      { name: 'Heist', entries: 1 },
    ]);
  });
});
