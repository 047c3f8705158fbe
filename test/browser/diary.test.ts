import { beforeEach, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import {
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

browserSuite('browser: the diary and the log form (issue 30)', () => {
  const world = trackerWorld();
  let ids: number[] = [];
  /** Days before today (the server's real clock), as YYYY-MM-DD. */
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  beforeEach(async () => {
    const ann = await seedUser(world.server, 'ann');
    const { value: token } = await world.server.tokens.create(ann.id, 'seed', 'never');
    const api = (path: string, body: unknown) =>
      fetch(`${world.server.url}/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    ids = [];
    for (const movie of [FIRST, SECOND]) {
      const res = await api('/movies/add', { providerId: movie.id });
      expect(res.status).toBeLessThan(300);
      ids.push(((await res.json()) as { serviceId: number }).serviceId);
    }
    // The first movie seen once before, a year ago: logging it again is a rewatch.
    const earlier = await api('/users/ann/diary', [
      { serviceId: ids[0], watchedAt: daysAgo(365), rating: 6, tags: ['cinema'] },
      { serviceId: ids[1], watchedAt: daysAgo(365), rating: 4 },
    ]);
    expect(earlier.status).toBe(204);
  });

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'dark'],
  ] as const) {
    it(`logs a rewatch with stars (keyboard) and tags, filters the diary by tag and opens the calendar (${width} px, ${colorScheme})`, async () => {
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width, height: 900 },
        colorScheme,
      });
      await signIn(page, 'ann');
      const check = async () => {
        await expectAccessible(page);
        await expectNoOverflow(page);
      };

      // The log form: the poster, the rewatch box ticked (seen before), the user's tags offered.
      await page.goto(`/log?movieId=${ids[0]}`);
      await page.getByRole('heading', { level: 2, name: FIRST.title }).waitFor();
      expect(await page.locator('img.log-poster').count()).toBe(1);
      expect(await page.getByLabel('Rewatch').isChecked()).toBe(true);
      expect(
        await page.locator('#log-tag-list option').evaluateAll((o) => o.map((e) => e.getAttribute('value'))),
      ).toEqual(['cinema']);
      await check();

      // The stars by keyboard: the group's checked radio ("No rating") takes the focus, the arrow keys
      // move along the half stars (wrapping to the first), and the choice is shown in words.
      const ratings = page.getByRole('group', { name: 'Rating' });
      await ratings.getByRole('radio', { name: 'No rating' }).focus();
      for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
      expect(await ratings.getByRole('radio', { name: '3½ stars' }).isChecked()).toBe(true);
      expect(await textOf(page.locator('.star-value'))).toBe('3½ stars');
      // The focus shows round the stars.
      const ring = await page.evaluate(
        "getComputedStyle(document.querySelector('.star-input .stars')).outlineStyle",
      );
      expect(ring).toBe('solid');
      await check();
      // The suggestions complete the tag being typed, after those already there (app.js).
      await page.getByLabel('Tags').fill('with Sam, ');
      expect(
        await page.locator('#log-tag-list option').evaluateAll((o) => o.map((e) => e.getAttribute('value'))),
      ).toEqual(['with Sam, cinema']);
      await page.getByLabel('Tags').fill('cinema, with Sam');
      await page.getByLabel('Comment').fill('Better the second time.');
      await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));
      expect(await textOf(page.getByRole('status'))).toContain(`Logged ${FIRST.title}`);

      // The diary: this month first, the new entry with its stars, rewatch mark and tags.
      await clickAndLoad(
        page,
        page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History' }),
      );
      await page.getByRole('heading', { level: 1, name: 'Diary' }).waitFor();
      const newest = page.locator('li.entry').first();
      expect(await textOf(newest)).toContain(FIRST.title);
      expect(await newest.getByRole('img', { name: 'Rated 3½ stars' }).count()).toBe(1);
      expect(await textOf(newest.locator('.rewatch-mark'))).toBe('Rewatch');
      expect(await newest.getByRole('link', { name: 'with Sam' }).count()).toBe(1);
      expect(await page.locator('h2.diary-month-heading').count()).toBe(2);
      await check();

      // Filter by tag with the form: the address says so, the other movie is gone, "Clear filters".
      await page.getByLabel('Tag', { exact: true }).fill('with Sam');
      await clickAndLoad(page, page.getByRole('button', { name: 'Filter' }));
      expect(new URL(page.url()).search).toBe('?tag=with+Sam');
      expect(await page.locator('li.entry').count()).toBe(1);
      expect(await textOf(page.getByRole('main'))).not.toContain(SECOND.title);
      await check();
      // A tag's link filters by it too.
      await clickAndLoad(page, page.getByRole('link', { name: 'Clear filters' }));
      await clickAndLoad(page, page.locator('li.entry').last().getByRole('link', { name: 'cinema' }));
      expect(new URL(page.url()).search).toBe('?tag=cinema');
      expect(await page.locator('li.entry').count()).toBe(2);

      // The calendar of this month: today's day links to that day's diary.
      await clickAndLoad(page, page.getByRole('link', { name: 'Calendar', exact: true }).first());
      const today = daysAgo(0);
      await page.getByRole('table').waitFor();
      const day = page.locator('td[aria-current="date"] a.calendar-link');
      expect(await textOf(day)).toContain('1 film');
      await check();
      // Keyboard: the day's link takes the focus.
      await day.focus();
      await clickAndLoad(page, day);
      const [year, month, date] = today.split('-').map(Number);
      expect(new URL(page.url()).search).toBe(`?year=${year}&month=${month}&day=${date}`);
      expect(await page.locator('li.entry').count()).toBe(1);
      await check();

      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
