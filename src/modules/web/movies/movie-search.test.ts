import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  startFakeTmdb,
} from '../../../../test/fake-tmdb.js';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';
import { createTmdbClient } from '../../../integrations/tmdb/tmdb.client.js';
import { movieHref } from '../shell/format.js';

// Issue 30 over HTTP on both engines: the movie page's lists and tags, the cards' hearts, search
// finding people and adding to a list, with the fake TMDB.
let fake: FakeTmdb;
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  fake = await startFakeTmdb();
});
afterAll(() => fake.close());
beforeEach(async () => {
  fake.reset();
  ctx = await setupTestApp({
    tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }),
  });
  alice = await createUser(ctx, { name: 'alice' });
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const hrefOf = (movie: { id: number; title: string }) => movieHref(movie.id, movie.title);
const [LEDGER, KIEL] = [FAKE_TMDB_MOVIES[0]!, FAKE_TMDB_MOVIES[1]!];
/** The fake TMDB's movie, stored with its credits through the API. */
const stored = async (tmdbId: number) => {
  const { value: token } = await ctx.tokens.create(alice.user.id, `add ${tmdbId}`, 'never');
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/movies/add',
    headers: { authorization: `Bearer ${token}` },
    payload: { providerId: tmdbId },
  });
  expect(response.statusCode).toBeLessThan(300);
  const id = (response.json() as { serviceId: number }).serviceId;
  return { id, title: FAKE_TMDB_MOVIES.find((m) => m.id === tmdbId)!.title };
};
const fresh = async (user: TestUser) => (await ctx.users.findByName(user.user.name))!;
const listTitles = async (user: TestUser, listId: number) =>
  (await ctx.library.listWithMovies(await fresh(user), listId, user.user.id, {}))!.movies.items.map(
    (entry) => entry.movie.title,
  );
/** The card heart's button of a movie on a page: its pressed state, or undefined when none. */
const heartOf = (html: string, movieId: number) =>
  new RegExp(
    `action="/movies/${movieId}/like">.*?<input type="hidden" name="action" value="(like|unlike)">.*?aria-pressed="(true|false)"`,
    's',
  )
    .exec(html)
    ?.slice(1);

