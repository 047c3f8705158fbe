import { readdirSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { strFromU8, unzipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES, type FakeTmdbMovie } from '../../../test/fake-tmdb.js';
import { createUser, type TestUser } from '../../../test/harness.js';
import { importsWorld } from '../../../test/tmdb-world.js';
import { signedInClient, textOf, WebClient } from '../../../test/web-client.js';

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

/** A multipart/form-data body as a browser sends the upload form. */
function multipart(fields: Record<string, string>, file?: { name: string; content: string | Buffer }) {
  const boundary = '----cinelogTestBoundary7MA4YWxkTrZu0gW';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          'Content-Type: text/csv\r\n\r\n',
      ),
      Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

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
    expect(readdirSync(world.importsDir)).toEqual([]);
  };

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
    for (const label of ['Movary', 'Letterboxd', 'Trakt', 'IMDb', 'cinelog']) {
      expect(page.body).toContain(`>${label}</option>`);
    }
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

  it('refuses a file past the upload limit with a 413, nothing queued', async () => {
    const huge = await upload(
      browser,
      { format: 'movary' },
      { name: 'history.csv', content: Buffer.alloc(33 * 1024 * 1024, 0x61) },
    );
    expect(huge.statusCode).toBe(413);
    await nothingQueued();
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
    expect(bobsPage.body).not.toContain('Your latest imports');
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
    expect(letterboxd.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(letterboxd.headers['content-disposition']).toBe('attachment; filename="letterboxd-alice.csv"');
    expect(letterboxd.body.split(/\r?\n/)[0]).toBe(
      'tmdbID,imdbID,Title,Year,WatchedDate,Rating10,Rewatch,Review',
    );
    expect(letterboxd.body).toContain('Ninefold');

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
