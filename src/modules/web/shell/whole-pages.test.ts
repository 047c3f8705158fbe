import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf } from '../../../../test/web-client.js';

// Pages kept whole (Renderer.cached, page-parts.ts): a kept page is always the page that would be made.
let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  await createUser(ctx, { name: 'bob' });
});
afterEach(() => ctx.close());

const PAGES = ['/', '/history', '/movies', '/movies?sort=title', '/statistics'];

describe('pages kept whole', () => {
  it('show a change at once, each user their own, with a fresh CSRF token each time', async () => {
    const first = await createMovie(ctx, { title: 'First Light' });
    const second = await createMovie(ctx, { title: 'Second Wind' });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([{ movieId: first.id, watchedAt: '2024-01-01', plays: 1, comment: null }]),
    );
    const aliceClient = await signedInClient(ctx.app, 'alice');
    const bobClient = await signedInClient(ctx.app, 'bob');
    for (const path of PAGES) {
      // Twice: made, then kept.
      for (let i = 0; i < 2; i++) {
        const page = await aliceClient.get(path);
        expect(page.statusCode, path).toBe(200);
        if (path === '/statistics') {
          // Alice's one play counted; Bob has none.
          expect(textOf(page.body), path).toMatch(/\b1\s+play\b/);
          expect(textOf(page.body), path).not.toContain('Nothing to count yet');
        } else {
          expect(textOf(page.body), path).toContain('First Light');
        }
        expect(textOf(page.body), path).toContain('alice');
        const bobs = await bobClient.get(path);
        expect(textOf(bobs.body), path).not.toContain('First Light');
        if (path === '/statistics') expect(textOf(bobs.body), path).toContain('Nothing to count yet');
        expect(textOf(bobs.body), path).toContain('bob');
      }
    }
    // The token is made per request (the page's bytes are kept, not its token), and it works.
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      await aliceClient.get('/history');
      tokens.add(aliceClient.csrfToken());
    }
    expect(tokens.size).toBe(3);
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays([{ movieId: second.id, watchedAt: '2024-02-01', plays: 2, comment: null }]),
    );
    for (const path of ['/', '/history', '/movies', '/movies?sort=title']) {
      expect(textOf((await aliceClient.get(path)).body), path).toContain('Second Wind');
    }
    const statistics = textOf((await aliceClient.get('/statistics')).body);
    expect(statistics).toContain('Second Wind');
    expect(textOf((await bobClient.get('/movies')).body)).not.toContain('Second Wind');
  });

  it('give each of many concurrent answers over HTTP the whole page with its own token', async () => {
    // The kept page is joined with each answer's token in buffers used again (answer-buffers.ts).
    const movie = await createMovie(ctx, { title: 'Concurrent Feature' });
    await ctx.library.write(alice.user.id, (lib) =>
      lib.addPlays(
        Array.from({ length: 30 }, (_, i) => ({
          movieId: movie.id,
          watchedAt: `2024-01-${String(i + 1).padStart(2, '0')}`,
          plays: 1,
          comment: null,
        })),
      ),
    );
    const client = await signedInClient(ctx.app, 'alice');
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const tokenPattern = /name="_csrf" value="([^"]+)"/g;
    const seen = new Set<string>();
    let page: string | undefined;
    for (let round = 0; round < 3; round++) {
      const bodies = await Promise.all(
        Array.from({ length: 24 }, async () => {
          const response = await fetch(`${base}/history`, { headers: { cookie } });
          expect(response.status).toBe(200);
          return response.text();
        }),
      );
      for (const body of bodies) {
        const tokens = new Set([...body.matchAll(tokenPattern)].map((match) => match[1]!));
        // One token, in the layout's form and in every entry's (24 entries on a page, and the sign-out).
        expect(tokens.size).toBe(1);
        expect([...body.matchAll(tokenPattern)].length).toBeGreaterThan(20);
        const [token] = tokens;
        expect(seen.has(token!)).toBe(false);
        seen.add(token!);
        const blank = body.replaceAll(token!, 'TOKEN');
        page ??= blank;
        expect(blank).toBe(page);
      }
    }
    expect(page).toContain('Concurrent Feature');
    expect(page!.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('name the person a filter asks for as that person is now', async () => {
    const person = await ctx.db
      .insertInto('people')
      .values({
        tmdb_id: 4242,
        name: 'Agnes Varda',
        profile_path: null,
        known_for_department: 'Directing',
        updated_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const client = await signedInClient(ctx.app, 'alice');
    const path = `/movies?person=${person.id}`;
    for (let i = 0; i < 2; i++) expect(textOf((await client.get(path)).body)).toContain('Agnes Varda');
    // A refresh from TMDB spells the name anew: the next view shows it.
    await ctx.db.updateTable('people').set({ name: 'Agnès Varda' }).where('id', '=', person.id).execute();
    const page = textOf((await client.get(path)).body);
    expect(page).toContain('Agnès Varda');
    expect(page).not.toContain('Agnes Varda');
  });

  it("follow the user's own settings: a new rating scale shows on the kept page at once", async () => {
    const movie = await createMovie(ctx, { title: 'Rated Film' });
    await ctx.library.write(alice.user.id, async (lib) => {
      await lib.addPlays([{ movieId: movie.id, watchedAt: '2024-01-01', plays: 1, comment: null }]);
      await lib.setRatings([{ movieId: movie.id, rating: 8 }]);
    });
    const client = await signedInClient(ctx.app, 'alice');
    const before = (await client.get('/movies')).body;
    await ctx.db
      .updateTable('users')
      .set({ rating_scale: before.includes('4/5') ? 'points' : 'stars' })
      .where('id', '=', alice.user.id)
      .execute();
    const after = (await client.get('/movies')).body;
    expect(after).not.toBe(before);
  });
});
