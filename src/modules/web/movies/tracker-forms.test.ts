import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';
import { movieHref } from '../shell/format.js';

// The tracker's forms over HTTP (both engines): signed out, without CSRF, with bad input, and against
// another user's data, each changes nothing.
let ctx: TestContext;
let alice: TestUser;
let movie: { id: number; title: string };

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  await createUser(ctx, { name: 'bob' });
  movie = await createMovie(ctx, { title: 'Heat', runtime: 170 });
});
afterEach(() => ctx.close());

const page = () => movieHref(movie.id, movie.title);
const entries = (userId: number) =>
  ctx.db
    .selectFrom('watch_dates')
    .select(['watched_at', 'plays', 'comment', 'rating'])
    .where('user_id', '=', userId)
    .orderBy('watched_at')
    .execute();
const ratingOf = async (userId: number) =>
  (await ctx.db.selectFrom('ratings').select('rating').where('user_id', '=', userId).executeTakeFirst())
    ?.rating ?? null;
const watchlisted = async (userId: number) =>
  (await ctx.db.selectFrom('watchlist').select('movie_id').where('user_id', '=', userId).execute()).length;
/** Alice's library as it stands: every test checks a refused form left it so. */
const aliceState = async () => ({
  entries: await entries(alice.user.id),
  rating: await ratingOf(alice.user.id),
  watchlist: await watchlisted(alice.user.id),
});

const forms = () =>
  [
    ['/log', { movieId: String(movie.id), date: '2024-01-01', plays: '1' }],
    ['/watchlist/add', { movieId: String(movie.id) }],
    [`/movies/${movie.id}/entries/edit`, { from: '2024-01-01', date: '2024-01-02', plays: '1' }],
    [`/movies/${movie.id}/entries/delete`, { date: '2024-01-01' }],
    [`/movies/${movie.id}/rating`, { rating: '8' }],
    [`/movies/${movie.id}/watchlist`, { action: 'add' }],
  ] as const;

