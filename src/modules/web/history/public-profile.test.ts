import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

// The public profile /u/<name>: off by default; with it on and privacy "users", a read-only page for
// anyone with the link. Both engines.
let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice', privacy: 'users' });
  await createUser(ctx, { name: 'bob' });
  const movie = await createMovie(ctx, { title: 'Heat' });
  // Logged with a rating: the entry's own (the profile shows it) and the movie's.
  await ctx.library.write(alice.user.id, (lib) =>
    lib.logEntries([
      { movieId: movie.id, watchedAt: '2024-03-01', plays: 1, comment: 'Diner scene.', rating: 8 },
    ]),
  );
});
afterEach(() => ctx.close());

const stranger = () => new WebClient(ctx.app);

describe('the public profile', () => {
  it('is off by default: 404, the same as for nobody at all', async () => {
    const off = await stranger().get('/u/alice');
    const nobody = await stranger().get('/u/nobody-here');
    expect(off.statusCode).toBe(404);
    expect(nobody.statusCode).toBe(404);
    expect(textOf(off.body)).not.toContain('Heat');
    expect(textOf(off.body).replaceAll('alice', 'X')).toBe(
      textOf(nobody.body).replaceAll('nobody-here', 'X'),
    );
  });

  it('turned on, shows the diary read-only to anyone: entries, ratings, comments, totals; no forms', async () => {
    await ctx.users.update('alice', { publicProfile: true });
    const heat = await ctx.db
      .selectFrom('movies')
      .select('id')
      .where('title', '=', 'Heat')
      .executeTakeFirstOrThrow();
    await ctx.library.write(alice.user.id, (lib) =>
      lib.logEntries([
        { movieId: heat.id, watchedAt: '2024-05-02', plays: 1, comment: null, tags: ['Cinema night'] },
      ]),
    );
    const response = await stranger().get('/u/alice');
    expect(response.statusCode).toBe(200);
    const page = textOf(response.body);
    expect(page).toContain("alice's movie diary");
    expect(page).toContain('Heat');
    expect(page).toContain('1 Mar 2024');
    expect(page).toContain('Diner scene.');
    expect(response.body).toContain('aria-label="Rated 4 stars"');
    // The second viewing: its rewatch mark and its tag, as text (a tag's link filters one's own diary).
    expect(page).toContain('Rewatch');
    expect(page).toContain('Cinema night');
    expect(response.body).not.toContain('/history?tag=');
    expect(response.body).not.toContain('<form method="post"');
    expect(response.body).not.toContain('/movies/'); // movie pages are for signed-in users
    expect(response.body).not.toContain(alice.user.email);
    // The years with a play lead to their year in review, which the stranger may open too.
    expect(response.body).toContain('href="/users/alice/year/2024"');
    const review = await stranger().get('/users/alice/year/2024');
    expect(review.statusCode).toBe(200);
    expect(textOf(review.body)).toContain('The first movie Heat');
    // A signed-in other user sees the same diary, with links to the movie pages.
    const bobs = await (await signedInClient(ctx.app, 'bob')).get('/u/alice');
    expect(bobs.statusCode).toBe(200);
    expect(bobs.body).toContain('href="/movies/');
    expect(textOf(bobs.body)).toContain('Diner scene.');
  });

  it('counts as the dashboard and the statistics do: this year, and all time with the undated plays', async () => {
    const heat = await createMovie(ctx, { title: 'Heat Again', runtime: 170 });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([
        { movieId: heat.id, watchedAt: '2023-12-31', plays: 2, comment: null },
        { movieId: heat.id, watchedAt: null, plays: 1, comment: null },
      ]),
    );
    await ctx.users.update('alice', { publicProfile: true });
    const page = textOf((await stranger().get('/u/alice')).body);
    // The clock's year is 2024: Heat's play; then 2 movies, 4 plays and Heat Again's 510 minutes.
    const minutes =
      (
        await ctx.db
          .selectFrom('movies')
          .select('runtime')
          .where('title', '=', 'Heat')
          .executeTakeFirstOrThrow()
      ).runtime ?? 0;
    expect(page).toContain('1 play in 2024');
    expect(page).toContain('2 movies in all');
    expect(page).toContain('4 plays in all');
    expect(page).toContain(`${Math.round((minutes + 3 * 170) / 60)} hours in all`);
    const stats = await ctx.app.inject({ url: '/api/users/alice/statistics', headers: alice.auth });
    expect(stats.statusCode).toBe(200);
    expect(stats.json().totals).toMatchObject({ plays: 4, movies: 2, minutesWatched: minutes + 3 * 170 });
  });

  it('is gone while the library is private, even with the profile on', async () => {
    await ctx.users.update('alice', { publicProfile: true, privacy: 'private' });
    expect((await stranger().get('/u/alice')).statusCode).toBe(404);
    await ctx.users.update('alice', { privacy: 'users' });
    expect((await stranger().get('/u/alice')).statusCode).toBe(200);
    await ctx.users.update('alice', { publicProfile: false });
    expect((await stranger().get('/u/alice')).statusCode).toBe(404);
  });

  it('answers a bad page with 400', async () => {
    await ctx.users.update('alice', { publicProfile: true });
    expect((await stranger().get('/u/alice?page=0')).statusCode).toBe(400);
    expect((await stranger().get('/u/a%00b')).statusCode).toBe(400);
  });
});
