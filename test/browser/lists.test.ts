import { beforeEach, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import {
  addMovies,
  browserSuite,
  clickAndLoad,
  expectAccessible,
  expectNoOverflow,
  openContext,
  seedUser,
  signIn,
  textOf,
  trackerWorld,
} from './browser.js';

const [FIRST, SECOND] = [FAKE_TMDB_MOVIES[0]!, FAKE_TMDB_MOVIES[1]!];

browserSuite('browser: likes and lists (issue 30)', () => {
  const world = trackerWorld();
  let ids: number[] = [];
  beforeEach(async () => {
    const ann = await seedUser(world.server, 'ann');
    const { value: token } = await world.server.tokens.create(ann.id, 'seed', 'never');
    ids = await addMovies(
      world.server,
      token,
      [FIRST, SECOND].map((movie) => movie.id),
    );
  });

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'dark'],
  ] as const) {
    it(`makes a ranked list, adds two movies from their pages, moves one up, likes one and finds it on /likes (${width} px, ${colorScheme})`, async () => {
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width, height: 900 },
        colorScheme,
      });
      await signIn(page, 'ann');
      const check = async () => {
        await expectAccessible(page);
        await expectNoOverflow(page);
      };

      // Lists in the main navigation, after Ratings; no list yet: what to do next.
      await clickAndLoad(
        page,
        page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lists' }),
      );
      await page.getByRole('heading', { name: 'No lists yet' }).waitFor();
      await check();
      await page.getByLabel('Name', { exact: true }).fill('Fog and light');
      await page.getByLabel('Description (optional)').fill('Ranked, best first.');
      await page.getByLabel("Ranked: show each movie's number").check();
      await page.getByLabel('Users: anyone signed in here').check();
      await clickAndLoad(page, page.getByRole('button', { name: 'Create list' }));
      await page.getByRole('heading', { level: 1, name: 'Fog and light' }).waitFor();
      expect(await textOf(page.getByRole('status'))).toContain('List Fog and light created.');
      await page.getByRole('heading', { name: 'Nothing on this list yet' }).waitFor();
      const listUrl = new URL(page.url()).pathname;
      await check();

      // Add both from their movie pages.
      for (const [i, movie] of [FIRST, SECOND].entries()) {
        await page.goto(`/movies/${ids[i]}`);
        await page.getByRole('heading', { level: 1, name: movie.title }).waitFor();
        await page.getByLabel('Add to a list').selectOption({ label: 'Fog and light' });
        if (i === 0) await check();
        await clickAndLoad(page, page.getByRole('button', { name: 'Add', exact: true }));
        expect(await textOf(page.getByRole('status'))).toContain(`Added ${movie.title} to Fog and light.`);
      }

      // The list in order, numbered; the second moves up.
      await page.goto(listUrl);
      const items = page.locator('ol.list-movies > li');
      expect(await items.count()).toBe(2);
      expect(await textOf(items.nth(0))).toContain(FIRST.title);
      await check();
      await clickAndLoad(page, page.getByRole('button', { name: `Move up (${SECOND.title})` }));
      expect(await textOf(page.getByRole('status'))).toContain(`Moved ${SECOND.title} up to number 1.`);
      expect(await textOf(items.nth(0))).toContain(SECOND.title);
      expect(await textOf(items.nth(1))).toContain(FIRST.title);
      expect(await textOf(page.locator('ol.list-movies .rank').first())).toBe('1');
      // A note, in a fold that opens without JavaScript.
      await page.getByText(`Add a note (${SECOND.title})`).click();
      await page.getByLabel(`Note on ${SECOND.title}`).fill('The best of the fog.');
      await check();
      await clickAndLoad(page, page.getByRole('button', { name: 'Save note' }).first());
      expect(await textOf(page.getByRole('status'))).toContain(`Note on ${SECOND.title} saved.`);
      expect(await textOf(items.nth(0))).toContain('The best of the fog.');
      // Remove asks first.
      await page
        .getByRole('listitem')
        .filter({ hasText: FIRST.title })
        .getByText('Remove', { exact: true })
        .click();
      await page.getByText(`Take ${FIRST.title} off Fog and light?`).waitFor();
      await check();

      // Like the first from its page: the toggle is pressed, and /likes shows it.
      await page.goto(`/movies/${ids[0]}`);
      const like = page.getByRole('button', { name: 'Like', exact: true });
      expect(await like.getAttribute('aria-pressed')).toBe('false');
      await clickAndLoad(page, like);
      expect(await textOf(page.getByRole('status'))).toContain(`You like ${FIRST.title}.`);
      expect(await page.getByRole('button', { name: 'Like', exact: true }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      await check();
      await clickAndLoad(
        page,
        page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Likes' }),
      );
      await page.getByRole('heading', { level: 1, name: 'Likes' }).waitFor();
      expect(await textOf(page.getByRole('main'))).toContain(FIRST.title);
      expect(await textOf(page.getByRole('main'))).not.toContain(SECOND.title);
      await check();

      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
