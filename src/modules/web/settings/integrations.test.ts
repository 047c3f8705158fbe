import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';

const PAGE = '/settings/integrations';
const PASSWORD = 'correct horse battery';
const LAST_VIEWED = 1718445600; // 2024-06-15T10:00:00Z

let ctx: TestContext;
let alice: TestUser;
let browser: WebClient;
let ledger: { id: number; title: string; tmdbId: number };
let lantern: { id: number; title: string; tmdbId: number };

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
  // Movies already in the catalogue: the reports find them by TMDB id, without TMDB.
  ledger = await createMovie(ctx, { tmdb_id: 710001, title: "The Lighthouse Keeper's Ledger" });
  lantern = await createMovie(ctx, { tmdb_id: 710002, title: 'Lantern Season' });
  browser = await signedIn('alice');
});
afterEach(() => ctx.close());

const signedIn = (name: string) => signedInClient(ctx.app, name, { password: PASSWORD });

/** The webhook URL a page shows for a server, as the path a media server posts to. */
function urlOnPage(html: string, server: string): string | null {
  const url = new RegExp(`<code id="${server}-url">([^<]+)</code>`).exec(html)?.[1];
  return url === undefined ? null : new URL(url).pathname;
}

async function createUrl(client: WebClient, server: string): Promise<string> {
  const created = await client.submit(PAGE, `${PAGE}/${server}/url`);
  expect(created.statusCode).toBe(303);
  const path = urlOnPage((await client.follow(created)).body, server);
  if (path === null) throw new Error(`no ${server} URL on the page`);
  return path;
}

const plexReport = (movie: { tmdbId: number; title: string }, overrides: Record<string, unknown> = {}) => ({
  event: 'media.scrobble',
  user: true,
  owner: true,
  Account: { id: 7, title: 'moviebuff' },
  Server: { title: 'Attic', uuid: 'a1b2c3d4e5f6' },
  Metadata: {
    type: 'movie',
    title: movie.title,
    guid: 'plex://movie/5f00aa00bb00cc00dd00ee01',
    Guid: [{ id: `tmdb://${movie.tmdbId}` }],
    lastViewedAt: LAST_VIEWED,
  },
  ...overrides,
});

