import { beforeEach, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import {
  browserSuite,
  expectAccessible,
  expectImagesLoaded,
  expectNoOverflow,
  openContext,
  seedUser,
  signIn,
  textOf,
  trackerWorld,
} from './browser.js';

browserSuite('browser: statistics and the year in review', () => {
  const world = trackerWorld();
  let call: (method: string, path: string, body: unknown) => Promise<Response>;
  const ids: number[] = [];
  beforeEach(async () => {
    const ann = await seedUser(world.server, 'ann');
    const { value: token } = await world.server.tokens.create(ann.id, 'seed', 'never');
    call = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${world.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
      return res;
    };
    // Three movies of the fake TMDB, watched in 2025 (two on a Saturday, one twice) and rated.
    ids.length = 0;
    for (const movie of FAKE_TMDB_MOVIES.slice(0, 3)) {
      const res = await call('POST', '/api/movies/add', { providerId: movie.id });
      ids.push(((await res.json()) as { serviceId: number }).serviceId);
    }
    await call('POST', '/api/users/ann/history/movies', [
      { serviceId: ids[0], watchedAt: '2025-03-01', plays: 2 },
      { serviceId: ids[1], watchedAt: '2025-03-08' },
      { serviceId: ids[2], watchedAt: '2025-07-15' },
    ]);
    await call('PUT', '/api/users/ann/ratings/movies', [
      { serviceId: ids[0], rating: 9 },
      { serviceId: ids[1], rating: 6 },
    ]);
  });

  it('draws the charts, opens each as a table, ranks people with pictures; axe clean', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 1280, height: 900 },
    });
    await signIn(page, 'ann');
    await page.getByRole('link', { name: 'Statistics', exact: true }).click();
    await page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor();
    // The March bar of 2025 stands, drawn with a height; the chart is named for a screen reader.
    await page.getByRole('link', { name: '2025', exact: true }).click();
    await page.getByRole('heading', { name: 'Statistics of 2025' }).waitFor();
    const months = page.getByRole('figure', { name: 'Plays per month in 2025' });
    const march = months.locator('rect.chart-bar').nth(2);
    expect(Number(await march.getAttribute('height'))).toBeGreaterThan(0);
    expect((await march.boundingBox())!.height).toBeGreaterThan(20);
    expect(await months.getByRole('img').getAttribute('aria-label')).toContain('the most, 3, in March 2025');
    // Its table, behind "Show as a table" (a <details>: no script needed).
    await months.getByText('Show as a table').click();
    expect(await textOf(months.getByRole('table'))).toContain('March 2025 3');
    expect(await textOf(page.getByRole('region', { name: 'Top directors' }))).toMatch(/1 .+ movie/);
    expect(await expectImagesLoaded(page)).toBeGreaterThan(0);
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the year in review at 375 px, dark: no overflow, posters loaded, axe clean; shared once public', async () => {
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
    });
    await signIn(page, 'ann');
    await page.goto('/statistics?year=2025');
    await page.getByRole('link', { name: '2025 in review' }).click();
    await page.getByRole('heading', { name: '2025', level: 1 }).waitFor();
    const wall = page.getByRole('region', { name: 'Every movie of 2025' });
    expect(await wall.getByRole('img').count()).toBe(3);
    await expectNoOverflow(page);
    expect(await expectImagesLoaded(page)).toBeGreaterThanOrEqual(3);
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await context.close();

    // A stranger: nothing until the profile is public, then the same page without links into the app.
    const stranger = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 800 },
    });
    const hidden = await stranger.page.goto('/users/ann/year/2025');
    expect(hidden?.status()).toBe(404);
    await world.server.users.update('ann', { publicProfile: true, privacy: 'users' });
    await stranger.page.goto('/users/ann/year/2025');
    const shared = stranger.page.getByRole('region', { name: 'Every movie of 2025' });
    expect(await shared.getByRole('img').count()).toBe(3);
    expect(await shared.getByRole('link').count()).toBe(0);
    await expectAccessible(stranger.page);
    await stranger.context.close();
  });

  it("the diary's figures and this year's likes and lists, at 375 px and 1280 px; axe clean", async () => {
    // This year (the real clock's): two tagged diary entries, one a rewatch; a like; a list.
    const year = new Date().getUTCFullYear();
    await call('POST', '/api/users/ann/diary', [
      { serviceId: ids[0], watchedAt: `${year}-01-02`, rating: 7, tags: ['Rainy day', 'cosy'] },
      { serviceId: ids[1], watchedAt: `${year}-01-03`, tags: ['cosy'] },
    ]);
    await call('PUT', '/api/users/ann/likes/movies', [{ serviceId: ids[2] }]);
    const list = (await (
      await call('POST', '/api/users/ann/lists', { name: 'Winter evenings', visibility: 'public' })
    ).json()) as { id: number };
    await call('PUT', `/api/users/ann/lists/${list.id}/movies`, [
      { serviceId: ids[0] },
      { serviceId: ids[1] },
    ]);
    for (const width of [375, 1280]) {
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width, height: 900 },
        colorScheme: width === 375 ? 'dark' : 'light',
      });
      await signIn(page, 'ann');
      await page.goto(`/statistics?year=${year}`);
      expect(await textOf(page.getByRole('list').filter({ hasText: 'rewatch' }))).toMatch(/2 rewatches/);
      expect(await textOf(page.getByRole('region', { name: 'Top tags' }))).toMatch(
        /cosy 2 entries.*Rainy day 1 entry/,
      );
      await expectNoOverflow(page);
      await expectAccessible(page);
      await page.goto(`/users/ann/year/${year}`);
      const likes = page.getByRole('region', { name: `Liked in ${year}` });
      expect(await likes.getByRole('img').count()).toBe(1);
      const lists = page.getByRole('region', { name: `Lists of ${year}` });
      expect(await lists.getByRole('link', { name: 'Winter evenings' }).getAttribute('href')).toBe(
        `/lists/${list.id}`,
      );
      expect(await lists.getByRole('img').count()).toBe(2);
      await expectNoOverflow(page);
      expect(await expectImagesLoaded(page)).toBeGreaterThanOrEqual(3);
      await expectAccessible(page);
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
