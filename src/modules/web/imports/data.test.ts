import { readdirSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { strFromU8, unzipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES, type FakeTmdbMovie } from '../../../../test/fake-tmdb.js';
import { createUser, type TestUser } from '../../../../test/harness.js';
import { multipart } from '../../../../test/multipart.js';
import { importsWorld } from '../../../../test/tmdb-world.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';
import { MAX_PENDING_IMPORTS, MAX_UPLOAD_BYTES } from '../../imports/import-uploads.js';

/** Made-up movies the fake TMDB serves. */
const film = (id: number, title: string, release: string): FakeTmdbMovie => ({
  ...FAKE_TMDB_MOVIES[5]!,
  id,
  title,
  original_title: title,
  release_date: release,
  imdb_id: `tt9${id}`,
  belongs_to_collection: null,
});
const FILMS = [film(730001, 'Salt Road Summer', '2016-07-01'), film(730002, 'Ninefold', '2020-01-02')];

const MOVARY_HISTORY = [
  'title,year,tmdbId,imdbId,watchedAt,comment,location',
  'Salt Road Summer,2016,730001,,2023-04-01,"Loved it",Cinema',
  'Salt Road Summer,2016,730001,,2023-04-01,,',
  'Ninefold,2020,730002,,2023-05-06,,',
  'A Film Nobody Made,1990,,,2023-01-01,,',
  '',
].join('\n');

/**
 * A history whose rows end in each way a row can: a guess (the year one off from the fake TMDB's
 * 2016 film), a match by id, a row that cannot be read (a bad IMDb id), and one no movie matches.
 */
const GUESSING_HISTORY = [
  'title,year,tmdbId,imdbId,watchedAt,comment,location',
  'Salt Road Summer,2017,,,2023-04-01,,',
  'Ninefold,2020,730002,,2023-05-06,,',
  'Broken Row,2001,,123,2023-02-03,,',
  'A Film Nobody Made,1990,,,2023-01-01,,',
  '',
].join('\n');

/** A finished import's summary as the job keeps it (import.service.ts `ImportSummary`), with overrides. */
const summaryJson = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    added: 4,
    existing: 1,
    unmatched: 0,
    dryRun: false,
    plays: { added: 3, existing: 1 },
    watchlist: { added: 1, existing: 0 },
    ratings: { added: 0, existing: 0 },
    unmatchedRows: [],
    skipped: [],
    guessed: 0,
    guesses: [],
    settingsApplied: false,
    ...overrides,
  });

