import { beforeEach, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import {
  addMovies,
  browserSuite,
  clickAndLoad,
  expectAccessible,
  expectNoOverflow,
  imagesSettled,
  openContext,
  seedUser,
  signIn,
  textOf,
  trackerWorld,
} from './browser.js';

const [LEDGER, KIEL] = [FAKE_TMDB_MOVIES[0]!, FAKE_TMDB_MOVIES[1]!];
const BROKEN = 'Broken Reel';

browserSuite('browser: hearts on cards, search finds people, broken posters (issue 30)', () => {
  const world = trackerWorld();
  let ids: number[] = [];
  let broken = 0;
  beforeEach(async () => {
    const ann = await seedUser(world.server, 'ann');
    const { value: token } = await world.server.tokens.create(ann.id, 'seed', 'never');
    ids = await addMovies(
      world.server,
      token,
      [LEDGER, KIEL].map((movie) => movie.id),
    );
    // A movie whose poster the image server does not have: a 404.
    const row = await world.server.db
      .insertInto('movies')
      .values({
        title: BROKEN,
        original_title: BROKEN,
        release_date: '1999-01-01',
        original_language: 'en',
        poster_path: '/missing-poster.jpg',
        tmdb_id: 799_999,
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    broken = row.id;
    const logged = await world.server.app.inject({
      method: 'POST',
      url: '/api/users/ann/history/movies',
      headers: { authorization: `Bearer ${token}` },
      payload: [...ids, broken].map((serviceId) => ({ serviceId, watchedAt: '2024-01-02' })),
    });
    expect(logged.statusCode).toBeLessThan(300);
  });

  /** The console's 404 of the missing poster: expected, the page shows the tile instead. */
  const unexpected = (problems: string[]) => problems.filter((p) => !p.includes('missing-poster'));

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'dark'],
  ] as const) {
    it(`likes a movie from its card by keyboard, finds a director by name, shows a tile for a broken poster (${width} px, ${colorScheme})`, async () => {
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width, height: 900 },
        colorScheme,
      });
      await signIn(page, 'ann');
      const check = async () => {
        await expectAccessible(page);
        await expectNoOverflow(page);
      };

      // The movies grid: a heart on every card, shown without hovering; Tab reaches it after the title.
      await page.goto('/movies?sort=title');
      await page.getByRole('heading', { level: 1, name: 'Movies' }).waitFor();
      const heart = page.getByRole('button', { name: `Like ${KIEL.title}` });
      expect(await heart.isVisible()).toBe(true);
      expect(await heart.getAttribute('aria-pressed')).toBe('false');
      const box = (await heart.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(24);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await imagesSettled(page);
      await check();
      await page.getByRole('link', { name: KIEL.title }).focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(
        `Like ${KIEL.title}`,
      );
      await Promise.all([page.waitForURL('**/movies?sort=title'), page.keyboard.press('Enter')]);
      await page.waitForLoadState();
      expect(await textOf(page.getByRole('status'))).toContain(`You like ${KIEL.title}.`);
      expect(
        await page.getByRole('button', { name: `Like ${KIEL.title}` }).getAttribute('aria-pressed'),
      ).toBe('true');
      expect(
        await page.getByRole('button', { name: `Like ${LEDGER.title}` }).getAttribute('aria-pressed'),
      ).toBe('false');

      // The broken poster: the initial-letter tile, no broken image left in the page.
      const card = page.locator('.poster-card').filter({ hasText: BROKEN });
      await card.locator('.poster-fallback:not(.poster-behind)').waitFor();
      expect(await card.locator('img').count()).toBe(0);
      expect(await textOf(card.locator('.poster-initial'))).toBe('B');

      // Search by a director's name: their page; results name the director and the original title.
      await page.goto('/search?q=Friedrich');
      await page.getByRole('heading', { name: 'People', exact: true }).waitFor();
      await imagesSettled(page);
      await check();
      await clickAndLoad(page, page.getByRole('link', { name: 'Friedrich Lange' }));
      await page.getByRole('heading', { level: 1, name: 'Friedrich Lange' }).waitFor();
      expect(await textOf(page.getByRole('main'))).toContain(KIEL.title);
      await page.goto('/search?q=Kiel');
      const result = page.getByRole('listitem').filter({ hasText: KIEL.title });
      expect(await textOf(result)).toContain('Directed by Friedrich Lange');
      expect(await textOf(result)).toContain(`Original title: ${KIEL.original_title}`);
      await imagesSettled(page);
      await check();

      expect(unexpected(problems)).toEqual([]);
      await context.close();
    });
  }

  it('without JavaScript a broken poster shows its tile, not the broken-image icon', async () => {
    const { context, page } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 900 },
      javaScriptEnabled: false,
    });
    await signIn(page, 'ann');
    await page.goto('/movies?sort=title');
    const poster = page.locator('.poster-card').filter({ hasText: BROKEN }).locator('.poster');
    await imagesSettled(page);
    // The image failed and has no alt text: its ::after (drawn only for an image without a picture)
    // covers it with a tile and the letter.
    expect(
      await poster.locator('img').evaluate((image) => (image as { naturalWidth: number }).naturalWidth),
    ).toBe(0);
    expect(await poster.locator('img').getAttribute('alt')).toBe('');
    const letter = await page.evaluate(
      "getComputedStyle(document.querySelector('.poster-card .poster img[src*=missing-poster]'), '::after').content",
    );
    expect(letter).toBe('"B"');
    await context.close();
  });
});
