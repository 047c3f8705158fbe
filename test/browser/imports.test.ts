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

/**
 * A history whose rows end each way a row can: a guess (the year one off), a row that cannot be read
 * (a bad IMDb id), one without a title that cannot be read either, and one no movie matches.
 */
const GUESSING_HISTORY = [
  'title,year,tmdbId,imdbId,watchedAt,comment,location',
  `"${FIRST!.title}",${Number(FIRST!.release_date.slice(0, 4)) + 1},,,2024-03-02,,`,
  'Broken Row,2001,,123,2023-02-03,,',
  ',,,,2023-02-03,,',
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
    expect(stats).toBe('2 added 0 already there 1 unmatched 0 matched by a guess');
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
    await page.getByLabel('Title or name', { exact: true }).fill('');
    await page.getByLabel('Title or name', { exact: true }).pressSequentially('Paper', { delay: 20 });
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
  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'dark'],
  ] as const) {
    it(`shows the guesses, the unreadable rows and what was not imported, each list with its actions in view (${width} px, ${colorScheme})`, async () => {
      const ivy = await seedUser(world.server, 'ivy');
      const { context, page, problems } = await openContext(world.browser, world.server, {
        viewport: { width, height: 800 },
        colorScheme,
      });
      await signIn(page, 'ivy');

      // The page before any import: the list of imports says there is none.
      await page.goto('/settings/data');
      expect(await textOf(page.getByRole('region', { name: 'Your latest imports' }))).toContain(
        'No imports yet.',
      );
      await expectAccessible(page);

      await page.getByLabel('File', { exact: true }).setInputFiles({
        name: 'history.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(GUESSING_HISTORY),
      });
      await clickAndLoad(page, page.getByRole('button', { name: 'Upload and import' }));
      await world.server.app.jobs.runner.runUntilEmpty();
      await page.getByRole('heading', { level: 2, name: 'Matched by a guess' }).waitFor();
      expect(await textOf(page.locator('.stats'))).toBe(
        '1 added 0 already there 3 unmatched 1 matched by a guess',
      );

      // The guess: the file's title and year, the movie it went to, why, and a search for the right one.
      const year = Number(FIRST!.release_date.slice(0, 4));
      const guesses = page.getByRole('region', { name: 'Matched by a guess' });
      const guess = guesses.locator('tr').filter({ hasText: `${FIRST!.title} (${year + 1})` });
      expect(await textOf(guess)).toContain('same title, the year one off');
      // The hidden part of the name is a box of its own: a space before its colon.
      const find = guess.getByRole('link', { name: /^Find it\b.*the right movie for .*\(\d{4}\)$/ });
      expect(await find.isVisible()).toBe(true);
      expect(await find.getAttribute('href')).toBe(`/search?${new URLSearchParams({ q: FIRST!.title })}`);
      const movie = guess.getByRole('link', { name: `${FIRST!.title} (${year})` });
      expect(await movie.isVisible()).toBe(true);

      // The unmatched rows, each with why; one without a title has nothing to search for.
      const unmatched = page.getByRole('region', { name: 'Unmatched rows' });
      const broken = unmatched.locator('tr').filter({ hasText: 'Broken Row' });
      expect(await textOf(broken)).toContain('imdbId is "123", not an IMDb id (tt…).');
      expect(await broken.getByRole('link', { name: /^Find it\b.*Broken Row$/ }).isVisible()).toBe(true);
      const untitled = unmatched.locator('tr').filter({ hasText: '(no title)' });
      expect(await textOf(untitled)).toContain('a row that cannot be read');
      expect(await untitled.getByRole('link').count()).toBe(0);
      expect(await textOf(page.getByRole('region', { name: 'Summary' }))).toContain(
        'Not imported Nothing: the file holds nothing that cinelog cannot keep.',
      );
      await expectAccessible(page);
      await expectNoOverflow(page);
      const statusPage = page.url();

      // What a file holds that cinelog cannot keep: a finished import whose summary counts it.
      const jobId = await world.server.app.jobs.queue.enqueue(
        'library.import',
        { userId: ivy.id, userName: 'ivy', format: 'letterboxd', dir: '/nonexistent', dryRun: true },
        { userId: ivy.id },
      );
      await world.server.db
        .updateTable('jobs')
        .set({
          state: 'done',
          finished_at: new Date().toISOString(),
          result: JSON.stringify({
            added: 0,
            existing: 0,
            unmatched: 0,
            dryRun: true,
            plays: { added: 0, existing: 0 },
            watchlist: { added: 0, existing: 0 },
            ratings: { added: 0, existing: 0 },
            unmatchedRows: [],
            skipped: [
              { what: 'movies on Letterboxd lists', count: 13 },
              { what: 'liked films', count: 2 },
            ],
            guessed: 1,
            guesses: [
              {
                file: 'diary.csv',
                line: 4,
                kind: 'play',
                title: SECOND!.title,
                year: null,
                why: 'title only',
                movie: { title: SECOND!.title, year: 2001, serviceId: null, tmdbId: SECOND!.id },
              },
            ],
            settingsApplied: false,
          }),
        })
        .where('id', '=', jobId!)
        .execute();
      await page.goto(`/settings/data/imports/${jobId}`);
      const skipped = page.getByRole('list', { name: 'Not imported' });
      expect(await skipped.getByRole('listitem').allInnerTexts()).toEqual([
        '13 movies on Letterboxd lists',
        '2 liked films',
      ]);
      expect(
        await page.getByRole('link', { name: `${SECOND!.title} (2001), on TMDB` }).getAttribute('href'),
      ).toBe(`https://www.themoviedb.org/movie/${SECOND!.id}`);
      expect(await textOf(page.getByRole('region', { name: 'Unmatched rows' }))).toContain(
        'Every row matched a movie',
      );
      await expectAccessible(page);
      await expectNoOverflow(page);

      // The guessed movie's link leads to its page here.
      await page.goto(statusPage);
      await clickAndLoad(
        page,
        page
          .getByRole('region', { name: 'Matched by a guess' })
          .getByRole('link', { name: `${FIRST!.title} (${year})` }),
      );
      expect(new URL(page.url()).pathname).toMatch(/^\/movies\/\d+-/);
      expect(await textOf(page.getByRole('heading', { level: 1 }))).toBe(`${FIRST!.title} (${year})`);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