describe('Settings → Import and export', () => {
  const world = importsWorld(FILMS);
  let alice: TestUser;
  let browser: WebClient;
  beforeEach(async () => {
    alice = await createUser(world.ctx, { name: 'alice' });
    browser = await signedInClient(world.ctx.app, 'alice');
  });

  /** Sends the upload form as a browser does: multipart, with the page's CSRF token unless given. */
  async function upload(
    client: WebClient,
    fields: Record<string, string>,
    file?: { name: string; content: string | Buffer },
  ): Promise<LightMyRequestResponse> {
    await client.get('/settings/data');
    const form: Record<string, string> = { _csrf: client.csrfToken(), ...fields };
    if (form._csrf === '') delete form._csrf;
    const body = multipart(form, file);
    const response = await world.ctx.app.inject({
      method: 'POST',
      url: '/settings/data/imports',
      headers: { accept: 'text/html', 'content-type': body.contentType },
      payload: body.payload,
      cookies: Object.fromEntries(client.cookies),
    });
    return response;
  }

  const nothingQueued = async () => {
    expect(await world.ctx.app.jobs.queue.recent()).toEqual([]);
    // A refused upload's file is removed once the answer is sent (the route's onResponse hook), so
    // maybe a moment after the test has it.
    await expect.poll(() => readdirSync(world.importsDir), { timeout: 3000 }).toEqual([]);
  };

  /**
   * An import job that finished with `result` as its stored result: queued like an upload's, then
   * marked done in the database as the job runner would (or as an older version did).
   */
  async function finishedImport(result: string, payload: { format?: string; dryRun?: boolean } = {}) {
    const jobId = await world.ctx.app.jobs.queue.enqueue(
      'library.import',
      {
        userId: alice.user.id,
        userName: 'alice',
        format: payload.format ?? 'letterboxd',
        dir: `${world.importsDir}/gone`,
        dryRun: payload.dryRun ?? false,
      },
      { userId: alice.user.id },
    );
    await world.ctx.db
      .updateTable('jobs')
      .set({ state: 'done', result, finished_at: new Date().toISOString() })
      .where('id', '=', jobId!)
      .execute();
    return `/settings/data/imports/${jobId}`;
  }

  const playedCount = async () =>
    (
      await world.ctx.app.inject({
        method: 'GET',
        url: '/api/users/alice/played/movies',
        headers: alice.auth,
      })
    ).json().played.length;

  it('requires sign-in for every page, the upload and the downloads', async () => {
    const anonymous = new WebClient(world.ctx.app);
    for (const path of [
      '/settings/data',
      '/settings/data/imports/1',
      '/settings/data/imports/1/status',
      '/settings/data/export?format=json',
    ]) {
      const response = await anonymous.get(path);
      expect(response.statusCode, path).toBe(303);
      expect(response.headers.location, path).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    const body = multipart({ format: 'movary' }, { name: 'history.csv', content: MOVARY_HISTORY });
    const posted = await world.ctx.app.inject({
      method: 'POST',
      url: '/settings/data/imports',
      headers: { 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/login');
    await nothingQueued();
  });

  it('shows the import form and the export downloads, in the settings menu', async () => {
    const page = await browser.get('/settings/data');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Import and export</h1>');
    expect(page.body).toContain('<a href="/settings/data" aria-current="page">Import and export</a>');
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toMatch(/<input type="hidden" name="_csrf" value="[^"]+">/);
    for (const label of ['Movary', 'Letterboxd', 'Trakt', 'IMDb', 'TV Time', 'Netflix', 'cinelog']) {
      expect(page.body).toContain(`>${label}</option>`);
    }
    // What files each format takes, and the limits of an upload.
    const text = textOf(page.body);
    expect(text).toContain('TV Time: the TV Time data export: tracking-prod-records.csv, or the .zip');
    expect(text).toContain(
      'Netflix: NetflixViewingHistory.csv (Account → Profile → Viewing activity → Download all)',
    );
    expect(text).toContain('Letterboxd: the whole export .zip, folders and all');
    expect(text).toMatch(/Trakt: the export \.zip.*only the watchlist file goes onto the watchlist/);
    expect(text).toContain('IMDb: the ratings, watchlist or list CSVs');
    expect(text).toContain('at most 32 MB');
    expect(text).toContain(`At most ${MAX_PENDING_IMPORTS} of your imports can wait or run at once`);
    // No import yet: the list says so.
    expect(text).toContain('Your latest imports No imports yet.');
    expect(page.body).toContain('<input type="checkbox" name="dryRun" value="on">');
    for (const format of ['json', 'movary', 'letterboxd']) {
      expect(page.body).toContain(`href="/settings/data/export?format=${format}" download`);
    }
    expect((await browser.get('/settings/tokens')).body).toContain(
      '<a href="/settings/data" >Import and export</a>',
    );
  });

  it('refuses an upload without the CSRF token, or with a wrong one: nothing queued', async () => {
    const file = { name: 'history.csv', content: MOVARY_HISTORY };
    const missing = await upload(browser, { _csrf: '', format: 'movary' }, file);
    expect(missing.statusCode).toBe(403);
    expect(textOf(missing.body)).toContain('Form expired');
    const wrong = await upload(browser, { _csrf: 'not-the-token', format: 'movary' }, file);
    expect(wrong.statusCode).toBe(403);
    await nothingQueued();
  });

  it('checks the file at once: a bad one gets the form again with the reason (400), nothing queued', async () => {
    const bad = await upload(
      browser,
      { format: 'movary', dryRun: 'on' },
      { name: 'history.csv', content: 'title,year,watchedAt\nx,1,2020-01-01\n' },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<h1>Import and export</h1>');
    expect(textOf(bad.body)).toMatch(/The file was not imported: .*lacks the column tmdbId/);
    expect(bad.body).toContain('<input type="checkbox" name="dryRun" value="on" checked>');
    expect(bad.body).toContain('aria-invalid="true"');

    const noFile = await upload(browser, { format: 'movary' });
    expect(noFile.statusCode).toBe(400);
    expect(textOf(noFile.body)).toContain('choose a file');
    const empty = await upload(browser, { format: 'movary' }, { name: 'history.csv', content: '' });
    expect(empty.statusCode).toBe(400);
    const noFormat = await upload(
      browser,
      { format: 'goodreads' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(noFormat.statusCode).toBe(400);
    expect(textOf(noFormat.body)).toContain('choose the format of the file');
    const notZip = await upload(
      browser,
      { format: 'letterboxd' },
      { name: 'export.zip', content: Buffer.from('PK\u0003\u0004broken') },
    );
    expect(notZip.statusCode).toBe(400);
    await nothingQueued();
  });

  it('answers a form whose body ends inside the file with the form again and why (400), and goes on', async () => {
    await browser.get('/settings/data');
    const form = multipart(
      { _csrf: browser.csrfToken(), format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    // Cut inside the file: busboy's "Part terminated early", all of it in one piece.
    const broken = await world.ctx.app.inject({
      method: 'POST',
      url: '/settings/data/imports',
      headers: { accept: 'text/html', 'content-type': form.contentType },
      payload: form.payload.subarray(0, form.payload.length - 80),
      cookies: Object.fromEntries(browser.cookies),
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.body).toContain('<h1>Import and export</h1>');
    expect(textOf(broken.body)).toMatch(/The file was not imported: .+\./);
    await nothingQueued();
    expect((await browser.get('/settings/data')).statusCode).toBe(200);
  });

  it('refuses a file one byte past the upload limit with a 413: the form again with why, nothing queued', async () => {
    const huge = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0x61) },
    );
    expect(huge.statusCode).toBe(413);
    expect(huge.body).toContain('<h1>Import and export</h1>');
    expect(textOf(huge.body)).toContain('The file was not imported: the file is larger than 32 MB.');
    expect(huge.body).toContain('role="alert" id="form-error"');
    expect(huge.body).toContain('aria-invalid="true"');
    await nothingQueued();
  });

  it(`refuses an upload while ${MAX_PENDING_IMPORTS} imports wait (429): the form again with why, nothing more queued`, async () => {
    for (let i = 0; i < MAX_PENDING_IMPORTS; i++) {
      const accepted = await upload(
        browser,
        { format: 'movary' },
        { name: 'history.csv', content: MOVARY_HISTORY },
      );
      expect(accepted.statusCode).toBe(303);
    }
    // The job runner is not started in tests: the three stay queued.
    const refused = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain('<h1>Import and export</h1>');
    expect(textOf(refused.body)).toMatch(
      new RegExp(`The file was not imported: you have ${MAX_PENDING_IMPORTS} imports waiting or running`),
    );
    expect(refused.body).toContain('<form method="post" action="/settings/data/imports"');
    expect(await world.ctx.app.jobs.queue.recent()).toHaveLength(MAX_PENDING_IMPORTS);
    // The waiting ones are listed; once they are done, another upload is taken.
    expect(textOf((await browser.get('/settings/data')).body)).toContain('Movary Waiting to start –');
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const next = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(next.statusCode).toBe(303);
  });

  it('queues a good upload, shows its progress, then the summary and the unmatched rows', async () => {
    const accepted = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(accepted.statusCode).toBe(303);
    const location = String(accepted.headers.location);
    expect(location).toMatch(/^\/settings\/data\/imports\/[1-9][0-9]*$/);
    const jobId = Number(location.split('/').at(-1));
    expect(await world.ctx.app.jobs.queue.find(jobId, 'library.import')).toMatchObject({ state: 'queued' });

    const waiting = await browser.get(location);
    expect(waiting.statusCode).toBe(200);
    expect(textOf(waiting.body)).toContain('Movary import: Waiting to start');
    expect(waiting.body).toContain('<progress id="import-progress">');
    expect(waiting.body).toContain(`hx-get="/settings/data/imports/${jobId}/status" hx-trigger="every 1s"`);
    expect(waiting.body).not.toContain('Unmatched rows');

    await world.ctx.app.jobs.runner.runUntilEmpty();
    expect(await playedCount()).toBe(2);

    const done = await browser.get(location);
    const text = textOf(done.body);
    expect(text).toContain('Movary import: Done');
    expect(done.body).toContain('<progress id="import-progress" max="1" value="1">');
    expect(done.body).not.toContain('hx-trigger');
    expect(text).toMatch(/3 added 0 already there 1 unmatched/);
    expect(text).toContain('Plays 3 0');
    expect(text).toContain('Unmatched rows');
    expect(text).toContain('A Film Nobody Made (1990)');
    expect(text).toContain('a play on 1 Jan 2023');
    expect(text).toContain('history.csv, line 5');
    expect(done.body).toContain('href="/search?q=A+Film+Nobody+Made&amp;date=2023-01-01"');

    // The part htmx fetches: the same state, without the page around it.
    const part = await browser.get(`${location}/status`);
    expect(part.statusCode).toBe(200);
    expect(part.body.trimStart()).toMatch(/^<div id="import-status">/);
    expect(part.body).not.toContain('<html');
    expect(textOf(part.body)).toContain('A Film Nobody Made');

    const listed = textOf((await browser.get('/settings/data')).body);
    expect(listed).toContain('Your latest imports');
    expect(listed).toContain('Movary Done 3 added, 0 already there, 1 unmatched');

    // The same file again adds nothing.
    const again = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    await world.ctx.app.jobs.runner.runUntilEmpty();
    expect(textOf((await browser.follow(again)).body)).toMatch(/0 added 3 already there 1 unmatched/);
    expect(readdirSync(world.importsDir)).toEqual([]);
  });

  it('runs a preview that changes nothing', async () => {
    const accepted = await upload(
      browser,
      { format: 'movary', dryRun: 'on' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(accepted.statusCode).toBe(303);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const page = await browser.follow(accepted);
    expect(page.body).toContain('<h1>Import preview</h1>');
    expect(textOf(page.body)).toMatch(
      /Movary import: Preview ready .* 3 would be added 0 already there 1 unmatched/,
    );
    expect(await playedCount()).toBe(0);
  });

  it("shows an import to its owner alone: another user's is a 404", async () => {
    const accepted = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    const location = String(accepted.headers.location);
    await createUser(world.ctx, { name: 'bob' });
    const bob = await signedInClient(world.ctx.app, 'bob');
    for (const path of [location, `${location}/status`, '/settings/data/imports/999999']) {
      const response = await bob.get(path);
      expect(response.statusCode, path).toBe(404);
      expect(textOf(response.body)).not.toContain('Movary import');
    }
    expect((await browser.get(location)).statusCode).toBe(200);
    // The latest imports on the page: one's own only.
    expect((await browser.get('/settings/data')).body).toContain(`<a href="${location}">`);
    const bobsPage = await bob.get('/settings/data');
    expect(bobsPage.body).not.toContain('/settings/data/imports/');
    expect(textOf(bobsPage.body)).toContain('Your latest imports No imports yet.');
  });

  it('downloads the exports, the same as the API and the command line make', async () => {
    const accepted = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    expect(accepted.statusCode).toBe(303);
    await world.ctx.app.jobs.runner.runUntilEmpty();

    const json = await browser.get('/settings/data/export?format=json');
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toBe('attachment; filename="cinelog-alice.json"');
    expect(json.headers['cache-control']).toBe('no-store');
    const document = json.json();
    expect(document).toMatchObject({ format: 'cinelog', user: { name: 'alice' } });
    expect(document.history.map((entry: { movie: { title: string } }) => entry.movie.title).sort()).toEqual([
      'Ninefold',
      'Salt Road Summer',
    ]);
    const api = await world.ctx.app.inject({
      method: 'GET',
      url: '/api/users/alice/export?format=json',
      headers: alice.auth,
    });
    expect({ ...document, exportedAt: null }).toEqual({ ...api.json(), exportedAt: null });

    const movary = await browser.get('/settings/data/export?format=movary');
    expect(movary.headers['content-type']).toBe('application/zip');
    expect(movary.headers['content-disposition']).toBe('attachment; filename="movary-alice.zip"');
    const files = unzipSync(movary.rawPayload);
    expect(Object.keys(files).sort()).toEqual(['history.csv', 'ratings.csv', 'watchlist.csv']);
    expect(
      strFromU8(files['history.csv']!)
        .split('\n')
        .filter((line) => line.includes('Salt Road Summer')),
    ).toHaveLength(2);

    const letterboxd = await browser.get('/settings/data/export?format=letterboxd');
    expect(letterboxd.headers['content-type']).toBe('application/zip');
    expect(letterboxd.headers['content-disposition']).toBe('attachment; filename="letterboxd-alice.zip"');
    const diary = strFromU8(unzipSync(letterboxd.rawPayload)['diary.csv']!);
    expect(diary.split(/\r?\n/)[0]).toBe('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date');
    expect(diary).toContain('Ninefold');

    expect((await browser.get('/settings/data/export?format=csv')).statusCode).toBe(400);
  });

  it("matches an unmatched row by hand: its Find it link leads through the search to the log form with the row's date", async () => {
    const file = [
      'title,year,tmdbId,imdbId,watchedAt,comment,location',
      'Ninefold (Director’s Cut),2020,,,2022-12-24,,',
      '',
    ].join('\n');
    const accepted = await upload(browser, { format: 'movary' }, { name: 'history.csv', content: file });
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const status = await browser.follow(accepted);
    expect(textOf(status.body)).toContain('a play on 24 Dec 2022');
    const find = /href="(\/search\?[^"]+)"[^>]*>Find it/.exec(status.body)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(find).toBe('/search?q=Ninefold+%28Director%E2%80%99s+Cut%29&date=2022-12-24');

    const search = await browser.get(find.replace(/q=[^&]+/, 'q=Ninefold'));
    expect(search.statusCode).toBe(200);
    expect(textOf(search.body)).toContain('"Log a play" fills in 24 Dec 2022.');
    expect(search.body).toContain('<input type="hidden" name="date" value="2022-12-24">');
    const log = /href="(\/log\?[^"]+)"/.exec(search.body)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(new URLSearchParams(log.split('?')[1])).toMatchObject(
      new URLSearchParams({ tmdbId: '730002', title: 'Ninefold', year: '2020', date: '2022-12-24' }),
    );
    const form = await browser.get(log);
    expect(form.body).toContain('name="date" value="2022-12-24"');
    const logged = await browser.post('/log', {
      tmdbId: '730002',
      title: 'Ninefold',
      year: '2020',
      date: '2022-12-24',
      plays: '1',
    });
    expect(logged.statusCode).toBe(303);
    const history = await world.ctx.app.inject({
      method: 'GET',
      url: '/api/users/alice/history/movies',
      headers: alice.auth,
    });
    const entries = JSON.stringify(history.json());
    expect(entries).toContain('"title":"Ninefold"');
    expect(entries).toContain('"watchedAt":"2022-12-24"');

    // A prefill that is not a date or a rating is refused, as any bad address.
    expect((await browser.get('/search?q=Ninefold&date=soon')).statusCode).toBe(400);
    expect((await browser.get('/search?q=Ninefold&rating=11')).statusCode).toBe(400);
  });

  it('lists each unmatched row with why, a row that cannot be read among them, and the rows matched by a guess', async () => {
    // A preview first: the guessed movie is not stored yet, so it links to its page on TMDB.
    const preview = await upload(
      browser,
      { format: 'movary', dryRun: 'on' },
      { name: 'history.csv', content: GUESSING_HISTORY },
    );
    expect(preview.statusCode).toBe(303);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const previewPage = await browser.follow(preview);
    expect(previewPage.statusCode).toBe(200);
    expect(textOf(previewPage.body)).toMatch(
      /2 would be added 0 already there 2 unmatched 1 matched by a guess/,
    );
    expect(previewPage.body).toContain('href="https://www.themoviedb.org/movie/730001"');
    expect(textOf(previewPage.body)).toContain('Salt Road Summer (2016), on TMDB');

    const accepted = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: GUESSING_HISTORY },
    );
    expect(accepted.statusCode).toBe(303);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    expect(await playedCount()).toBe(2);
    const page = await browser.follow(accepted);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toMatch(/2 added 0 already there 2 unmatched 1 matched by a guess/);

    // The guess: imported, listed for review with the file's title and year, the movie it went to
    // (a link to its page here), why, where, and a search for the right one.
    expect(text).toContain('Matched by a guess');
    expect(text).toContain(
      'Salt Road Summer (2017) Salt Road Summer (2016) same title, the year one off a play history.csv, line 2',
    );
    const movieLink = /href="(\/movies\/\d+-salt-road-summer)"/.exec(page.body)?.[1];
    expect(movieLink).toBeDefined();
    const moviePage = await browser.get(movieLink!);
    expect(moviePage.statusCode).toBe(200);
    expect(textOf(moviePage.body)).toContain('Salt Road Summer');
    expect(textOf(moviePage.body)).toContain('1 Apr 2023');
    expect(page.body).toContain('href="/search?q=Salt+Road+Summer"');
    expect(text).toContain('Find it : the right movie for Salt Road Summer (2017)');

    // Unmatched rows, each with why; the unreadable one keeps its title, so it can be found too.
    expect(text).toContain(
      'Broken Row (2001) a row that cannot be read imdbId is "123", not an IMDb id (tt…). history.csv, line 4',
    );
    expect(page.body).toContain('href="/search?q=Broken+Row"');
    expect(text).toContain(
      'A Film Nobody Made (1990) a play on 1 Jan 2023 No movie matches it. history.csv, line 5',
    );
    expect(page.body).toContain('href="/search?q=A+Film+Nobody+Made&amp;date=2023-01-01"');
    // Nothing of a kind cinelog cannot keep: the list says so.
    expect(text).toContain('Not imported Nothing: the file holds nothing that cinelog cannot keep.');
    // The latest imports count the guesses to review.
    expect(textOf((await browser.get('/settings/data')).body)).toContain(
      'Movary Done 2 added, 0 already there, 2 unmatched, 1 to review',
    );
  });

  it('shows what the file holds that cinelog cannot keep, the rows past those listed, and a guess of a preview', async () => {
    const location = await finishedImport(
      summaryJson({
        dryRun: true,
        unmatched: 502,
        unmatchedRows: [
          {
            file: 'ratings.csv',
            line: 7,
            kind: 'unreadable',
            title: null,
            year: null,
            ids: '',
            reason: 'cannot be read: Const is "123", not an IMDb id (tt…)',
          },
          {
            file: 'watchlist.csv',
            line: 3,
            kind: 'watchlist',
            title: 'Harbour Lights',
            year: 1999,
            ids: 'imdb tt0000001',
            reason: 'no movie matches it',
          },
        ],
        skipped: [
          { what: 'movies on Letterboxd lists', count: 13 },
          { what: 'liked films', count: 4 },
          { what: 'TV episodes', count: 0 },
        ],
        guessed: 3,
        guesses: [
          {
            file: 'diary.csv',
            line: 12,
            kind: 'rating',
            title: 'Loving',
            year: 2017,
            why: 'year ±1',
            movie: { title: 'Loving', year: 2016, serviceId: null, tmdbId: 339419 },
          },
          {
            file: 'NetflixViewingHistory.csv',
            line: 2,
            kind: 'play',
            title: 'Ninefold',
            year: null,
            why: 'title only',
            movie: { title: 'Ninefold', year: 2020, serviceId: 41, tmdbId: null },
          },
        ],
      }),
      { dryRun: true },
    );
    for (const path of [location, `${location}/status`]) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain('Letterboxd import: Preview ready');
      // Skipped: counted, said, none with a count of 0.
      expect(text).toContain(
        'Not imported The file also holds these, which cinelog cannot keep yet; they would be counted and left out: 13 movies on Letterboxd lists 4 liked films',
      );
      expect(text).not.toContain('TV episodes');
      // The unreadable row without a title: its reason, and nothing to search for.
      expect(text).toContain(
        '(no title) a row that cannot be read Const is "123", not an IMDb id (tt…). ratings.csv, line 7 –',
      );
      expect(page.body).not.toContain('Find it<span class="visually-hidden">: </span>');
      expect(text).toContain(
        'Harbour Lights (1999) a watchlist entry No movie matches it. watchlist.csv, line 3 imdb tt0000001',
      );
      expect(page.body).toContain('href="/search?q=Harbour+Lights"');
      expect(text).toContain('… and 500 more: an import lists the first 500 unmatched rows.');
      // Guesses: a preview's movie not stored yet links to TMDB; a stored one to its page here.
      expect(text).toContain(
        'Loving (2017) Loving (2016), on TMDB same title, the year one off a rating diary.csv, line 12',
      );
      expect(page.body).toContain('href="https://www.themoviedb.org/movie/339419"');
      expect(text).toContain(
        'Ninefold Ninefold (2020) same title (the file gives no year) a play NetflixViewingHistory.csv, line 2',
      );
      expect(page.body).toContain('href="/movies/41-ninefold"');
      expect(page.body).toContain('href="/search?q=Loving"');
      expect(text).toContain('… and 1 more matched by a guess: an import lists the first 500.');
    }
  });

  it('says when nothing was guessed, skipped or left out, and reads a summary kept by an older version', async () => {
    const clean = await browser.get(await finishedImport(summaryJson()));
    expect(clean.statusCode).toBe(200);
    const text = textOf(clean.body);
    expect(text).toContain('Not imported Nothing: the file holds nothing that cinelog cannot keep.');
    expect(text).toContain('Matched by a guess No row was matched by a guess');
    expect(text).toContain('Every row matched a movie Nothing was left out.');

    // Before reasons, skipped counts and guesses were kept: the rows read as unmatched, nothing else.
    const {
      skipped: _s,
      guessed: _g,
      guesses: _l,
      ...old
    } = JSON.parse(
      summaryJson({
        unmatched: 1,
        unmatchedRows: [
          { file: 'history.csv', line: 2, kind: 'play', title: 'Gone', year: 1990, ids: '', watchedAt: null },
        ],
      }),
    );
    const older = await browser.get(await finishedImport(JSON.stringify(old), { format: 'movary' }));
    expect(older.statusCode).toBe(200);
    expect(textOf(older.body)).toContain(
      'Gone (1990) a play, no date No movie matches it. history.csv, line 2',
    );
    expect(textOf(older.body)).toContain('0 matched by a guess');
  });

  it('shows an import whose kept result is cut short (an older version kept 2,000 characters) as failed, never a 500', async () => {
    const location = await finishedImport(summaryJson().slice(0, 60));
    for (const path of [location, `${location}/status`]) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain('Letterboxd import: Failed');
      expect(text).toContain('The import stopped: the result of this import was lost: run it again.');
      expect(text).not.toContain('Unmatched rows');
    }
    const listed = await browser.get('/settings/data');
    expect(listed.statusCode).toBe(200);
    expect(textOf(listed.body)).toContain('Letterboxd Failed –');
  });

  it('says when an attempt failed and it is tried again, and when the import failed for good: nothing added', async () => {
    world.fake.failNext(1000, 500);
    const accepted = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: MOVARY_HISTORY },
    );
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const retrying = textOf((await browser.follow(accepted)).body);
    expect(retrying).toContain('Movary import: Waiting to try again');
    expect(retrying).toMatch(/The last attempt failed \(.*TMDB.*\); it is tried again shortly\./);

    for (let attempt = 0; attempt < 5; attempt++) {
      world.ctx.clock.advance(60 * 60 * 1000);
      await world.ctx.app.jobs.runner.runUntilEmpty();
    }
    const failed = await browser.follow(accepted);
    expect(failed.statusCode).toBe(200);
    const text = textOf(failed.body);
    expect(text).toContain('Movary import: Failed');
    expect(text).toMatch(/The import stopped: .*TMDB.*\. Nothing of it was added to your library\./);
    expect(failed.body).not.toContain('hx-trigger');
    expect(text).not.toContain('Unmatched rows');
    expect(await playedCount()).toBe(0);
    expect(textOf((await browser.get('/settings/data')).body)).toContain('Movary Failed –');
  });
});