describe('the tracker pages', () => {
  it('require a signed-in user: pages lead to the sign-in page, forms change nothing', async () => {
    const client = new WebClient(ctx.app);
    for (const path of ['/search?q=heat', `/log?movieId=${movie.id}`, page()]) {
      const response = await client.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await client.get('/login');
    for (const [action, fields] of forms()) {
      const response = await client.post(action, fields);
      expect([303, 403]).toContain(response.statusCode);
      if (response.statusCode === 303) expect(response.headers.location).toBe('/login');
    }
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it('refuse a form without its CSRF token (403), changing nothing', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    for (const [action, fields] of forms()) {
      expect((await client.post(action, { ...fields, _csrf: '' })).statusCode).toBe(403);
    }
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it('log a play with its rating and comment, edit it, rate, put on and off the watchlist, delete it', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const logged = await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: String(movie.id),
      date: '2024-01-01',
      plays: '2',
      rating: '7',
      comment: 'Diner scene.',
    });
    expect(logged.statusCode).toBe(303);
    expect(logged.headers.location).toBe(page());
    const shown = textOf((await client.follow(logged)).body);
    expect(shown).toContain('Logged Heat on 1 Jan 2024');
    expect(shown).toContain('Diner scene.');
    expect(shown).toContain('3½ stars');
    expect(await aliceState()).toEqual({
      // Logging a play with a rating rates the entry and the movie.
      entries: [{ watched_at: '2024-01-01', plays: 2, comment: 'Diner scene.', rating: 7 }],
      rating: 7,
      watchlist: 0,
    });

    await client.submit(page(), `/movies/${movie.id}/entries/edit`, {
      from: '2024-01-01',
      date: '2024-01-05',
      plays: '3',
      comment: 'Both scenes.',
      position: '1',
    });
    await client.submit(page(), `/movies/${movie.id}/rating`, { rating: '' });
    await client.submit(page(), `/movies/${movie.id}/watchlist`, { action: 'add' });
    expect(await aliceState()).toEqual({
      // The entry moved keeps its own rating; clearing the movie's leaves it.
      entries: [{ watched_at: '2024-01-05', plays: 3, comment: 'Both scenes.', rating: 7 }],
      rating: null,
      watchlist: 1,
    });
    await client.submit(page(), `/movies/${movie.id}/watchlist`, { action: 'remove' });
    await client.submit(page(), `/movies/${movie.id}/entries/delete`, { date: '2024-01-05' });
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it.each([
    ['a date that is no date', { date: 'yesterday' }, 'the date must be a day'],
    ['a date in the future', { date: '2999-01-01' }, 'the date is in the future'],
    ['no plays', { plays: '0' }, 'plays must be a whole number'],
    ['too many plays', { plays: '1000001' }, 'plays must be a whole number'],
    ['a rating of 11', { rating: '11' }, 'a rating is from 1 to 10'],
    ['a comment too long', { comment: 'x'.repeat(10_001) }, 'longer than 10,000'],
  ])('refuse to log %s: 400 with the reason, nothing changed', async (_name, change, reason) => {
    const client = await signedInClient(ctx.app, 'alice');
    const response = await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: String(movie.id),
      date: '2024-01-01',
      plays: '1',
      ...change,
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body).toLowerCase()).toContain(reason);
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it('answer an unknown movie with 404 and a NUL with 400, changing nothing', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const unknown = await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: '99999',
      date: '2024-01-01',
    });
    expect(unknown.statusCode).toBe(404);
    expect((await client.get('/movies/99999')).statusCode).toBe(404);
    const nul = await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: String(movie.id),
      date: '2024-01-01',
      comment: 'a\u0000b',
    });
    expect(nul.statusCode).toBe(400);
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it("never touch another user's data: Bob's forms act on Bob's library only", async () => {
    const client = await signedInClient(ctx.app, 'alice');
    await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: String(movie.id),
      date: '2024-01-01',
      rating: '9',
    });
    const before = await aliceState();

    const bob = await signedInClient(ctx.app, 'bob');
    // Bob sees the movie, but not Alice's plays or rating.
    const bobsPage = textOf((await bob.get(page())).body);
    expect(bobsPage).toContain('You have not logged this movie yet.');
    expect(bobsPage).toContain('Not rated.');
    // Editing "the entry of 1 Jan 2024": Bob has none (404); deleting it deletes nothing of Alice's.
    const edit = await bob.submit(page(), `/movies/${movie.id}/entries/edit`, {
      from: '2024-01-01',
      date: '2024-01-02',
      plays: '5',
    });
    expect(edit.statusCode).toBe(404);
    await bob.submit(page(), `/movies/${movie.id}/entries/delete`, { date: '2024-01-01' });
    await bob.submit(page(), `/movies/${movie.id}/rating`, { rating: '' });
    expect(await aliceState()).toEqual(before);
    expect(await entries((await ctx.users.findByName('bob'))!.id)).toEqual([]);
  });

  it('without TMDB, a movie from the search cannot be added: 400 with the reason, never a 5xx', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const watchlist = await client.submit('/search', '/watchlist/add', { tmdbId: '603' });
    expect(watchlist.statusCode).toBe(400);
    expect(textOf(watchlist.body).toLowerCase()).toContain('the movie cannot be added now');
    const logged = await client.submit('/log?tmdbId=603', '/log', { tmdbId: '603', date: '2024-01-01' });
    expect(logged.statusCode).toBe(400);
    expect(await aliceState()).toEqual({ entries: [], rating: null, watchlist: 0 });
  });

  it('gives the plays without a date a date, and takes it away again', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    await client.submit(`/log?movieId=${movie.id}`, '/log', {
      movieId: String(movie.id),
      unknownDate: 'on',
      plays: '2',
    });
    expect(await entries(alice.user.id)).toEqual([
      { watched_at: null, plays: 2, comment: null, rating: null },
    ]);
    const dated = await client.submit(page(), `/movies/${movie.id}/entries/edit`, {
      from: '',
      date: '2023-03-04',
      plays: '2',
      position: '1',
    });
    expect(dated.statusCode).toBe(303);
    expect(await entries(alice.user.id)).toEqual([
      { watched_at: '2023-03-04', plays: 2, comment: null, rating: null },
    ]);
    await client.submit(page(), `/movies/${movie.id}/entries/edit`, {
      from: '2023-03-04',
      unknownDate: 'on',
      plays: '2',
      position: '1',
    });
    expect(await entries(alice.user.id)).toEqual([
      { watched_at: null, plays: 2, comment: null, rating: null },
    ]);
  });

  it("brings a refused edit back with that entry's form open, the others closed", async () => {
    const client = await signedInClient(ctx.app, 'alice');
    for (const date of ['2023-03-04', '2023-05-06']) {
      await client.submit(`/log?movieId=${movie.id}`, '/log', {
        movieId: String(movie.id),
        date,
        plays: '1',
      });
    }
    const refused = await client.submit(page(), `/movies/${movie.id}/entries/edit`, {
      from: '2023-05-06',
      date: '2023-05-06',
      plays: '0',
      position: '1',
    });
    expect(refused.statusCode).toBe(400);
    const forms = [
      ...refused.body.matchAll(
        /<details class="disclosure edit-entry"( open)?>[\s\S]*?name="from" value="([^"]*)"/g,
      ),
    ];
    expect(forms.map((form) => [form[2], form[1] === ' open'])).toEqual([
      ['2023-05-06', true],
      ['2023-03-04', false],
    ]);
    // A page that was not refused has them all closed.
    expect((await client.get(page())).body).not.toContain('edit-entry" open');
  });

  it('redirects a movie address without its slug, or with an old one, to the right one', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    for (const path of [`/movies/${movie.id}`, `/movies/${movie.id}-old-title`]) {
      const response = await client.get(path);
      expect(response.statusCode).toBe(301);
      expect(response.headers.location).toBe(page());
    }
    expect((await client.get(page())).statusCode).toBe(200);
  });
});