/** Posts a report as Plex does: multipart/form-data with the JSON in the `payload` part. */
function sendPlex(path: string, report: unknown) {
  const boundary = '------------------------cinelogWebTest';
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\nContent-Type: application/json\r\n\r\n` +
    `${JSON.stringify(report)}\r\n--${boundary}--\r\n`;
  return ctx.app.inject({
    method: 'POST',
    url: path,
    payload: body,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
}

const plays = (userId: number) =>
  ctx.db
    .selectFrom('watch_dates')
    .select(['movie_id', 'watched_at', 'plays'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();

const webhookRows = (userId: number) =>
  ctx.db
    .selectFrom('webhooks')
    .select(['server', 'uuid', 'scrobble_watches', 'scrobble_ratings', 'account_filter'])
    .where('user_id', '=', userId)
    .orderBy('server')
    .execute();

/** The text of one server's section of the page. */
function sectionText(html: string, server: string): string {
  const section = new RegExp(`<section class="card" id="${server}"[\\s\\S]*?</section>`).exec(html)?.[0];
  if (section === undefined) throw new Error(`no ${server} section`);
  return textOf(section);
}

describe('the integrations page', () => {
  it('shows the four servers, each with a create button, a how-to and an empty report table', async () => {
    const page = await browser.get(PAGE);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<h1>Integrations</h1>');
    for (const name of ['Plex', 'Jellyfin', 'Emby', 'Kodi']) {
      const key = name.toLowerCase();
      expect(page.body).toContain(`<h2 id="${key}-heading">${name}</h2>`);
      expect(page.body).toContain(`<form method="post" action="/settings/integrations/${key}/url#${key}">`);
      expect(page.body).toContain(`<caption>Latest ${name} reports</caption>`);
      expect(sectionText(page.body, key)).toContain(`Create ${name} webhook URL`);
      expect(sectionText(page.body, key)).toContain('No reports in the last 30 days.');
      expect(urlOnPage(page.body, key)).toBeNull();
    }
    expect(sectionText(page.body, 'plex')).toContain('media.scrobble');
    expect(sectionText(page.body, 'plex')).toContain('Plex Pass');
    expect(sectionText(page.body, 'jellyfin')).toContain('"Playback Stop"');
    expect(sectionText(page.body, 'jellyfin')).toContain('Send All Properties');
    expect(sectionText(page.body, 'emby')).toContain('playback.stop');
    expect(sectionText(page.body, 'kodi')).toContain('Movary add-on');
    // No options before there is a URL: they belong to a webhook.
    expect(page.body).not.toContain('Count finished movies as plays');
  });

  it('hints at APP_URL when the page is opened at another address than the URLs carry', async () => {
    const elsewhere = textOf((await browser.get('/settings/integrations')).body);
    expect(elsewhere).toContain('Check the address in these URLs');
    expect(elsewhere).toContain('http://cinelog.test');
    const same = await ctx.app.inject({
      method: 'GET',
      url: '/settings/integrations',
      headers: { host: 'cinelog.test', accept: 'text/html' },
      cookies: Object.fromEntries(browser.cookies),
    });
    expect(same.statusCode).toBe(200);
    expect(textOf(same.body)).not.toContain('Check the address in these URLs');
  });

  it('sends a stranger to the sign-in page', async () => {
    const stranger = new WebClient(ctx.app);
    const page = await stranger.get(PAGE);
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fsettings%2Fintegrations');
  });
});

describe('a Plex webhook URL made on the page', () => {
  it('takes a Plex scrobble, records the play for its owner and lists the report', async () => {
    await ctx.users.update('alice', { timezone: 'Europe/Berlin' });
    const created = await browser.submit(PAGE, `${PAGE}/plex/url`);
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe(PAGE);
    const page = await browser.follow(created);
    expect(textOf(page.body)).toContain('Your Plex webhook URL is ready: paste it into Plex.');

    const [row] = await webhookRows(alice.user.id);
    const url = urlOnPage(page.body, 'plex');
    expect(url).toBe(`/api/webhook/mediaserver-a/${row?.uuid}`);
    expect(page.body).toContain(
      `<code id="plex-url">http://cinelog.test/api/webhook/mediaserver-a/${row?.uuid}</code>`,
    );
    expect(page.body).toContain('<button type="button" data-copy="plex-url" hidden>Copy</button>');
    expect(sectionText(page.body, 'plex')).toContain('Regenerate Plex URL');
    expect(sectionText(page.body, 'plex')).toContain('Delete Plex URL');
    // The secret is only on the page: not in the redirect, not in the notice cookie.
    expect(JSON.stringify(created.headers)).not.toContain(row?.uuid);

    const report = await sendPlex(url ?? '', plexReport(ledger));
    expect(report.statusCode).toBe(200);
    expect(report.json()).toMatchObject({ outcome: 'counted', watchDate: '2024-06-15' });
    expect(await plays(alice.user.id)).toEqual([{ movie_id: ledger.id, watched_at: '2024-06-15', plays: 1 }]);

    const again = await sendPlex(url ?? '', { ...plexReport(ledger), event: 'media.pause' });
    expect(again.json()).toMatchObject({ outcome: 'ignored' });

    const reports = sectionText((await browser.get(PAGE)).body, 'plex');
    // Newest first; received times in the user's time zone (the test clock is 12:00 UTC).
    expect(reports).toContain(
      'Latest Plex reports Received Event Account Movie Outcome Reason ' +
        '15 Jun 2024, 14:00 media.pause moviebuff — ignored event media.pause is not a finished watch ' +
        "15 Jun 2024, 14:00 media.scrobble moviebuff The Lighthouse Keeper's Ledger counted —",
    );
    expect(sectionText((await browser.get(PAGE)).body, 'jellyfin')).toContain(
      'No reports in the last 30 days.',
    );
  });

  it('regenerates: the old URL answers 404 at once, the new one works', async () => {
    const old = await createUrl(browser, 'plex');
    const regenerated = await browser.submit(PAGE, `${PAGE}/plex/url`);
    expect(regenerated.statusCode).toBe(303);
    const page = await browser.follow(regenerated);
    expect(textOf(page.body)).toContain(
      'Your Plex webhook URL was regenerated: the old URL no longer works.',
    );
    const fresh = urlOnPage(page.body, 'plex');
    expect(fresh).not.toBeNull();
    expect(fresh).not.toBe(old);
    expect(await webhookRows(alice.user.id)).toHaveLength(1);

    expect((await sendPlex(old, plexReport(ledger))).statusCode).toBe(404);
    expect(await plays(alice.user.id)).toEqual([]);
    const report = await sendPlex(fresh ?? '', plexReport(lantern));
    expect(report.statusCode).toBe(200);
    expect(await plays(alice.user.id)).toEqual([
      { movie_id: lantern.id, watched_at: '2024-06-15', plays: 1 },
    ]);
  });

  it('deletes: the URL answers 404 and the page offers a new one', async () => {
    const url = await createUrl(browser, 'plex');
    const deleted = await browser.submit(PAGE, `${PAGE}/plex/delete`);
    expect(deleted.statusCode).toBe(303);
    const page = await browser.follow(deleted);
    expect(textOf(page.body)).toContain('Your Plex webhook URL was deleted');
    expect(urlOnPage(page.body, 'plex')).toBeNull();
    expect(sectionText(page.body, 'plex')).toContain('Create Plex webhook URL');
    expect(await webhookRows(alice.user.id)).toEqual([]);
    expect((await sendPlex(url, plexReport(ledger))).statusCode).toBe(404);
    expect(await plays(alice.user.id)).toEqual([]);

    const nothing = await browser.submit(PAGE, `${PAGE}/plex/delete`);
    expect(textOf((await browser.follow(nothing)).body)).toContain(
      'There was no Plex webhook URL to delete.',
    );
  });

  it('makes one URL per server, each with its own section', async () => {
    const plex = await createUrl(browser, 'plex');
    const kodi = await createUrl(browser, 'kodi');
    const page = await browser.get(PAGE);
    expect(urlOnPage(page.body, 'plex')).toBe(plex);
    expect(urlOnPage(page.body, 'kodi')).toBe(kodi);
    expect(kodi).toMatch(/^\/api\/webhook\/mediaserver-d\/[0-9a-f-]{36}$/);
    expect(urlOnPage(page.body, 'jellyfin')).toBeNull();
    expect((await webhookRows(alice.user.id)).map((row) => row.server)).toEqual(['kodi', 'plex']);
  });
});

