import { beforeEach, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import {
  browserSuite,
  clickAndLoad,
  expectAccessible,
  expectImagesLoaded,
  expectNoOverflow,
  imagesSettled,
  openContext,
  seedUser,
  signIn,
  textOf,
  trackerWorld,
} from './browser.js';

const LEDGER = FAKE_TMDB_MOVIES[0]!;

browserSuite('browser: the tracker (dashboard, search, log a play, movie page)', () => {
  const world = trackerWorld();
  beforeEach(async () => {
    await seedUser(world.server, 'ann');
  });

  it('searches, logs a play with date, rating and comment, shows it everywhere, edits its date, deletes it', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'ann');

    // A new user's dashboard: what to do next.
    await page.goto('/');
    await page.getByRole('heading', { name: 'Your diary starts here' }).waitFor();
    await expectAccessible(page);

    // Search as you type (htmx): the results replace themselves and the address follows.
    await clickAndLoad(page, page.getByRole('link', { name: 'Log a play' }).first());
    // The cursor is in the search field, the page's only one. Chromium applies `autofocus` at a
    // rendering update after the load, later on a busy machine: asked until it has (CI once saw '').
    await expect.poll(() => page.evaluate('document.activeElement?.id'), { timeout: 5000 }).toBe('search-q');
    expect(await page.getByRole('search').count()).toBe(1);
    await page.keyboard.type('Lighthouse', { delay: 20 });
    expect(await page.getByLabel('Title or name', { exact: true }).inputValue()).toBe('Lighthouse');
    await page.getByRole('link', { name: LEDGER.title }).first().waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('Lighthouse');
    expect(await expectImagesLoaded(page)).toBeGreaterThan(0);
    await expectAccessible(page);

    await clickAndLoad(page, page.getByRole('link', { name: `Log a play of ${LEDGER.title}` }));
    await page.getByLabel('Date', { exact: true }).fill('2026-01-02');
    await page.getByRole('radio', { name: '4 stars', exact: true }).check();
    await page.getByLabel('Comment', { exact: true }).fill('Salt, fog and a ledger.');
    await expectAccessible(page);
    await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));

    // The movie page: the play, the rating, the comment, the poster and the cast.
    await page.getByRole('heading', { level: 1, name: LEDGER.title }).waitFor();
    expect(await textOf(page.getByRole('status'))).toContain(`Logged ${LEDGER.title} on 2 Jan 2026`);
    const yours = page.getByRole('region', { name: 'Your plays' });
    expect(await textOf(yours)).toContain('2 Jan 2026');
    expect(await textOf(yours)).toContain('Salt, fog and a ledger.');
    expect(await textOf(page.getByRole('region', { name: 'Your rating' }))).toContain('4 stars');
    expect(await expectImagesLoaded(page)).toBeGreaterThan(1);
    await expectAccessible(page);

    // The dashboard shows it, with this year's figures.
    await page.goto('/');
    expect(await textOf(page.getByRole('region', { name: 'Latest plays' }))).toContain(LEDGER.title);
    await expectAccessible(page);

    // Edit its date on the movie page.
    await clickAndLoad(page, page.getByRole('link', { name: LEDGER.title }).first());
    await page.getByText('Edit the entry of 2 Jan 2026').click();
    await page.getByLabel('Date', { exact: true }).first().fill('2026-01-03');
    await clickAndLoad(page, page.getByRole('button', { name: 'Save entry' }));
    expect(await textOf(page.getByRole('region', { name: 'Your plays' }))).toContain('3 Jan 2026');
    expect(await textOf(page.getByRole('region', { name: 'Your plays' }))).not.toContain('2 Jan 2026');

    // Delete it: asked first.
    await page.getByRole('region', { name: 'Your plays' }).getByText('Delete', { exact: true }).click();
    await clickAndLoad(page, page.getByRole('button', { name: 'Yes, delete the entry' }));
    expect(await textOf(page.getByRole('region', { name: 'Your plays' }))).toContain(
      'You have not logged this movie yet.',
    );

    expect(problems).toEqual([]);
    await context.close();
  });

  it('adds a movie to the watchlist from search; "Watched it" moves it to history; history deletes with a confirmation', async () => {
    const KIEL = FAKE_TMDB_MOVIES[1]!;
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'ann');
    // Empty lists say what to do next.
    for (const [path, heading] of [
      ['/history', 'No plays yet'],
      ['/watchlist', 'Your watchlist is empty'],
      ['/ratings', 'No ratings yet'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).waitFor();
      await expectAccessible(page);
    }

    await page.goto('/search?q=Kiel');
    await clickAndLoad(page, page.getByRole('button', { name: `Add to watchlist (${KIEL.title})` }));
    expect(await textOf(page.getByRole('status'))).toContain('Added to your watchlist');
    await page.goto('/');
    expect(await textOf(page.getByRole('region', { name: 'Up next on your watchlist' }))).toContain(
      KIEL.title,
    );

    await clickAndLoad(page, page.getByRole('link', { name: 'Watchlist', exact: true }));
    expect(await expectImagesLoaded(page)).toBe(1);
    await expectAccessible(page);
    // "Watched it" asks for the day: today unless changed.
    await page.locator('summary', { hasText: 'Watched it' }).click();
    await expectAccessible(page);
    await clickAndLoad(page, page.getByRole('button', { name: `Log it (${KIEL.title})` }));
    expect(await textOf(page.getByRole('status'))).toMatch(
      new RegExp(`Logged ${KIEL.title} on .+ and took it off your watchlist`),
    );
    await page.getByRole('heading', { name: 'Your watchlist is empty' }).waitFor();

    await clickAndLoad(page, page.getByRole('link', { name: 'History', exact: true }));
    const entry = page.getByRole('listitem').filter({ hasText: KIEL.title });
    expect(await textOf(entry)).toContain(KIEL.title);
    await expectAccessible(page);
    await entry.getByText('Delete', { exact: true }).click();
    await clickAndLoad(page, entry.getByRole('button', { name: 'Yes, delete the entry' }));
    expect(new URL(page.url()).pathname).toBe('/history');
    await page.getByRole('heading', { name: 'No plays yet' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a poster that fails to load as the stand-in of a movie without one, not a broken image', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server);
    await signIn(page, 'ann');
    await page.goto(`/log?tmdbId=${LEDGER.id}`);
    await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));
    const moviePage = new URL(page.url()).pathname;
    // TMDB's image server answers 404 for this path (test/fake-tmdb.ts).
    await world.server.db.updateTable('movies').set({ poster_path: '/missing-poster.jpg' }).execute();
    for (const path of [moviePage, '/history', '/movies']) {
      await page.goto(path);
      await imagesSettled(page);
      // No broken image is left in the page, and the movie's initial stands in for each.
      expect(await expectImagesLoaded(page)).toBeGreaterThanOrEqual(0);
      const standIns = page.locator('main .poster-fallback, main .thumb.fallback');
      expect(await standIns.count()).toBeGreaterThan(0);
      expect(await textOf(standIns.first())).toBe(LEDGER.title[0]);
      await expectAccessible(page);
    }
    // Only the 404s of the posters themselves were reported (Chromium logs each failed image).
    expect(problems.filter((problem) => !problem.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  it('logs a play without JavaScript', async () => {
    const { context, page } = await openContext(world.browser, world.server, { javaScriptEnabled: false });
    await signIn(page, 'ann');
    await page.getByLabel('Search movies').fill('Lighthouse');
    await clickAndLoad(page, page.getByRole('button', { name: 'Search', exact: true }));
    await clickAndLoad(page, page.getByRole('link', { name: `Log a play of ${LEDGER.title}` }));
    await page.getByLabel('Unknown date').check();
    await page.getByLabel('Comment', { exact: true }).fill('Seen long ago.');
    await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));
    const yours = await textOf(page.getByRole('region', { name: 'Your plays' }));
    expect(yours).toContain('Unknown date');
    expect(yours).toContain('Seen long ago.');
    await context.close();
  });

  it('fits a 375 px phone in the dark theme: nothing wider than the screen, axe clean', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
    });
    await signIn(page, 'ann');
    await page.goto(`/log?tmdbId=${LEDGER.id}`);
    // A comment of one 600-character word and a long address: they wrap, wherever they are shown.
    const longWord = 'a'.repeat(600);
    await page
      .getByLabel('Comment', { exact: true })
      .fill(`${longWord} https://example.test/${'path/'.repeat(80)}`);
    await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));
    const moviePage = new URL(page.url()).pathname;
    for (const path of [
      '/',
      '/search?q=the',
      moviePage,
      '/statistics',
      '/history',
      '/watchlist',
      '/ratings',
    ]) {
      await page.goto(path);
      await expectNoOverflow(page);
      await expectAccessible(page);
    }
    // The director's page, from the movie page: the movie is among those of theirs the user watched.
    await page.goto(moviePage);
    await clickAndLoad(page, page.getByRole('link', { name: 'Maren Holt' }).first());
    expect(await textOf(page.getByRole('region', { name: 'Movies of theirs you watched' }))).toContain(
      LEDGER.title,
    );
    await expectNoOverflow(page);
    await expectAccessible(page);
    expect(await expectImagesLoaded(page)).toBeGreaterThan(0);
    // The long comment folds to 4 lines; its button shows it whole, and folds it again.
    await page.goto('/history');
    const comment = page.locator('.entry .comment').first();
    const heightOf = async () => (await comment.boundingBox())!.height;
    const folded = await heightOf();
    const lineHeight = Number.parseFloat(
      (await page.evaluate(
        'getComputedStyle(document.querySelector(".entry .comment")).lineHeight',
      )) as string,
    );
    expect(folded).toBeLessThanOrEqual(4 * lineHeight + 1);
    await page.getByText('Show the whole comment').click();
    expect(await heightOf()).toBeGreaterThan(folded * 3);
    await expectNoOverflow(page);
    await expectAccessible(page);
    await page.getByText('Show less').click();
    expect(await heightOf()).toBe(folded);
    // Every action of the movie page is on the screen, none hidden.
    await page.goto(moviePage);
    for (const name of ['Log play', 'Save rating', 'Add to watchlist']) {
      await expect(page.getByRole('button', { name, exact: true }).isVisible()).resolves.toBe(true);
    }
    expect(problems).toEqual([]);
    await context.close();

    // The public profile, turned on, for a stranger with no session: the diary, axe clean, no overflow.
    await world.server.users.update('ann', { publicProfile: true, privacy: 'users' });
    const stranger = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
    });
    await stranger.page.goto('/u/ann');
    expect(await textOf(stranger.page.getByRole('region', { name: 'Diary' }))).toContain(LEDGER.title);
    await expectNoOverflow(stranger.page);
    await expectAccessible(stranger.page);
    expect(await expectImagesLoaded(stranger.page)).toBeGreaterThan(0);
    expect(stranger.problems).toEqual([]);
    await stranger.context.close();
  });
});
