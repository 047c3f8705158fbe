import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

// The movies grid and the person page over HTTP, on both engines.
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  bob = await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

describe('the movies grid', () => {
  it('requires a signed-in user', async () => {
    for (const path of ['/movies', '/people/1']) {
      const response = await new WebClient(ctx.app).get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it("shows the user's watched movies only, filtered and sorted", async () => {
    const old = await createMovie(ctx, {
      title: 'Old One',
      release_date: '1975-05-01',
      original_language: 'fr',
    });
    const recent = await createMovie(ctx, { title: 'Recent One', release_date: '2015-05-01', runtime: 200 });
    const bobs = await createMovie(ctx, { title: 'Only Bob' });
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.addPlays([
        { movieId: old.id, watchedAt: '2024-01-01', plays: 3, comment: null },
        { movieId: recent.id, watchedAt: '2024-02-01', plays: 1, comment: null },
      ]);
      await lib.setRatings([{ movieId: recent.id, rating: 9 }]);
    });
    await ctx.library.write(bob.user.id, (lib) =>
      lib.addPlays([{ movieId: bobs.id, watchedAt: '2024-01-01', plays: 1, comment: null }]),
    );
    const client = await signedInClient(ctx.app, 'alice');
    const all = textOf((await client.get('/movies')).body);
    expect(all).toContain('Old One');
    expect(all).toContain('Recent One');
    expect(all).not.toContain('Only Bob');
    expect(all.indexOf('Recent One')).toBeLessThan(all.indexOf('Old One')); // last watched first
    const seventies = textOf((await client.get('/movies?decade=1970')).body);
    expect(seventies).toContain('Old One');
    expect(seventies).not.toContain('Recent One');
    const french = textOf((await client.get('/movies?language=fr')).body);
    expect(french).toContain('Old One');
    expect(french).not.toContain('Recent One');
    const rated = textOf((await client.get('/movies?rating=8')).body);
    expect(rated).toContain('Recent One');
    expect(rated).not.toContain('Old One');
    const byPlays = textOf((await client.get('/movies?sort=plays&order=desc')).body);
    expect(byPlays.indexOf('Old One')).toBeLessThan(byPlays.indexOf('Recent One'));
    expect(byPlays).toContain('3 plays');
    const byRuntime = textOf((await client.get('/movies?sort=runtime&order=desc')).body);
    expect(byRuntime.indexOf('Recent One')).toBeLessThan(byRuntime.indexOf('Old One'));
    expect(textOf((await client.get('/movies?decade=1880')).body)).toContain(
      'No movie matches these filters',
    );
    expect(textOf((await (await signedInClient(ctx.app, 'bob')).get('/movies?rating=1')).body)).toContain(
      'No movie matches these filters',
    );
  });

  it.each([
    '/movies?decade=1975',
    '/movies?rating=11',
    '/movies?sort=nonsense',
    '/movies?genre=abc',
    '/movies?q=a%00',
  ])('answers the bad query %s with 400', async (path) => {
    const client = await signedInClient(ctx.app, 'alice');
    expect((await client.get(path)).statusCode).toBe(400);
  });

  it('answers an unknown person with 404', async () => {
    const client = await signedInClient(ctx.app, 'alice');
    expect((await client.get('/people/99999')).statusCode).toBe(404);
    expect((await client.get('/people/x')).statusCode).toBe(400);
  });
});