describe('the movie page, cards and search (issue 30)', () => {
  it('require a signed-in user, and the new form its CSRF token', async () => {
    const movie = await createMovie(ctx);
    const list = await ctx.library.write(alice.user.id, (lib) => lib.createList({ name: 'Mine' }));
    const stranger = new WebClient(ctx.app);
    const response = await stranger.get('/search?q=kiel');
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/login?next=${encodeURIComponent('/search?q=kiel')}`);
    await stranger.get('/login');
    const fields = { listId: String(list.id), movieId: String(movie.id) };
    expect((await stranger.post('/lists/add', fields)).headers.location).toBe('/login');
    const client = await signedInClient(ctx.app, 'alice');
    await client.get('/search');
    const refused = await client.post('/lists/add', { ...fields, _csrf: '' });
    expect(refused.statusCode).toBe(403);
    expect(await listTitles(alice, list.id)).toEqual([]);
  });

  it("shows the lists that hold the movie (with its rank) and its entries' tags; never another user's", async () => {
    const movie = await createMovie(ctx, { title: 'Heat' });
    const other = await createMovie(ctx, { title: 'Thief' });
    const client = await signedInClient(ctx.app, 'alice');
    let page = textOf((await client.get(hrefOf(movie))).body);
    expect(page).toContain('Not on any of your lists yet.');
    expect(page).toContain('You have no list yet.');
    expect(page).not.toContain('Your tags');

    const [top, sunday, later] = await ctx.library.write(alice.user.id, async (lib) => [
      await lib.createList({ name: 'Top 10', ranked: true }),
      await lib.createList({ name: 'Sunday films' }),
      await lib.createList({ name: 'Later' }),
    ]);
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.putListMovies(top!.id, [{ movieId: other.id }, { movieId: movie.id }]);
      await lib.putListMovies(sunday!.id, [{ movieId: movie.id }]);
      await lib.logEntries([
        { movieId: movie.id, watchedAt: '2024-01-02', plays: 1, comment: null, tags: ['heist', 'LA'] },
        { movieId: movie.id, watchedAt: '2024-03-04', plays: 1, comment: null, tags: ['la', 'night'] },
        { movieId: other.id, watchedAt: '2024-03-04', plays: 1, comment: null, tags: ['other-movie'] },
      ]);
    });
    // Bob keeps the same movie on his own list, with his own tags.
    const bobs = await ctx.library.write(bob.user.id, (lib) =>
      lib.createList({ name: 'Bob secret', visibility: 'public' }),
    );
    await ctx.library.write(bob.user.id, async (lib) => {
      await lib.putListMovies(bobs.id, [{ movieId: movie.id }]);
      await lib.logEntries([
        { movieId: movie.id, watchedAt: '2024-01-02', plays: 1, comment: null, tags: ['bobtag'] },
      ]);
    });

    const html = (await client.get(hrefOf(movie))).body;
    page = textOf(html);
    expect(page).toContain('Lists Sunday films Top 10 No. 2');
    expect(html).toContain(`<a href="/lists/${top!.id}">Top 10</a>`);
    expect(html).toContain(`<a href="/lists/${sunday!.id}">Sunday films</a>`);
    // Only the list without it is offered.
    expect(page).toContain('Add to a list Later Add');
    expect(html).not.toContain(`<option value="${top!.id}">Top 10</option>`);
    expect(html).toContain(`<option value="${later!.id}">Later</option>`);
    expect(page).toContain('Your tags heist LA night');
    expect(html).toContain('href="/history?tag=heist"');
    expect(page).not.toContain('other-movie');
    expect(page).not.toContain('Bob secret');
    expect(page).not.toContain('bobtag');
    // The log form's tags field suggests all of her tags (of every movie), none of Bob's.
    expect(html).toContain('list="log-tag-list"');
    expect(html).toContain('<option value="other-movie">');
    expect(html).not.toContain('<option value="bobtag">');

    // Bob's page of the same movie: his list and tag alone.
    const bobPage = textOf((await (await signedInClient(ctx.app, 'bob')).get(hrefOf(movie))).body);
    expect(bobPage).toContain('Bob secret');
    expect(bobPage).toContain('bobtag');
    expect(bobPage).not.toContain('Top 10');
    expect(bobPage).not.toContain('heist');

    // Logged without tags: the empty state says where tags come from.
    const bare = await createMovie(ctx, { title: 'Bare' });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.logEntries([{ movieId: bare.id, watchedAt: '2024-05-05', plays: 1, comment: null }]),
    );
    expect(textOf((await client.get(hrefOf(bare))).body)).toContain('No tags on your entries of this movie.');
  });

  it('puts a heart on each card of /movies, a list and a person page: one liked query, pressed for likes of this user alone', async () => {
    const ledger = await stored(LEDGER.id);
    const kiel = await stored(KIEL.id);
    await ctx.library.write(alice.user.id, (lib) =>
      lib.logEntries([
        { movieId: ledger.id, watchedAt: '2024-01-02', plays: 1, comment: null },
        { movieId: kiel.id, watchedAt: '2024-01-03', plays: 1, comment: null },
      ]),
    );
    await ctx.library.write(alice.user.id, (lib) => lib.likeMovies([kiel.id]));
    await ctx.library.write(bob.user.id, (lib) => lib.likeMovies([ledger.id]));
    const client = await signedInClient(ctx.app, 'alice');
    let html = (await client.get('/movies?sort=title')).body;
    expect(heartOf(html, kiel.id)).toEqual(['unlike', 'true']);
    expect(heartOf(html, ledger.id)).toEqual(['like', 'false']);
    expect(html).toContain(`aria-label="Like ${ledger.title.replace("'", '&#39;')}"`);
    // The heart comes back to the page it was pressed on.
    expect(html).toContain('<input type="hidden" name="next" value="/movies?sort=title">');
    let response = await client.post(`/movies/${ledger.id}/like`, {
      action: 'like',
      next: '/movies?sort=title',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/movies?sort=title');
    html = (await client.follow(response)).body;
    expect(textOf(html)).toContain(`You like ${ledger.title}.`);
    // The kept page of the grid is not shown again: the like moved the data version.
    expect(heartOf(html, ledger.id)).toEqual(['unlike', 'true']);
    // Another site is never where a heart leads.
    response = await client.post(`/movies/${ledger.id}/like`, { action: 'unlike', next: '//evil.test/x' });
    expect(response.headers.location).toBe('/');

    const list = await ctx.library.write(alice.user.id, (lib) => lib.createList({ name: 'Trains' }));
    await ctx.library.write(alice.user.id, (lib) => lib.putListMovies(list.id, [{ movieId: kiel.id }]));
    expect(heartOf((await client.get(`/lists/${list.id}`)).body, kiel.id)).toEqual(['unlike', 'true']);
    const person = await ctx.db
      .selectFrom('people')
      .select('id')
      .where('name', '=', 'Friedrich Lange')
      .executeTakeFirstOrThrow();
    const personPage = (await client.follow(await client.get(`/people/${person.id}`))).body;
    expect(heartOf(personPage, kiel.id)).toEqual(['unlike', 'true']);
    // Bob likes the Ledger; on his grid his heart is pressed, Alice's like of Kiel is not his.
    const bobClient = await signedInClient(ctx.app, 'bob');
    await ctx.library.write(bob.user.id, (lib) =>
      lib.logEntries([{ movieId: kiel.id, watchedAt: '2024-01-03', plays: 1, comment: null }]),
    );
    expect(heartOf((await bobClient.get('/movies')).body, kiel.id)).toEqual(['like', 'false']);

    // The watchlist's and the ratings' cards too, each user's own likes.
    const comet = await stored(FAKE_TMDB_MOVIES[2]!.id);
    await ctx.library.write(alice.user.id, (lib) => lib.addToWatchlist([comet.id]));
    await ctx.library.write(bob.user.id, (lib) => lib.addToWatchlist([comet.id]));
    await ctx.library.write(alice.user.id, (lib) => lib.likeMovies([comet.id]));
    await ctx.library.write(alice.user.id, (lib) => lib.setRatings([{ movieId: kiel.id, rating: 8 }]));
    expect(heartOf((await client.get('/watchlist')).body, comet.id)).toEqual(['unlike', 'true']);
    expect(heartOf((await bobClient.get('/watchlist')).body, comet.id)).toEqual(['like', 'false']);
    expect(heartOf((await client.get('/ratings')).body, kiel.id)).toEqual(['unlike', 'true']);
  });

  it('finds stored people, names the director and the original title, and adds a result to a list', async () => {
    const kiel = await stored(KIEL.id);
    const list = await ctx.library.write(alice.user.id, (lib) => lib.createList({ name: 'Trains' }));
    const bobs = await ctx.library.write(bob.user.id, (lib) => lib.createList({ name: 'Bob only' }));
    const client = await signedInClient(ctx.app, 'alice');

    let html = (await client.get('/search?q=lange')).body;
    let page = textOf(html);
    expect(page).toMatch(/People .*Friedrich Lange Directing/);
    expect(html).toMatch(/<a href="\/people\/\d+-friedrich-lange">/);
    expect(page).not.toContain('Nothing found');

    html = (await client.get('/search?q=kiel')).body;
    page = textOf(html);
    expect(page).toContain('Night Train to Kiel (');
    expect(page).toContain('Directed by Friedrich Lange');
    expect(page).toContain('Original title: Nachtzug nach Kiel');
    expect(page).toContain('Add to a list (Night Train to Kiel) Trains');
    expect(page).not.toContain('Bob only');
    expect(heartOf(html, kiel.id)).toEqual(['like', 'false']);

    // A stored result, then one TMDB has and cinelog not yet: both land on the list.
    let response = await client.post('/lists/add', {
      listId: String(list.id),
      movieId: String(kiel.id),
      next: '/search?q=kiel',
    });
    expect(response.headers.location).toBe('/search?q=kiel');
    expect(textOf((await client.follow(response)).body)).toContain('Added Night Train to Kiel to Trains.');
    response = await client.post('/lists/add', { listId: String(list.id), tmdbId: String(LEDGER.id) });
    expect(response.statusCode).toBe(303);
    expect(await listTitles(alice, list.id)).toEqual([KIEL.title, LEDGER.title]);

    // Another user's list is a 404 before anything is stored; bad input a 400; nothing changes.
    const before = await ctx.db.selectFrom('movies').select('id').execute();
    const paper = FAKE_TMDB_MOVIES[2]!;
    expect(
      (await client.post('/lists/add', { listId: String(bobs.id), tmdbId: String(paper.id) })).statusCode,
    ).toBe(404);
    expect(
      (await client.post('/lists/add', { listId: String(bobs.id), movieId: String(kiel.id) })).statusCode,
    ).toBe(404);
    expect((await client.post('/lists/add', { listId: String(list.id) })).statusCode).toBe(400);
    expect((await client.post('/lists/add', { listId: 'x', movieId: String(kiel.id) })).statusCode).toBe(400);
    expect((await client.post('/lists/add', { listId: String(list.id), movieId: '999999' })).statusCode).toBe(
      404,
    );
    expect(await ctx.db.selectFrom('movies').select('id').execute()).toHaveLength(before.length);
    expect(await listTitles(bob, bobs.id)).toEqual([]);
    expect(await listTitles(alice, list.id)).toEqual([KIEL.title, LEDGER.title]);
  });

  it('a search without lists offers none, and a name nobody has finds nothing', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const page = textOf((await client.get('/search?q=zzzznothing')).body);
    expect(page).toContain('Nothing found for “zzzznothing”');
    expect(textOf((await client.get('/search?q=kiel')).body)).not.toContain('Add to a list');
  });

  it('without TMDB the people are still found, under the reason the movies are not', async () => {
    const bare = await setupTestApp({ tmdb: null });
    try {
      await createUser(bare, { name: 'carol' });
      await bare.db
        .insertInto('people')
        .values({ tmdb_id: 1, name: 'Agnès Varda', updated_at: bare.clock.now().toISOString() })
        .execute();
      const client = await signedInClient(bare.app, 'carol');
      const response = await client.get('/search?q=varda');
      expect(response.statusCode).toBe(200);
      const page = textOf(response.body);
      expect(page).toContain('TMDB_API_KEY is not set');
      expect(page).toMatch(/People .*Agnès Varda/);
      // One character finds no one (it would match nearly everyone).
      expect(textOf((await client.get('/search?q=a')).body)).not.toContain('Agnès Varda');
    } finally {
      await bare.close();
    }
  });
});
