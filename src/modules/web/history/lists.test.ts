import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

// History, watchlist and ratings pages, and "Watched it", over HTTP on both engines.
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const today = () => ctx.clock.now().toISOString().slice(0, 10);

describe('list pages', () => {
  it('require a signed-in user; "Watched it" signed out or without CSRF changes nothing', async () => {
    const movie = await createMovie(ctx);
    await ctx.library.write(alice.user.id, (lib) => lib.addToWatchlist([movie.id]));
    const stranger = new WebClient(ctx.app);
    for (const path of ['/history', '/watchlist?sort=title', '/ratings']) {
      const response = await stranger.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await stranger.get('/login');
    expect((await stranger.post('/watchlist/watched', { movieId: String(movie.id) })).headers.location).toBe(
      '/login',
    );
    const client = await signedInClient(ctx.app, 'alice');
    expect(
      (await client.post('/watchlist/watched', { movieId: String(movie.id), _csrf: '' })).statusCode,
    ).toBe(403);
    expect((await ctx.library.list('history', alice.user, {})).items).toEqual([]);
    expect((await ctx.library.list('watchlist', alice.user, {})).items).toHaveLength(1);
  });

  it("shows the user's own entries, searched, sorted and in pages; never another user's", async () => {
    const movies: { id: number }[] = [];
    for (let i = 0; i < 30; i++)
      movies.push(await createMovie(ctx, { title: `Film ${String(i).padStart(2, '0')}` }));
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays(
        movies.map((movie, i) => ({
          movieId: movie.id,
          watchedAt: `2024-01-${String(i + 1).padStart(2, '0')}`,
          plays: 1,
          comment: i === 29 ? 'The last one.' : null,
        })),
      ),
    );
    await ctx.library.write(bob.user.id, (lib) =>
      lib.addPlays([{ movieId: movies[0]!.id, watchedAt: '2024-02-01', plays: 1, comment: 'Bob was here.' }]),
    );
    const client = await signedInClient(ctx.app, 'alice');
    const first = textOf((await client.get('/history')).body);
    expect(first.indexOf('Film 29')).toBeLessThan(first.indexOf('Film 28'));
    expect(first).toContain('The last one.');
    expect(first).not.toContain('Film 05');
    expect(first).toContain('Page 1 of 2');
    expect(first).not.toContain('Bob was here.');
    expect(textOf((await client.get('/history?page=2')).body)).toContain('Film 05');
    const oldest = textOf((await client.get('/history?order=asc')).body);
    expect(oldest.indexOf('Film 00')).toBeLessThan(oldest.indexOf('Film 01'));
    const searched = textOf((await client.get('/history?q=Film%2017')).body);
    expect(searched).toContain('Film 17');
    expect(searched).not.toContain('Film 18');
    // Bob's history has his one play, none of Alice's.
    const bobs = textOf((await (await signedInClient(ctx.app, 'bob')).get('/history')).body);
    expect(bobs).toContain('Bob was here.');
    expect(bobs).not.toContain('Film 29');
  });

  it('sorts the watchlist and the ratings, showing each in the user scale', async () => {
    const a = await createMovie(ctx, { title: 'Alpha' });
    const b = await createMovie(ctx, { title: 'Beta' });
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.addToWatchlist([b.id, a.id]);
      await lib.setRatings([
        { movieId: a.id, rating: 3 },
        { movieId: b.id, rating: 10 },
      ]);
    });
    const client = await signedInClient(ctx.app, 'alice');
    const byTitle = textOf((await client.get('/watchlist?sort=title&order=asc')).body);
    expect(byTitle.indexOf('Alpha')).toBeLessThan(byTitle.indexOf('Beta'));
    const ratingsPage = (await client.get('/ratings?sort=rating&order=desc')).body;
    const byRating = textOf(ratingsPage);
    expect(byRating.indexOf('Beta')).toBeLessThan(byRating.indexOf('Alpha'));
    // The stars say what they show.
    expect(ratingsPage).toContain('aria-label="Rated 5 stars"');
    expect(ratingsPage).toContain('aria-label="Rated 1½ stars"');
    expect(textOf((await (await signedInClient(ctx.app, 'bob')).get('/ratings')).body)).toContain(
      'No ratings yet',
    );
  });

  it('"Watched it" logs a play today and takes the movie off the watchlist, of the signed-in user only', async () => {
    const movie = await createMovie(ctx);
    for (const user of [alice, bob])
      await ctx.library.write(user.user.id, (lib) => lib.addToWatchlist([movie.id]));
    const client = await signedInClient(ctx.app, 'alice');
    const response = await client.submit('/watchlist', '/watchlist/watched', { movieId: String(movie.id) });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/watchlist');
    const history = await ctx.library.list('history', alice.user, {});
    expect(history.items.map((entry) => [entry.movie.ids.service, entry.watchedAt])).toEqual([
      [movie.id, today()],
    ]);
    expect((await ctx.library.list('watchlist', alice.user, {})).items).toEqual([]);
    // Bob's watchlist and history are as they were.
    expect((await ctx.library.list('watchlist', bob.user, {})).items).toHaveLength(1);
    expect((await ctx.library.list('history', bob.user, {})).items).toEqual([]);
  });

  it('"Watched it" asks for the day (today unless changed), and its notice names the movie', async () => {
    const movie = await createMovie(ctx, { title: 'Lanternfish' });
    const other = await createMovie(ctx, { title: 'Kiel' });
    await ctx.library.write(alice.user.id, (lib) => lib.addToWatchlist([movie.id, other.id]));
    const client = await signedInClient(ctx.app, 'alice');
    const page = (await client.get('/watchlist')).body;
    expect(page).toContain(`<label for="watched-${movie.id}">Watched on</label>`);
    expect(page).toMatch(new RegExp(`id="watched-${movie.id}" type="date" name="date" value="${today()}"`));

    const response = await client.submit('/watchlist', '/watchlist/watched', {
      movieId: String(movie.id),
      date: '2024-05-31',
    });
    expect(response.statusCode).toBe(303);
    expect(textOf((await client.follow(response)).body)).toContain(
      'Logged Lanternfish on 31 May 2024 and took it off your watchlist.',
    );
    const history = await ctx.library.list('history', alice.user, {});
    expect(history.items.map((entry) => [entry.movie.title, entry.watchedAt])).toEqual([
      ['Lanternfish', '2024-05-31'],
    ]);
    // A day after today, or not a day: refused, nothing changed.
    for (const date of ['2024-06-16', '31/05/2024']) {
      const refused = await client.submit('/watchlist', '/watchlist/watched', {
        movieId: String(other.id),
        date,
      });
      expect(refused.statusCode).toBe(400);
    }
    expect((await ctx.library.list('history', alice.user, {})).items).toHaveLength(1);
    expect((await ctx.library.list('watchlist', alice.user, {})).items).toHaveLength(1);
  });

  it('filters the watchlist by decade and language, offering only what the watchlist holds', async () => {
    const old = await createMovie(ctx, {
      title: 'Old French',
      release_date: '1962-05-01',
      original_language: 'fr',
    });
    const recent = await createMovie(ctx, { title: 'Recent English', release_date: '2015-01-01' });
    const played = await createMovie(ctx, {
      title: 'Played Only',
      release_date: '1990-01-01',
      original_language: 'de',
    });
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.addToWatchlist([old.id, recent.id]);
      await lib.addPlays([{ movieId: played.id, watchedAt: '2024-01-01', plays: 1, comment: null }]);
    });
    const client = await signedInClient(ctx.app, 'alice');
    const all = (await client.get('/watchlist')).body;
    expect(all).toContain('<option value="1960">1960s (1)</option>');
    expect(all).toContain('<option value="fr">fr (1)</option>');
    expect(all).not.toContain('<option value="1990">'); // a played movie, not on the watchlist
    const sixties = textOf((await client.get('/watchlist?decade=1960')).body);
    expect(sixties).toContain('Old French');
    expect(sixties).not.toContain('Recent English');
    const english = textOf((await client.get('/watchlist?language=en&decade=')).body);
    expect(english).toContain('Recent English');
    expect(english).not.toContain('Old French');
    const none = textOf((await client.get('/watchlist?language=de')).body);
    expect(none).toContain('Nothing on your watchlist matches these filters');
    // Bob's watchlist is his own: empty, with nothing to filter by.
    const bobs = (await (await signedInClient(ctx.app, 'bob')).get('/watchlist?decade=1960')).body;
    expect(textOf(bobs)).not.toContain('Old French');
    expect(bobs).not.toContain('<option value="1960">');
  });

  it.each([
    ['/watchlist?decade=1965', 400],
    ['/watchlist?genre=x', 400],
    ['/watchlist?language=ENGLISH', 400],
    ['/history?page=0', 400],
    ['/history?order=sideways', 400],
    ['/watchlist?sort=plays', 400],
    ['/ratings?q=a%00b', 400],
  ])('answers a bad query %s with %i', async (path, status) => {
    const client = await signedInClient(ctx.app, 'alice');
    expect((await client.get(path)).statusCode).toBe(status);
  });

  it('refuses "Watched it" for an unknown movie (404) or no movie (400), changing nothing', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    expect((await client.submit('/watchlist', '/watchlist/watched', { movieId: '99999' })).statusCode).toBe(
      404,
    );
    expect((await client.submit('/watchlist', '/watchlist/watched', { movieId: 'x' })).statusCode).toBe(400);
    expect((await ctx.library.list('history', alice.user, {})).items).toEqual([]);
  });
});
