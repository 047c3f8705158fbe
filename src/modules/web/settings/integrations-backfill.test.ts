import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_MEDIA_TOKEN,
  type FakeMediaServer,
  startFakeJellyfin,
  startFakePlex,
} from '../../../../test/fake-media-servers.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from '../../../../test/fake-tmdb.js';
import {
  createUser,
  secondInstance,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../../test/harness.js';
import { film } from '../../../../test/import-world.js';
import { signedInClient, textOf, WebClient } from '../../../../test/web-client.js';
import { mediaServerClient } from '../../../integrations/media-servers/media-server.client.js';
import type { MediaServerConnection } from '../../../integrations/media-servers/media-server.types.js';
import { createTmdbClient } from '../../../integrations/tmdb/tmdb.client.js';
import { BACKFILL_JOB, BACKFILL_SYNC_JOB } from '../../backfill/backfill.service.js';

const PAGE = '/settings/integrations';
const SECRET_KEY = 'a-test-server-key-of-enough-length-0123456789';
// The fake TMDB knows two of the played movies: Quiet Orchard stays unmatched.
const LANTERN = film(912001, 'The Lantern Keepers', '2011-05-05', 'tt1720001');
const COMETS = film(912002, 'Paper Comets', '2015-03-03', 'tt1720002');

let tmdb: FakeTmdb;
let plex: FakeMediaServer;
let jellyfin: FakeMediaServer;
let ctx: TestContext;
let alice: TestUser;
let browser: WebClient;

// One movie a page: Jellyfin's three played movies of anna are three pages.
const smallPages = (connection: MediaServerConnection) =>
  mediaServerClient(connection, { pageSize: 1, timeoutMs: 2_000 });
const tmdbClient = () =>
  createTmdbClient({
    apiKey: FAKE_TMDB_API_KEY,
    baseUrl: tmdb.url,
    timeoutMs: 2000,
    maxRetries: 1,
    retryBaseDelayMs: 1,
  });

beforeAll(async () => {
  tmdb = await startFakeTmdb();
  plex = await startFakePlex();
  jellyfin = await startFakeJellyfin();
});
afterAll(async () => {
  await tmdb.close();
  await plex.close();
  await jellyfin.close();
});
beforeEach(async () => {
  tmdb.reset();
  tmdb.putMovie(LANTERN);
  tmdb.putMovie(COMETS);
  ctx = await setupTestApp({ tmdb: tmdbClient(), env: { SECRET_KEY }, mediaServers: smallPages });
  alice = await createUser(ctx, { name: 'alice' });
  await ctx.users.update('alice', { timezone: 'Pacific/Auckland' });
  browser = await signedInClient(ctx.app, 'alice');
});
afterEach(async () => {
  plex.setFailure(null);
  jellyfin.setFailure(null);
  await ctx.close();
});

const connections = () => ctx.db.selectFrom('media_server_connections').selectAll().execute();
const plays = (userId: number) =>
  ctx.db
    .selectFrom('watch_dates as w')
    .innerJoin('movies as m', 'm.id', 'w.movie_id')
    .select(['m.tmdb_id', 'w.watched_at', 'w.plays'])
    .where('w.user_id', '=', userId)
    .orderBy('m.tmdb_id')
    .orderBy('w.watched_at')
    .execute();
const totalPlays = async (userId: number) =>
  (await plays(userId)).reduce((sum, row) => sum + Number(row.plays), 0);

async function connectJellyfin(client = browser) {
  const connected = await client.submit(PAGE, `${PAGE}/jellyfin/connection`, {
    url: jellyfin.url,
    token: FAKE_MEDIA_TOKEN,
    serverUser: 'anna',
  });
  expect(connected.statusCode, connected.body).toBe(303);
}

describe('Settings → Integrations: a media server connection', () => {
  it('requires sign-in, for the page and each form', async () => {
    const anonymous = new WebClient(ctx.app);
    const page = await anonymous.get(PAGE);
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/^\/login/);
    for (const action of [
      'connection',
      'connection/token',
      'connection/delete',
      'connection/sync',
      'backfill',
    ]) {
      const sent = await anonymous.post(`${PAGE}/plex/${action}`, {
        url: plex.url,
        token: FAKE_MEDIA_TOKEN,
      });
      expect(sent.statusCode, action).not.toBe(200);
      expect(sent.statusCode, action).toBeLessThan(500);
    }
    expect(await connections()).toEqual([]);
  });

  it('connects Plex: the token is sealed in the database and never shown again', async () => {
    const before = await browser.get(PAGE);
    expect(textOf(before.body)).toContain('Past plays from Plex');
    const connected = await browser.submit(PAGE, `${PAGE}/plex/connection`, {
      url: `${plex.url}/`,
      token: FAKE_MEDIA_TOKEN,
    });
    expect(connected.statusCode).toBe(303);
    const page = await browser.follow(connected);
    expect(page.body).not.toContain(FAKE_MEDIA_TOKEN);
    expect(textOf(page.body)).toContain('Connected to Plex');
    expect(textOf(page.body)).toContain(plex.url);

    const [row] = await connections();
    expect(row).toMatchObject({ user_id: alice.user.id, server: 'plex', url: plex.url, sync_hours: null });
    expect(row!.token).not.toContain(FAKE_MEDIA_TOKEN);
    expect(row!.token).toMatch(/^v1\./);
  });

  it('refuses a wrong token, a wrong URL, a server that answers garbage: the page says why, nothing saved', async () => {
    const wrongToken = await browser.submit(PAGE, `${PAGE}/plex/connection`, {
      url: plex.url,
      token: 'not-the-token',
    });
    expect(wrongToken.statusCode).toBe(400);
    expect(wrongToken.body).not.toContain('not-the-token');
    expect(textOf(wrongToken.body)).toMatch(/token/i);

    const notUrl = await browser.submit(PAGE, `${PAGE}/plex/connection`, { url: 'plex', token: 'x' });
    expect(notUrl.statusCode).toBe(400);
    expect(textOf(notUrl.body)).toContain('the server URL must be a full URL');

    plex.setFailure({ mode: 'html' });
    const garbage = await browser.submit(PAGE, `${PAGE}/plex/connection`, {
      url: plex.url,
      token: FAKE_MEDIA_TOKEN,
    });
    expect(garbage.statusCode).toBe(400);
    expect(await connections()).toEqual([]);
  });

  it('refuses a form without its CSRF token', async () => {
    await browser.get(PAGE);
    const sent = await browser.post(`${PAGE}/plex/connection`, {
      _csrf: '',
      url: plex.url,
      token: FAKE_MEDIA_TOKEN,
    });
    expect(sent.statusCode).toBe(403);
    expect(await connections()).toEqual([]);
  });

  it('Jellyfin: whose plays is picked from the list the server gives', async () => {
    const connected = await browser.submit(PAGE, `${PAGE}/jellyfin/connection`, {
      url: jellyfin.url,
      token: FAKE_MEDIA_TOKEN,
    });
    expect(connected.headers.location).toBe(`${PAGE}?pick=jellyfin#jellyfin-backfill`);
    const pick = await browser.follow(connected);
    expect(pick.statusCode).toBe(200);
    const options = [...pick.body.matchAll(/<option value="([0-9a-f]+)"[^>]*>([^<]+)<\/option>/g)];
    expect(options.map((o) => o[2])).toEqual(['anna', 'Bernd']);
    const chosen = await browser.post(`${PAGE}/jellyfin/connection/user`, { serverUser: options[1]![1]! });
    expect(chosen.statusCode).toBe(303);
    expect((await connections())[0]!.server_user).toBe(options[1]![1]);

    const unknown = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/user`, { serverUser: 'nobody' });
    expect(unknown.statusCode).toBe(400);
    expect((await connections())[0]!.server_user).toBe(options[1]![1]);
  });

  it("replaces the token (checked first), and removes the connection; another user's is never shown or touched", async () => {
    await connectJellyfin();
    const sealed = (await connections())[0]!.token;
    const wrong = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/token`, { token: 'wrong-key' });
    expect(wrong.statusCode).toBe(400);
    expect((await connections())[0]!.token).toBe(sealed);
    const replaced = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/token`, {
      token: FAKE_MEDIA_TOKEN,
    });
    expect(replaced.statusCode).toBe(303);
    expect((await connections())[0]!.token).not.toBe(sealed);

    await createUser(ctx, { name: 'bob' });
    const bob = await signedInClient(ctx.app, 'bob');
    const bobsPage = await bob.get(PAGE);
    expect(bobsPage.body).not.toContain(jellyfin.url);
    expect(textOf(bobsPage.body)).toContain('Connect Jellyfin');
    const bobRemoves = await bob.submit(PAGE, `${PAGE}/jellyfin/connection/delete`);
    expect(bobRemoves.statusCode).toBe(303);
    expect(textOf((await bob.follow(bobRemoves)).body)).toContain(
      'There was no Jellyfin connection to remove',
    );
    const bobRuns = await bob.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    expect(bobRuns.statusCode).toBe(400);
    const bobSyncs = await bob.submit(PAGE, `${PAGE}/jellyfin/connection/sync`, { sync: 'on', hours: '2' });
    expect(bobSyncs.statusCode).toBe(400);
    expect(await connections()).toHaveLength(1);
    expect((await connections())[0]!.sync_hours).toBeNull();

    const page = await browser.get(PAGE);
    expect(page.body).toContain('Yes, remove the Jellyfin connection');
    const removed = await browser.post(`${PAGE}/jellyfin/connection/delete`);
    expect(removed.statusCode).toBe(303);
    expect(await connections()).toEqual([]);
  });
});

describe('Settings → Integrations: backing up past plays', () => {
  it('a preview, then the backfill: progress, counts, the unmatched movie with "Find it"; again adds nothing', async () => {
    await connectJellyfin();
    const preview = await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`, { dryRun: 'on' });
    expect(preview.statusCode).toBe(303);
    const waiting = await browser.follow(preview);
    expect(textOf(waiting.body)).toContain('Preview: Waiting to start');
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await plays(alice.user.id)).toEqual([]);
    const previewed = textOf((await browser.get(PAGE)).body);
    expect(previewed).toContain('Last preview');
    expect(previewed).toMatch(/5 would be added 0 already there 1 unmatched/);

    await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await totalPlays(alice.user.id)).toBe(5);
    const done = await browser.get(PAGE);
    expect(textOf(done.body)).toMatch(/5 added 0 already there 1 unmatched/);
    expect(done.body).toContain('Quiet Orchard');
    expect(done.body).toContain('href="/search?q=Quiet+Orchard&amp;date=2024-03-04"');
    expect(done.body).not.toContain(FAKE_MEDIA_TOKEN);

    await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    await ctx.app.jobs.runner.runUntilEmpty();
    expect(await totalPlays(alice.user.id)).toBe(5);
    expect(textOf((await browser.get(PAGE)).body)).toMatch(/0 added 5 already there 1 unmatched/);
    const jobs = await ctx.db.selectFrom('jobs').select(['payload', 'result', 'error']).execute();
    expect(JSON.stringify(jobs)).not.toContain(FAKE_MEDIA_TOKEN);
  });

  it('a wrong token fails at once with a clear message, and writes nothing', async () => {
    await connectJellyfin();
    // The key was revoked on the server since: a fake taking another key stands for it.
    await ctx.db.updateTable('media_server_connections').set({ url: plex.url, server: 'jellyfin' }).execute();
    await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await plays(alice.user.id)).toEqual([]);
    expect(textOf((await browser.get(PAGE)).body)).toMatch(/It stopped: .+\. Nothing of it was added/);
  });

  it('survives a restart mid-way: the next run goes on from the last page it kept, then writes once', async () => {
    await connectJellyfin();
    await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    // The first page comes, then the server goes away.
    jellyfin.setFailure({ mode: 'drop', path: '/Items', after: 1 });
    jellyfin.requests.length = 0;
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    const kept = await ctx.db.selectFrom('media_server_backfill_pages').selectAll().execute();
    expect(kept).toHaveLength(1);
    expect(kept[0]!.next_cursor).toBe('1');
    expect(await plays(alice.user.id)).toEqual([]);
    const [job] = await ctx.app.jobs.queue.recent(1, BACKFILL_JOB);
    expect(job).toMatchObject({ state: 'queued', attempts: 1 });
    expect(textOf((await browser.get(PAGE)).body)).toContain('Waiting to try again');

    // Another process takes the job up once its retry is due, the server back.
    jellyfin.setFailure(null);
    jellyfin.requests.length = 0;
    ctx.clock.advance(60_000);
    const restarted = await secondInstance(ctx, { tmdb: tmdbClient(), mediaServers: smallPages });
    try {
      expect(await restarted.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    } finally {
      await restarted.close();
    }
    const first = jellyfin.requests.find((request) => request.url.includes('/Items'));
    expect(first?.url).toContain('StartIndex=1');
    expect(await totalPlays(alice.user.id)).toBe(5);
    expect(await ctx.db.selectFrom('media_server_backfill_pages').selectAll().execute()).toEqual([]);
  });

  it('the periodic sync is off by default; turned on, it adds only new plays every N hours', async () => {
    await connectJellyfin();
    const sync = () => ctx.app.jobs.queue.enqueue(BACKFILL_SYNC_JOB, null);
    await sync();
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await ctx.app.jobs.queue.recent(10, BACKFILL_JOB)).toEqual([]);

    const bad = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/sync`, { sync: 'on', hours: '0' });
    expect(bad.statusCode).toBe(400);
    const on = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/sync`, { sync: 'on', hours: '6' });
    expect(on.statusCode).toBe(303);
    expect((await connections())[0]!.sync_hours).toBe(6);
    await sync();
    await ctx.app.jobs.runner.runUntilEmpty();
    expect(await totalPlays(alice.user.id)).toBe(5);

    // A movie marked played by hand on the server meanwhile.
    const anna = jellyfin.model.users.find((user) => user.name === 'anna')!;
    const unwatched = jellyfin.model.items.find((item) => item.title === 'Unwatched Harbour')!;
    tmdb.putMovie(film(912003, 'Unwatched Harbour', '2019-01-01', 'tt1720003'));
    unwatched.plays = [{ user: anna.id, at: ['2024-06-15T09:00:00Z'] }];
    try {
      // Not due yet: nothing queued.
      ctx.clock.advance(3 * 3_600_000);
      await sync();
      await ctx.app.jobs.runner.runUntilEmpty();
      expect(await totalPlays(alice.user.id)).toBe(5);

      ctx.clock.advance(3 * 3_600_000 + 1_000);
      await sync();
      await ctx.app.jobs.runner.runUntilEmpty();
      expect(await totalPlays(alice.user.id)).toBe(6);
      expect(textOf((await browser.get(PAGE)).body)).toMatch(/Last sync, .+ 1 added 5 already there/);

      const off = await browser.submit(PAGE, `${PAGE}/jellyfin/connection/sync`, {});
      expect(off.statusCode).toBe(303);
      expect((await connections())[0]!.sync_hours).toBeNull();
    } finally {
      unwatched.plays = [];
    }
  });

  it('a server too slow to answer is tried again later, from the pages kept; nothing written meanwhile', async () => {
    await connectJellyfin();
    await browser.submit(PAGE, `${PAGE}/jellyfin/backfill`);
    // The second page takes longer than the client waits (2 s here, 30 s for real).
    jellyfin.setFailure({ mode: 'slow', path: '/Items', after: 1, delayMs: 2_500 });
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 0, failed: 1 });
    const [job] = await ctx.app.jobs.queue.recent(1, BACKFILL_JOB);
    expect(job).toMatchObject({ state: 'queued', attempts: 1 });
    expect(job!.error).toMatch(/Jellyfin/);
    expect(job!.error).not.toContain(FAKE_MEDIA_TOKEN);
    expect(await plays(alice.user.id)).toEqual([]);

    jellyfin.setFailure(null);
    ctx.clock.advance(60_000);
    expect(await ctx.app.jobs.runner.runUntilEmpty()).toEqual({ done: 1, failed: 0 });
    expect(await totalPlays(alice.user.id)).toBe(5);
  });
});