describe('webhook options', () => {
  it('saves the toggles and the user filter, shows them, and reports follow them', async () => {
    const url = await createUrl(browser, 'plex');
    let page = await browser.get(PAGE);
    expect(page.body).toContain(
      '<input type="checkbox" name="watches" value="on" checked> Count finished movies as plays',
    );
    expect(page.body).toContain('<input type="checkbox" name="ratings" value="on"> Set ratings from Plex');
    expect(page.body).toContain('<label for="plex-accounts">Only reports from these Plex users</label>');
    expect(sectionText(page.body, 'plex')).toContain("Empty: everyone's.");

    // Watches off, ratings on.
    const saved = await browser.post(`${PAGE}/plex/options`, { ratings: 'on', accounts: '' });
    expect(saved.statusCode).toBe(303);
    page = await browser.follow(saved);
    expect(textOf(page.body)).toContain('Plex options saved.');
    expect(page.body).toContain(
      '<input type="checkbox" name="watches" value="on"> Count finished movies as plays',
    );
    expect(page.body).toContain(
      '<input type="checkbox" name="ratings" value="on" checked> Set ratings from Plex',
    );
    expect(await webhookRows(alice.user.id)).toMatchObject([
      { scrobble_watches: 0, scrobble_ratings: 1, account_filter: null },
    ]);
    const ignored = await sendPlex(url, plexReport(ledger));
    expect(ignored.json()).toMatchObject({
      outcome: 'ignored',
      reason: 'watch scrobbles are turned off for this webhook',
    });
    expect(await plays(alice.user.id)).toEqual([]);
    const rated = await sendPlex(url, plexReport(ledger, { event: 'media.rate', rating: 8 }));
    expect(rated.json()).toMatchObject({ outcome: 'counted', reason: 'rating set to 8' });
    expect(
      await ctx.db
        .selectFrom('ratings')
        .select(['movie_id', 'rating'])
        .where('user_id', '=', alice.user.id)
        .execute(),
    ).toEqual([{ movie_id: ledger.id, rating: 8 }]);

    // Watches back on, ratings off, only two Plex users.
    const filtered = await browser.post(`${PAGE}/plex/options`, {
      watches: 'on',
      accounts: ' Partner, moviebuff ,, partner',
    });
    expect(filtered.statusCode).toBe(303);
    page = await browser.follow(filtered);
    expect(page.body).toContain('value="Partner, moviebuff"');
    expect(await webhookRows(alice.user.id)).toMatchObject([
      { scrobble_watches: 1, scrobble_ratings: 0, account_filter: '["Partner","moviebuff"]' },
    ]);
    const stranger = await sendPlex(url, plexReport(ledger, { Account: { id: 9, title: 'houseguest' } }));
    expect(stranger.json()).toMatchObject({
      outcome: 'ignored',
      reason: "reported for houseguest, not in this webhook's user filter",
    });
    expect(await plays(alice.user.id)).toEqual([]);
    const own = await sendPlex(url, plexReport(ledger, { Account: { id: 7, title: 'MovieBuff' } }));
    expect(own.json()).toMatchObject({ outcome: 'counted' });
    expect(await plays(alice.user.id)).toHaveLength(1);

    const reports = sectionText((await browser.get(PAGE)).body, 'plex');
    expect(reports).toContain('media.scrobble houseguest — ignored reported for houseguest');
    expect(reports).toContain(
      'media.scrobble moviebuff — ignored watch scrobbles are turned off for this webhook',
    );
    expect(reports).toContain("media.rate moviebuff The Lighthouse Keeper's Ledger counted rating set to 8");

    // Emptied, the filter lets everyone's reports in again.
    await browser.post(`${PAGE}/plex/options`, { watches: 'on', accounts: '' });
    expect(await webhookRows(alice.user.id)).toMatchObject([{ account_filter: null }]);
  });

  it('has no ratings toggle for the other servers and refuses a forged one', async () => {
    await createUrl(browser, 'jellyfin');
    await browser.post(`${PAGE}/jellyfin/options`, { watches: 'on', accounts: 'moviebuff' });
    const before = await webhookRows(alice.user.id);
    expect(before).toMatchObject([
      { scrobble_watches: 1, scrobble_ratings: 0, account_filter: '["moviebuff"]' },
    ]);
    const page = await browser.get(PAGE);
    expect(sectionText(page.body, 'jellyfin')).toContain('Only reports from these Jellyfin users');
    expect(sectionText(page.body, 'jellyfin')).not.toContain('Set ratings');

    const forged = await browser.post(`${PAGE}/jellyfin/options`, { ratings: 'on', accounts: 'someone' });
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('role="alert"');
    expect(sectionText(forged.body, 'jellyfin')).toContain(
      'Jellyfin sends no ratings: only Plex ratings can be set',
    );
    expect(await webhookRows(alice.user.id)).toEqual(before);
  });

  it('has no user filter for Kodi, whose reports name no user, and refuses a forged one', async () => {
    const url = await createUrl(browser, 'kodi');
    const page = await browser.get(PAGE);
    expect(sectionText(page.body, 'kodi')).toContain('Save Kodi options');
    expect(page.body).not.toContain('kodi-accounts');
    const before = await webhookRows(alice.user.id);
    // Watches off and a filter: refused as a whole by the service, so the watches stay on.
    const forged = await browser.post(`${PAGE}/kodi/options`, { accounts: 'moviebuff' });
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('role="alert"');
    expect(sectionText(forged.body, 'kodi')).toContain(
      'Kodi reports carry no user name: a user filter would ignore all of them',
    );
    expect(before).toMatchObject([{ scrobble_watches: 1, account_filter: null }]);
    expect(await webhookRows(alice.user.id)).toEqual(before);

    const off = await browser.post(`${PAGE}/kodi/options`, {});
    expect(off.statusCode).toBe(303);
    expect(await webhookRows(alice.user.id)).toMatchObject([{ scrobble_watches: 0 }]);
    const report = await ctx.app.inject({
      method: 'POST',
      url,
      payload: JSON.stringify({ title: ledger.title, uniqueIds: { tmdbId: String(ledger.tmdbId) } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(report.json()).toMatchObject({ outcome: 'ignored' });
    expect(await plays(alice.user.id)).toEqual([]);
  });

  it('refuses bad input and changes nothing', async () => {
    // Options of a webhook that does not exist.
    const none = await browser.submit(PAGE, `${PAGE}/emby/options`, { watches: 'on' });
    expect(none.statusCode).toBe(400);
    expect(sectionText(none.body, 'emby')).toContain('no emby webhook yet: create one first');
    // A server that is not one.
    expect((await browser.post(`${PAGE}/winamp/url`)).statusCode).toBe(400);
    expect((await browser.post(`${PAGE}/winamp/delete`)).statusCode).toBe(400);
    expect(await webhookRows(alice.user.id)).toEqual([]);

    await createUrl(browser, 'plex');
    const before = await webhookRows(alice.user.id);
    const long = await browser.post(`${PAGE}/plex/options`, {
      watches: 'on',
      accounts: `ok, ${'x'.repeat(201)}`,
    });
    expect(long.statusCode).toBe(400);
    expect(sectionText(long.body, 'plex')).toContain('a user name is at most 200 characters');
    // The form keeps what was entered.
    expect(long.body).toContain(`value="ok, ${'x'.repeat(201)}"`);
    const huge = await browser.post(`${PAGE}/plex/options`, { watches: 'on', accounts: 'y'.repeat(5001) });
    expect(huge.statusCode).toBe(400);
    expect(await webhookRows(alice.user.id)).toEqual(before);
  });
});

describe('other users', () => {
  it('never see or change this user’s URL or reports', async () => {
    await createUser(ctx, { name: 'bob' });
    const url = await createUrl(browser, 'plex');
    await browser.post(`${PAGE}/plex/options`, { watches: 'on', accounts: 'moviebuff' });
    await sendPlex(url, plexReport(ledger, { Account: { id: 9, title: 'alices-plex-name' } }));
    const before = await webhookRows(alice.user.id);

    const bob = await signedIn('bob');
    const page = await bob.get(PAGE);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(before[0]?.uuid);
    expect(page.body).not.toContain('alices-plex-name');
    expect(urlOnPage(page.body, 'plex')).toBeNull();
    expect(sectionText(page.body, 'plex')).toContain('No reports in the last 30 days.');

    // Bob's actions touch Bob's webhooks only.
    expect((await bob.post(`${PAGE}/plex/delete`)).statusCode).toBe(303);
    expect((await bob.post(`${PAGE}/plex/options`, { accounts: '' })).statusCode).toBe(400);
    const bobs = await createUrl(bob, 'plex');
    expect(bobs).not.toBe(url);
    expect(await webhookRows(alice.user.id)).toEqual(before);
    expect((await sendPlex(url, plexReport(lantern))).json()).toMatchObject({ outcome: 'counted' });
    expect(await plays(alice.user.id)).toEqual([
      { movie_id: lantern.id, watched_at: '2024-06-15', plays: 1 },
    ]);
  });
});

describe('protection', () => {
  it('refuses forms without a valid CSRF token, changing nothing', async () => {
    await createUrl(browser, 'plex');
    const before = await webhookRows(alice.user.id);
    await browser.get(PAGE);
    const other = await signedIn('alice');
    await other.get(PAGE);
    for (const token of ['', 'forged-token']) {
      for (const [action, fields] of [
        ['plex/url', {}],
        ['jellyfin/url', {}],
        ['plex/delete', {}],
        ['plex/options', { accounts: 'someone' }],
      ] as const) {
        const response = await browser.post(`${PAGE}/${action}`, { ...fields, _csrf: token });
        expect(response.statusCode).toBe(403);
        expect(textOf(response.body)).toContain('This form has expired');
      }
    }
    // A token from another browser's page does not match this browser's CSRF cookie.
    await browser.get(PAGE);
    const crossed = await other.post(`${PAGE}/plex/delete`, { _csrf: browser.csrfToken() });
    expect(crossed.statusCode).toBe(403);
    expect(await webhookRows(alice.user.id)).toEqual(before);
  });

  it('sends forms of a signed-out browser to the sign-in page, changing nothing', async () => {
    await createUrl(browser, 'plex');
    const before = await webhookRows(alice.user.id);
    const stranger = new WebClient(ctx.app);
    await stranger.get('/login');
    for (const [action, fields] of [
      ['plex/url', {}],
      ['emby/url', {}],
      ['plex/delete', {}],
      ['plex/options', { accounts: 'someone' }],
    ] as const) {
      const response = await stranger.post(`${PAGE}/${action}`, fields);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/login');
    }
    expect(await webhookRows(alice.user.id)).toEqual(before);
    expect(await ctx.db.selectFrom('webhooks').select('id').execute()).toHaveLength(1);
  });

  it('escapes what media servers report', async () => {
    const url = await createUrl(browser, 'plex');
    await sendPlex(url, {
      ...plexReport(ledger),
      event: '<img src=x onerror=alert(1)>',
      Account: { id: 1, title: '<script>alert(1)</script>' },
    });
    const page = await browser.get(PAGE);
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('the Radarr list', () => {
  const FEED = `${PAGE}/feeds/radarr`;
  /** The Radarr list URL the page shows, as a path. */
  const feedOnPage = (html: string) => {
    const url = /<code id="radarr-list-url">([^<]+)<\/code>/.exec(html)?.[1];
    return url === undefined ? null : new URL(url).pathname;
  };
  const feedRows = (userId: number) =>
    ctx.db.selectFrom('feeds').select(['kind', 'uuid']).where('user_id', '=', userId).execute();
  const readFeed = (path: string) => ctx.app.inject({ method: 'GET', url: path });

  async function createFeed(client: WebClient): Promise<string> {
    const created = await client.submit(PAGE, `${FEED}/url`);
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/settings/integrations#radarr-list');
    await client.follow(created);
    const page = await client.get(PAGE);
    const path = feedOnPage(page.body);
    if (path === null) throw new Error('no Radarr list URL on the page');
    return path;
  }

  it('starts empty, with a create form, the how-to and no URL', async () => {
    const page = await browser.get(PAGE);
    const text = sectionText(page.body, 'radarr-list');
    expect(text).toContain('No Radarr list URL yet.');
    expect(text).toContain('Create Radarr list URL');
    expect(text).toContain('Settings → Import Lists');
    expect(text).toContain('Custom Lists');
    expect(text).toContain('List URL');
    expect(page.body).toContain(`<form method="post" action="${FEED}/url#radarr-list">`);
    expect(feedOnPage(page.body)).toBeNull();
  });

  it('creates the URL, which serves the watchlist; regenerating kills the old one; deleting kills it', async () => {
    await ctx.library.write(alice.user.id, (lib) => lib.addToWatchlist([ledger.id, lantern.id]));
    const first = await createFeed(browser);
    expect(first).toMatch(/^\/api\/feed\/radarr\/[0-9a-f-]{36}$/);
    const listed = await readFeed(first);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().map((m: { id: number }) => m.id)).toEqual([ledger.tmdbId, lantern.tmdbId]);

    // Both the regenerate and the delete button ask first: each posts from its own confirmation form.
    const page = await browser.get(PAGE);
    const section = /<section class="card" id="radarr-list"[\s\S]*?<\/section>/.exec(page.body)![0];
    expect(section).toContain('Regenerate the Radarr list URL? The current one stops working at once.');
    expect(section).toContain('Delete the Radarr list URL?');
    expect(section.match(/<details class="confirm">/g)).toHaveLength(2);

    const second = await createFeed(browser);
    expect(second).not.toBe(first);
    expect(textOf((await browser.get(PAGE)).body)).not.toContain(first.split('/').pop()!);
    const dead = await readFeed(first);
    expect(dead.statusCode).toBe(404);
    expect(dead.json()).toEqual({ error: 'FeedNotFound', message: 'no feed at this URL' });
    expect((await readFeed(second)).statusCode).toBe(200);

    const deleted = await browser.submit(PAGE, `${FEED}/delete`);
    expect(deleted.statusCode).toBe(303);
    expect(textOf((await browser.follow(deleted)).body)).toContain('Your Radarr list URL was deleted');
    expect((await readFeed(second)).json()).toEqual(dead.json());
    expect(await feedRows(alice.user.id)).toEqual([]);
    expect(feedOnPage((await browser.get(PAGE)).body)).toBeNull();
  });

  it("never shows or changes another user's Radarr list", async () => {
    await createUser(ctx, { name: 'bob' });
    const alices = await createFeed(browser);
    const before = await feedRows(alice.user.id);
    const bob = await signedIn('bob');
    const page = await bob.get(PAGE);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(before[0]!.uuid);
    expect(feedOnPage(page.body)).toBeNull();
    expect((await bob.post(`${FEED}/delete`)).statusCode).toBe(303);
    const bobs = await createFeed(bob);
    expect(bobs).not.toBe(alices);
    expect(await feedRows(alice.user.id)).toEqual(before);
    expect((await readFeed(alices)).statusCode).toBe(200);
  });

  it('refuses forms without a valid CSRF token and sends a signed-out browser to sign in, changing nothing', async () => {
    await createFeed(browser);
    const before = await feedRows(alice.user.id);
    await browser.get(PAGE);
    for (const action of ['url', 'delete']) {
      for (const token of ['', 'forged-token']) {
        const response = await browser.post(`${FEED}/${action}`, { _csrf: token });
        expect(response.statusCode).toBe(403);
        expect(textOf(response.body)).toContain('This form has expired');
      }
      const stranger = new WebClient(ctx.app);
      await stranger.get('/login');
      const refused = await stranger.post(`${FEED}/${action}`);
      expect(refused.statusCode).toBe(303);
      expect(refused.headers.location).toBe('/login');
    }
    expect(await feedRows(alice.user.id)).toEqual(before);
    expect(await ctx.db.selectFrom('feeds').select('id').execute()).toHaveLength(1);
  });
});
