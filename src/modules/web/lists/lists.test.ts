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

// Issue 30's pages over HTTP on both engines: likes, lists, "Add to a list", the public lists.
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice', privacy: 'users' });
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const hrefOf = (movie: { id: number; title: string }) => movieHref(movie.id, movie.title);
// The user as stored now: the library's reads are kept by the user's data version, which every write moves.
const fresh = async (user: TestUser) => (await ctx.users.findByName(user.user.name))!;
const listOf = async (user: TestUser, id: number) =>
  (await ctx.library.listWithMovies(await fresh(user), id, user.user.id, {}))!;
const listsOf = async (user: TestUser) => ctx.library.lists(await fresh(user), user.user.id);
const titlesOn = async (user: TestUser, id: number) =>
  (await listOf(user, id)).movies.items.map((entry) => entry.movie.title);
const newList = (
  user: TestUser,
  values: { name: string; ranked?: boolean; visibility?: 'private' | 'users' | 'public' },
) => ctx.library.write(user.user.id, (lib) => lib.createList(values));
const likedTitles = async (user: TestUser) =>
  (await ctx.library.list('likes', await fresh(user), {})).items.map((entry) => entry.movie.title);

describe('likes and lists pages', () => {
  it('require a signed-in user, and every form its CSRF token', async () => {
    const movie = await createMovie(ctx);
    const list = await newList(alice, { name: 'Mine' });
    await ctx.library.write(alice.user.id, (lib) => lib.putListMovies(list.id, [{ movieId: movie.id }]));
    const stranger = new WebClient(ctx.app);
    for (const path of ['/likes', '/lists', `/lists/${list.id}`]) {
      const response = await stranger.get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    await stranger.get('/login');
    const forms: [string, Record<string, string>][] = [
      [`/movies/${movie.id}/like`, { action: 'like' }],
      [`/movies/${movie.id}/lists`, { listId: String(list.id) }],
      ['/lists', { name: 'New', visibility: 'private' }],
      [`/lists/${list.id}/edit`, { name: 'Renamed', visibility: 'public' }],
      [`/lists/${list.id}/delete`, {}],
      [`/lists/${list.id}/movies/${movie.id}/move`, { from: '1', direction: 'down' }],
      [`/lists/${list.id}/movies/${movie.id}/note`, { from: '1', note: 'Sneaky' }],
      [`/lists/${list.id}/movies/${movie.id}/remove`, {}],
    ];
    for (const [action, fields] of forms) {
      expect((await stranger.post(action, fields)).headers.location).toBe('/login');
    }
    const client = await signedInClient(ctx.app, 'alice');
    await client.get('/lists');
    for (const [action, fields] of forms) {
      const response = await client.post(action, { ...fields, _csrf: '' });
      expect(response.statusCode).toBe(403);
      expect(textOf(response.body)).toContain('Form expired');
    }
    expect(await likedTitles(alice)).toEqual([]);
    expect((await listsOf(alice)).map((l) => l.name)).toEqual(['Mine']);
    expect(await titlesOn(alice, list.id)).toEqual([movie.title]);
  });

  it('likes and unlikes from the movie page; /likes shows them newest first, in pages', async () => {
    const heat = await createMovie(ctx, { title: 'Heat' });
    const alien = await createMovie(ctx, { title: 'Alien' });
    const client = await signedInClient(ctx.app, 'alice');
    const empty = textOf((await client.get('/likes')).body);
    expect(empty).toContain('No likes yet');
    expect(empty).toContain('press “Like”');

    let page = (await client.get(hrefOf(heat))).body;
    expect(page).toMatch(/<button type="submit" class="like" aria-pressed="false">.*Like<\/button>/s);
    let response = await client.post(`/movies/${heat.id}/like`, { action: 'like' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(hrefOf(heat));
    page = (await client.follow(response)).body;
    expect(textOf(page)).toContain('You like Heat.');
    expect(page).toContain('aria-pressed="true"');
    ctx.clock.advance(60_000);
    await client.submit(hrefOf(alien), `/movies/${alien.id}/like`, { action: 'like' });
    expect(await likedTitles(alice)).toEqual(['Alien', 'Heat']);
    const likes = textOf((await client.get('/likes')).body);
    expect(likes.indexOf('Alien')).toBeLessThan(likes.indexOf('Heat'));
    expect(likes).toContain('Liked');
    // Bob sees none of them.
    expect(textOf((await (await signedInClient(ctx.app, 'bob')).get('/likes')).body)).toContain(
      'No likes yet',
    );

    response = await client.submit(hrefOf(heat), `/movies/${heat.id}/like`, { action: 'unlike' });
    expect(textOf((await client.follow(response)).body)).toContain('You no longer like Heat.');
    expect(await likedTitles(alice)).toEqual(['Alien']);
    // The same form again (sent twice, an old page): it says nothing changed, not that it did.
    response = await client.submit(hrefOf(heat), `/movies/${heat.id}/like`, { action: 'unlike' });
    expect(textOf((await client.follow(response)).body)).toContain('You did not like Heat: nothing changed.');
    expect(await likedTitles(alice)).toEqual(['Alien']);

    // Pages of 24.
    for (let i = 0; i < 25; i++) {
      const movie = await createMovie(ctx, { title: `Film ${String(i).padStart(2, '0')}` });
      await ctx.library.write(alice.user.id, (lib) => lib.likeMovies([movie.id]));
    }
    expect(textOf((await client.get('/likes')).body)).toContain('Page 1 of 2');
    expect(textOf((await client.get('/likes?page=2')).body)).toContain('Alien');
  });

  it('refuses a bad like: an unknown movie is a 404 page, a bad action a 400 page', async () => {
    const movie = await createMovie(ctx);
    const client = await signedInClient(ctx.app, 'alice');
    await client.get(hrefOf(movie));
    expect((await client.post('/movies/999999/like', { action: 'like' })).statusCode).toBe(404);
    expect((await client.post(`/movies/${movie.id}/like`, { action: 'love' })).statusCode).toBe(400);
    expect(await likedTitles(alice)).toEqual([]);
  });

  it('creates a list, with an empty state first; a refused form comes back with what was typed', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    const empty = textOf((await client.get('/lists')).body);
    expect(empty).toContain('No lists yet');
    let response = await client.post('/lists', {
      name: '  ',
      description: 'Kept',
      ranked: 'on',
      visibility: 'public',
    });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('The name of a list may not be empty.');
    expect(response.body).toContain('>Kept</textarea>');
    expect(response.body).toMatch(/value="public" checked/);
    response = await client.post('/lists', { name: 'x'.repeat(101), visibility: 'private' });
    expect(response.statusCode).toBe(400);
    response = await client.post('/lists', { name: 'Top', visibility: 'everyone' });
    expect(response.statusCode).toBe(400);
    expect(await listsOf(alice)).toEqual([]);

    response = await client.post('/lists', {
      name: ' Top 10 of 1999 ',
      description: 'My year',
      ranked: 'on',
      visibility: 'users',
    });
    expect(response.statusCode).toBe(303);
    const [list] = await listsOf(alice);
    expect(list).toMatchObject({
      name: 'Top 10 of 1999',
      description: 'My year',
      ranked: true,
      visibility: 'users',
    });
    expect(response.headers.location).toBe(`/lists/${list!.id}`);
    const page = textOf((await client.follow(response)).body);
    expect(page).toContain('List Top 10 of 1999 created.');
    expect(page).toContain('Nothing on this list yet');
    const lists = textOf((await client.get('/lists')).body);
    expect(lists).toContain('Top 10 of 1999 0 movies · Ranked · Users of this server');
  });

  it('adds movies from the movie page, moves them up and down, removes one; the rank shows when ranked', async () => {
    const [a, b, c] = [
      await createMovie(ctx, { title: 'Alpha' }),
      await createMovie(ctx, { title: 'Bravo' }),
      await createMovie(ctx, { title: 'Charlie' }),
    ];
    const list = await newList(alice, { name: 'Best', ranked: true });
    const client = await signedInClient(ctx.app, 'alice');
    const moviePage = textOf((await client.get(hrefOf(a!))).body);
    expect(moviePage).toContain('Add to a list Best Add');
    expect(moviePage).toContain('Make a new list');
    for (const movie of [a!, b!, c!]) {
      const response = await client.submit(hrefOf(movie), `/movies/${movie.id}/lists`, {
        listId: String(list.id),
      });
      expect(response.headers.location).toBe(hrefOf(movie));
    }
    expect(textOf((await client.get(hrefOf(c!))).body)).toContain('Added Charlie to Best.');
    // Added again: it stays where it is.
    await client.submit(hrefOf(a!), `/movies/${a!.id}/lists`, { listId: String(list.id) });
    expect(await titlesOn(alice, list.id)).toEqual(['Alpha', 'Bravo', 'Charlie']);

    const page = (await client.get(`/lists/${list.id}`)).body;
    expect(page).toContain('<ol class="poster-grid list-movies">');
    expect(textOf(page)).toMatch(/1 Alpha .*2 Bravo .*3 Charlie/);
    // The first has no "Move up", the last no "Move down".
    expect(textOf(page)).not.toContain('Move up (Alpha)');
    expect(textOf(page)).toContain('Move down (Alpha)');
    expect(textOf(page)).not.toContain('Move down (Charlie)');

    let response = await client.post(`/lists/${list.id}/movies/${c!.id}/move`, {
      from: '3',
      direction: 'up',
      next: `/lists/${list.id}`,
    });
    expect(response.headers.location).toBe(`/lists/${list.id}`);
    expect(textOf((await client.follow(response)).body)).toContain('Moved Charlie up to number 2.');
    expect(await titlesOn(alice, list.id)).toEqual(['Alpha', 'Charlie', 'Bravo']);
    await client.post(`/lists/${list.id}/movies/${a!.id}/move`, { from: '1', direction: 'down' });
    expect(await titlesOn(alice, list.id)).toEqual(['Charlie', 'Alpha', 'Bravo']);

    // A stale form (Alpha is no longer first), a move past the end, a movie not on the list: 400, no change.
    await client.get(`/lists/${list.id}`);
    for (const [movieId, from, direction] of [
      [a!.id, '1', 'down'],
      [b!.id, '3', 'down'],
      [c!.id, '1', 'up'],
    ] as const) {
      response = await client.post(`/lists/${list.id}/movies/${movieId}/move`, { from, direction });
      expect(response.statusCode).toBe(400);
    }
    expect(
      (await client.post(`/lists/${list.id}/movies/${a!.id}/move`, { from: '0', direction: 'up' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await client.post(`/lists/${list.id}/movies/${a!.id}/move`, { from: '2', direction: 'left' }))
        .statusCode,
    ).toBe(400);
    expect(await titlesOn(alice, list.id)).toEqual(['Charlie', 'Alpha', 'Bravo']);

    // Remove: asked first (the confirmation), then gone, no gap.
    expect(textOf((await client.get(`/lists/${list.id}`)).body)).toContain(
      'Take Alpha off Best? Yes, remove it',
    );
    response = await client.post(`/lists/${list.id}/movies/${a!.id}/remove`, { next: `/lists/${list.id}` });
    expect(textOf((await client.follow(response)).body)).toContain('Alpha taken off the list.');
    // Again (an old page): nothing was there to take off, and the notice says so.
    response = await client.post(`/lists/${list.id}/movies/${a!.id}/remove`, { next: `/lists/${list.id}` });
    expect(textOf((await client.follow(response)).body)).toContain(
      'Alpha was not on the list: nothing changed.',
    );
    expect((await listOf(alice, list.id)).movies.items.map((e) => [e.movie.title, e.position])).toEqual([
      ['Charlie', 1],
      ['Bravo', 2],
    ]);
    // An unknown list or movie from the movie page: 404 pages, nothing added.
    await client.get(hrefOf(a!));
    expect((await client.post(`/movies/${a!.id}/lists`, { listId: '999999' })).statusCode).toBe(404);
    expect((await client.post('/movies/999999/lists', { listId: String(list.id) })).statusCode).toBe(404);
    expect((await client.post(`/movies/${a!.id}/lists`, { listId: 'x' })).statusCode).toBe(400);
    expect(await titlesOn(alice, list.id)).toEqual(['Charlie', 'Bravo']);
    // An unranked list is a plain grid, without numbers.
    await ctx.library.write(alice.user.id, (lib) => lib.changeList(list.id, { ranked: false }));
    expect((await client.get(`/lists/${list.id}`)).body).toContain('<ul class="poster-grid list-movies">');
  });

  it("writes, changes and clears a movie's note; a stale or too long note changes nothing", async () => {
    const [a, b] = [await createMovie(ctx, { title: 'Alpha' }), await createMovie(ctx, { title: 'Bravo' })];
    const list = await newList(alice, { name: 'Notes' });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.putListMovies(list.id, [{ movieId: a!.id }, { movieId: b!.id }]),
    );
    const notes = async () => (await listOf(alice, list.id)).movies.items.map((e) => [e.movie.title, e.note]);
    const client = await signedInClient(ctx.app, 'alice');
    expect(textOf((await client.get(`/lists/${list.id}`)).body)).toContain('Add a note (Bravo)');
    let response = await client.post(`/lists/${list.id}/movies/${b!.id}/note`, {
      from: '2',
      note: ' Lights off. ',
    });
    expect(response.headers.location).toBe(`/lists/${list.id}`);
    const page = textOf((await client.follow(response)).body);
    expect(page).toContain('Note on Bravo saved.');
    expect(page).toContain('Lights off. Edit note (Bravo)');
    expect(await notes()).toEqual([
      ['Alpha', null],
      ['Bravo', 'Lights off.'],
    ]);
    // Stale (Bravo is not first), too long, or not a place: 400, nothing written.
    for (const fields of [
      { from: '1', note: 'Wrong place' },
      { from: '2', note: 'x'.repeat(2001) },
      { from: '0', note: 'Nowhere' },
    ]) {
      response = await client.post(`/lists/${list.id}/movies/${b!.id}/note`, fields);
      expect(response.statusCode).toBe(400);
    }
    expect(await notes()).toEqual([
      ['Alpha', null],
      ['Bravo', 'Lights off.'],
    ]);
    // Emptied: no note.
    response = await client.submit(`/lists/${list.id}`, `/lists/${list.id}/movies/${b!.id}/note`, {
      from: '2',
      note: '  ',
    });
    expect(textOf((await client.follow(response)).body)).toContain('Note on Bravo cleared.');
    expect(textOf(client.page)).not.toContain('Lights off.');
    expect(await notes()).toEqual([
      ['Alpha', null],
      ['Bravo', null],
    ]);
  });

  it('renames, changes and deletes a list; a refused edit changes nothing', async () => {
    const movie = await createMovie(ctx);
    const list = await newList(alice, { name: 'Sunday films' });
    await ctx.library.write(alice.user.id, (lib) => lib.putListMovies(list.id, [{ movieId: movie.id }]));
    const client = await signedInClient(ctx.app, 'alice');
    await client.get(`/lists/${list.id}`);
    let response = await client.post(`/lists/${list.id}/edit`, { name: '', visibility: 'public' });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('The name of a list may not be empty.');
    expect(response.body).toContain('<h1>Sunday films</h1>');
    expect((await listOf(alice, list.id)).visibility).toBe('private');

    response = await client.post(`/lists/${list.id}/edit`, {
      name: 'Sunday evenings',
      description: 'With the lights off',
      ranked: 'on',
      visibility: 'public',
    });
    expect(response.headers.location).toBe(`/lists/${list.id}`);
    const page = textOf((await client.follow(response)).body);
    expect(page).toContain('List Sunday evenings saved.');
    expect(page).toContain('With the lights off');
    expect(await listOf(alice, list.id)).toMatchObject({
      name: 'Sunday evenings',
      description: 'With the lights off',
      ranked: true,
      visibility: 'public',
    });
    // Unticked and emptied: not ranked, no description.
    await client.post(`/lists/${list.id}/edit`, {
      name: 'Sunday evenings',
      description: '',
      visibility: 'users',
    });
    expect(await listOf(alice, list.id)).toMatchObject({
      description: null,
      ranked: false,
      visibility: 'users',
    });

    expect(textOf((await client.get(`/lists/${list.id}`)).body)).toContain(
      'Delete Sunday evenings (1 movie)? Yes, delete the list',
    );
    response = await client.post(`/lists/${list.id}/delete`);
    expect(response.headers.location).toBe('/lists');
    expect(textOf((await client.follow(response)).body)).toContain('List Sunday evenings deleted.');
    expect(await listsOf(alice)).toEqual([]);
    expect((await client.get(`/lists/${list.id}`)).statusCode).toBe(404);
  });

  it("another user's list is a 404 page, and none of its forms changes it", async () => {
    const movie = await createMovie(ctx, { title: 'Heat' });
    const other = await createMovie(ctx, { title: 'Alien' });
    for (const visibility of ['private', 'users', 'public'] as const) {
      const list = await newList(alice, { name: `Alice ${visibility}`, visibility });
      await ctx.library.write(alice.user.id, (lib) => lib.putListMovies(list.id, [{ movieId: movie.id }]));
      const client = await signedInClient(ctx.app, 'bob');
      const page = await client.get(`/lists/${list.id}`);
      expect(page.statusCode).toBe(404);
      expect(textOf(page.body)).not.toContain(`Alice ${visibility}`);
      await client.get(hrefOf(movie));
      // Not on Bob's movie page either.
      expect(client.page).not.toContain(`Alice ${visibility}`);
      const forms: [string, Record<string, string>][] = [
        [`/movies/${other.id}/lists`, { listId: String(list.id) }],
        [`/lists/${list.id}/edit`, { name: 'Bob was here', visibility: 'public' }],
        [`/lists/${list.id}/delete`, {}],
        [`/lists/${list.id}/movies/${movie.id}/move`, { from: '1', direction: 'down' }],
        [`/lists/${list.id}/movies/${movie.id}/note`, { from: '1', note: 'Bob was here' }],
        [`/lists/${list.id}/movies/${movie.id}/remove`, {}],
      ];
      for (const [action, fields] of forms) {
        expect((await client.post(action, fields)).statusCode).toBe(404);
      }
      expect(await listOf(alice, list.id)).toMatchObject({ name: `Alice ${visibility}`, movieCount: 1 });
      expect(await titlesOn(alice, list.id)).toEqual(['Heat']);
    }
    expect(await listsOf(bob)).toEqual([]);
  });

  it('shows the public lists on the public profile, each on a read-only page; nothing else', async () => {
    const movie = await createMovie(ctx, { title: 'Heat' });
    const shown = await newList(alice, { name: 'Shown to all', visibility: 'public', ranked: true });
    const members = await newList(alice, { name: 'Members only', visibility: 'users' });
    await newList(alice, { name: 'Secret', visibility: 'private' });
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.putListMovies(shown.id, [{ movieId: movie.id, note: 'Start here' }]);
      await lib.putListMovies(members.id, [{ movieId: movie.id }]);
    });
    const stranger = new WebClient(ctx.app);
    // The profile off: no profile, no list.
    expect((await stranger.get('/u/alice')).statusCode).toBe(404);
    expect((await stranger.get(`/u/alice/lists/${shown.id}`)).statusCode).toBe(404);
    await ctx.users.update('alice', { publicProfile: true });
    const profile = textOf((await stranger.get('/u/alice')).body);
    expect(profile).toContain('Lists Shown to all 1 movie');
    expect(profile).not.toContain('Members only');
    expect(profile).not.toContain('Secret');
    const page = await stranger.get(`/u/alice/lists/${shown.id}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Shown to all A list by alice · 1 movie · Ranked');
    expect(textOf(page.body)).toContain('1. Heat');
    expect(textOf(page.body)).toContain('Start here');
    // A stranger gets the titles without links; no forms.
    expect(page.body).not.toContain(hrefOf(movie));
    expect(page.body).not.toContain('method="post" action="/lists');
    expect((await stranger.get(`/u/alice/lists/${members.id}`)).statusCode).toBe(404);
    // Signed in, Bob reads it with links.
    const bobs = await signedInClient(ctx.app, 'bob');
    expect((await bobs.get(`/u/alice/lists/${shown.id}`)).body).toContain(hrefOf(movie));
    // Privacy private hides every list, as the profile.
    await ctx.users.update('alice', { privacy: 'private' });
    expect((await stranger.get(`/u/alice/lists/${shown.id}`)).statusCode).toBe(404);
  });
});
