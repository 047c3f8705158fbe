import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
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

const [FIRST, SECOND, THIRD] = FAKE_TMDB_MOVIES;

/** A small Movary history export: two movies the fake TMDB knows, and one nobody made. */
const MOVARY_HISTORY = [
  'title,year,tmdbId,imdbId,watchedAt,comment,location',
  `"${FIRST!.title}",${FIRST!.release_date.slice(0, 4)},${FIRST!.id},,2024-03-02,,`,
  `"${SECOND!.title}",${SECOND!.release_date.slice(0, 4)},${SECOND!.id},,2024-03-09,"Twice as good",`,
  'A Film Nobody Made,1990,,,2024-01-01,,',
  '',
].join('\n');

browserSuite('browser: import and export', () => {
  const world = trackerWorld();

  it('uploads a Movary file, follows its progress to the summary and the unmatched row, and downloads an export (375 px, dark)', async () => {
    await seedUser(world.server, 'ivy');
    const { context, page, problems } = await openContext(world.browser, world.server, {
      viewport: { width: 375, height: 800 },
      colorScheme: 'dark',
    });
    await signIn(page, 'ivy');

    await page.goto('/settings/tokens');
    await clickAndLoad(
      page,
      page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Import and export' }),
    );
    expect(new URL(page.url()).pathname).toBe('/settings/data');
    await expectAccessible(page);
    await expectNoOverflow(page);

    // A file that is no Movary export: the form again, with a message that quotes the expected header
    // line and still fits the phone's width.
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'notes.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('these,are\nmy,notes\n'),
    });
    await clickAndLoad(page, page.getByRole('button', { name: 'Upload and import' }));
    expect(await textOf(page.locator('.error'))).toMatch(/^The file was not imported: .*title,year,tmdbId/);
    await expectAccessible(page);
    await expectNoOverflow(page);

    await page.getByLabel('From', { exact: true }).selectOption({ label: 'Movary' });
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'history.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(MOVARY_HISTORY),
    });
    await clickAndLoad(page, page.getByRole('button', { name: 'Upload and import' }));
    expect(new URL(page.url()).pathname).toMatch(/^\/settings\/data\/imports\/\d+$/);
    expect(await textOf(page.getByRole('heading', { level: 2 }).first())).toBe(
      'Movary import: Waiting to start',
    );
    expect(await page.getByRole('progressbar', { name: 'Progress' }).count()).toBe(1);
    await expectAccessible(page);

    // The job runs; the page, polling its status part, shows the summary without a reload.
    await world.server.app.jobs.runner.runUntilEmpty();
    await page.getByRole('heading', { level: 2, name: 'Unmatched rows' }).waitFor();
    expect(await textOf(page.getByRole('heading', { level: 2 }).first())).toBe('Movary import: Done');
    expect(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('value')).toBe('1');
    const stats = await textOf(page.locator('.stats'));
    expect(stats).toBe('2 added 0 already there 1 unmatched');
    // On a phone the table's rows are cards (display: block): found by their text.
    const row = page.locator('tr').filter({ hasText: 'A Film Nobody Made' });
    expect(await textOf(row)).toContain('a play on 1 Jan 2024');
    expect(
      await row.getByRole('link', { name: /^Find it\b.*A Film Nobody Made$/ }).getAttribute('href'),
    ).toBe('/search?q=A+Film+Nobody+Made&date=2024-01-01');
    await expectAccessible(page);
    await expectNoOverflow(page);
    const statusPage = page.url();

    // Matched by hand: "Find it" searches the row's title; another title typed in (as you type, htmx)
    // keeps the row's date, which the log form then starts with.
    await clickAndLoad(page, row.getByRole('link', { name: /^Find it/ }));
    await page.getByRole('heading', { name: 'Nothing found for “A Film Nobody Made”' }).waitFor();
    expect(await textOf(page.getByText('"Log a play" fills in'))).toBe('"Log a play" fills in 1 Jan 2024.');
    await page.getByLabel('Title', { exact: true }).fill('');
    await page.getByLabel('Title', { exact: true }).pressSequentially('Paper', { delay: 20 });
    await page.getByRole('link', { name: `Log a play of ${THIRD!.title}`, exact: true }).waitFor();
    await clickAndLoad(page, page.getByRole('link', { name: `Log a play of ${THIRD!.title}`, exact: true }));
    expect(await page.getByLabel('Date', { exact: true }).inputValue()).toBe('2024-01-01');
    await clickAndLoad(page, page.getByRole('button', { name: 'Log play' }));
    expect(await textOf(page.getByRole('status'))).toContain(`Logged ${THIRD!.title} on 1 Jan 2024`);
    await page.goto(statusPage);

    // The export: a download of what was just imported.
    await clickAndLoad(page, page.getByRole('link', { name: 'Back to Import and export' }));
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download cinelog JSON' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('cinelog-ivy.json');
    const document = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(document.history.map((entry: { movie: { title: string } }) => entry.movie.title).sort()).toEqual(
      [FIRST!.title, SECOND!.title, THIRD!.title].sort(),
    );
    expect(problems).toEqual([]);
    await context.close();
  });
});
