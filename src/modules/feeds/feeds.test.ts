import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { buildApp, loggerOptions } from '../../app.js';
import { runCli } from '../../cli/program.js';
import { FEED_RATE_PER_MINUTE, UNKNOWN_FEEDS_PER_MINUTE } from './feeds.routes.js';

const UNKNOWN = { error: 'FeedNotFound', message: 'no feed at this URL' };
const URL_PATTERN = /^http:\/\/cinelog\.test\/api\/feed\/radarr\/([0-9a-f-]{36})$/;

let ctx: TestContext;
let alice: TestUser;

beforeEach(async () => {
  ctx = await setupTestApp();
  alice = await createUser(ctx, { name: 'alice' });
});
afterEach(() => ctx.close());

/** Runs one command line in-process against the app's database, as an administrator would. */
async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { DATABASE_URL: ctx.config.databaseUrl, APP_URL: 'http://cinelog.test' },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    clock: ctx.clock,
  });
  return { code, stdout, stderr, lastLine: stdout.trimEnd().split('\n').at(-1) ?? '' };
}

/** The Radarr list URL of a user, made by `cinelog feed create`, as a path. */
async function createFeed(name: string): Promise<string> {
  const result = await cli(['feed', 'create', '--user', name, '--kind', 'radarr']);
  expect(result.code, result.stderr).toBe(0);
  expect(result.lastLine).toMatch(URL_PATTERN);
  return new URL(result.lastLine).pathname;
}

const read = (path: string, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: path, remoteAddress, headers });

const watchlist = (owner: TestUser, method: 'POST' | 'DELETE', ...movieIds: number[]) =>
  ctx.app
    .inject({
      method,
      url: `/api/users/${owner.user.name}/watchlist/movies`,
      headers: owner.auth,
      payload: movieIds.map((serviceId) => ({ serviceId })),
    })
    .then((res) => expect(res.statusCode, res.body).toBe(204));

/** The watchlist as the API lists it, oldest addition first: what the feed must equal. */
async function apiWatchlist(owner: TestUser) {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/api/users/${owner.user.name}/watchlist/movies?limit=100&sortOrder=asc`,
    headers: owner.auth,
  });
  expect(res.statusCode).toBe(200);
  return res.json().watchlist.map((e: { movie: { ids: { provider: number } } }) => e.movie.ids.provider);
}

describe('GET /api/feed/radarr/{uuid}', () => {
  it('lists exactly the watchlist, in the order added, as both Radarr readers read it', async () => {
    const matrix = await createMovie(ctx, {
      tmdb_id: 603,
      imdb_id: 'tt0133093',
      title: 'The Matrix',
      release_date: '1999-03-30',
    });
    const heat = await createMovie(ctx, { tmdb_id: 949, imdb_id: 'tt0113277', title: 'Heat' });
    const noImdb = await createMovie(ctx, { tmdb_id: 710003, imdb_id: null, release_date: null });
    const path = await createFeed('alice');

    const empty = await read(path);
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(empty.headers['cache-control']).toBe('no-store');
    expect(empty.json()).toEqual([]);

    await watchlist(alice, 'POST', heat.id);
    ctx.clock.advance(60_000);
    await watchlist(alice, 'POST', matrix.id, noImdb.id);
    const listed = await read(path);
    expect(listed.statusCode).toBe(200);
    const items = listed.json();
    expect(items).toEqual([
      {
        id: 949,
        tmdb_id: 949,
        imdb_id: 'tt0113277',
        title: 'Heat',
        year: expect.any(Number),
        added_at: '2024-06-15T12:00:00.000Z',
      },
      {
        id: 603,
        tmdb_id: 603,
        imdb_id: 'tt0133093',
        title: 'The Matrix',
        year: 1999,
        added_at: '2024-06-15T12:01:00.000Z',
      },
      {
        id: 710003,
        tmdb_id: 710003,
        imdb_id: null,
        title: noImdb.title,
        year: null,
        added_at: '2024-06-15T12:01:00.000Z',
      },
    ]);
    expect(items.map((m: { id: number }) => m.id)).toEqual(await apiWatchlist(alice));
    // Radarr's Custom Lists reads a TMDB id as `id`, its StevenLu Custom `title` and `imdb_id`.
    for (const item of items) {
      expect(Number.isInteger(item.id) && item.id > 0).toBe(true);
      expect(typeof item.title).toBe('string');
    }

    await watchlist(alice, 'DELETE', heat.id);
    expect((await read(path)).json().map((m: { id: number }) => m.id)).toEqual([603, 710003]);
    expect((await read(path)).json().map((m: { id: number }) => m.id)).toEqual(await apiWatchlist(alice));
  });

  it('leaves out a movie without a TMDB id, which Radarr could not add', async () => {
    const kept = await createMovie(ctx, { tmdb_id: 710010 });
    const imdbOnly = await createMovie(ctx, { tmdb_id: 710011, imdb_id: 'tt7100110' });
    await ctx.db.updateTable('movies').set({ tmdb_id: null }).where('id', '=', imdbOnly.id).execute();
    await watchlist(alice, 'POST', kept.id, imdbOnly.id);
    const path = await createFeed('alice');
    expect((await read(path)).json().map((m: { id: number }) => m.id)).toEqual([710010]);
  });

  it("serves its owner's watchlist only, and needs no other credential (another user's token changes nothing)", async () => {
    const bob = await createUser(ctx, { name: 'bob' });
    const mine = await createMovie(ctx, { tmdb_id: 710020 });
    const his = await createMovie(ctx, { tmdb_id: 710021 });
    await watchlist(alice, 'POST', mine.id);
    await watchlist(bob, 'POST', his.id);
    const alices = await createFeed('alice');
    const bobs = await createFeed('bob');
    expect((await read(alices, '127.0.0.1', bob.auth)).json().map((m: { id: number }) => m.id)).toEqual([
      710020,
    ]);
    expect((await read(bobs)).json().map((m: { id: number }) => m.id)).toEqual([710021]);
  });

  it('answers the same 404 for an unknown, a malformed, a regenerated and a deleted UUID', async () => {
    const first = await createFeed('alice');
    const unknown = await read(`/api/feed/radarr/${crypto.randomUUID()}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(UNKNOWN);
    for (const malformed of [
      'not-a-uuid',
      'x',
      `${first.split('/').pop()!.toUpperCase()}`,
      '%20',
      'x'.repeat(100),
    ]) {
      const res = await read(`/api/feed/radarr/${malformed}`);
      expect(res.statusCode, malformed).toBe(404);
      expect(res.json()).toEqual(UNKNOWN);
    }
    const second = await createFeed('alice');
    expect(second).not.toBe(first);
    expect((await read(first)).json()).toEqual(UNKNOWN);
    expect((await read(second)).statusCode).toBe(200);
    expect((await cli(['feed', 'delete', '--user', 'alice', '--kind', 'radarr'])).code).toBe(0);
    const removed = await read(second);
    expect(removed.statusCode).toBe(404);
    expect(removed.json()).toEqual(UNKNOWN);
    // A webhook's UUID is no feed's.
    const webhook = await cli(['webhook', 'create', '--user', 'alice', '--server', 'plex']);
    expect((await read(`/api/feed/radarr/${webhook.lastLine.split('/').pop()}`)).json()).toEqual(UNKNOWN);
  });

  it(`takes ${FEED_RATE_PER_MINUTE} reads a minute of one URL, then answers 429 with Retry-After`, async () => {
    const alices = await createFeed('alice');
    await createUser(ctx, { name: 'bob' });
    const bobs = await createFeed('bob');
    for (let i = 0; i < FEED_RATE_PER_MINUTE; i++) expect((await read(alices)).statusCode).toBe(200);
    ctx.clock.advance(20_000);
    const limited = await read(alices);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'TooManyRequests' });
    expect(limited.headers['retry-after']).toBe('40');
    expect(limited.headers['x-ratelimit-limit']).toBe(String(FEED_RATE_PER_MINUTE));
    // Another URL has its own count; the limited one answers again once its minute is over.
    expect((await read(bobs)).statusCode).toBe(200);
    ctx.clock.advance(40_000);
    expect((await read(alices)).statusCode).toBe(200);
  });

  it('counts no row for unknown URLs, and refuses an address that keeps guessing', async () => {
    const path = await createFeed('alice');
    const rows = async () => (await ctx.db.selectFrom('rate_limits').select('key').execute()).length;
    const before = await rows();
    for (let i = 0; i < UNKNOWN_FEEDS_PER_MINUTE; i++) {
      expect((await read(`/api/feed/radarr/${crypto.randomUUID()}`, '192.0.2.66')).statusCode).toBe(404);
    }
    expect(await rows()).toBe(before);
    const refused = await read(`/api/feed/radarr/${crypto.randomUUID()}`, '192.0.2.66');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'TooManyRequests' });
    expect(refused.headers['retry-after']).toBe('60');
    expect((await read(path, '192.0.2.66')).statusCode).toBe(429);
    expect((await read(path, '192.0.2.10')).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    expect((await read(path, '192.0.2.66')).statusCode).toBe(200);
  });

  it('serves a watchlist of 5,000 movies in one document, over real HTTP', async () => {
    const COUNT = 5_000;
    const now = ctx.clock.now().toISOString();
    const movieIds: number[] = [];
    for (let start = 0; start < COUNT; start += 500) {
      const rows = await ctx.db
        .insertInto('movies')
        .values(
          Array.from({ length: 500 }, (_, i) => ({
            title: `Bulk ${start + i}`,
            original_title: null,
            tmdb_id: 2_000_000 + start + i,
            imdb_id: `tt${9_000_000 + start + i}`,
            release_date: '2001-01-01',
            created_at: now,
            updated_at: now,
          })) as never,
        )
        .returning('id')
        .execute();
      movieIds.push(...rows.map((r) => r.id));
    }
    for (let start = 0; start < COUNT; start += 1_000) {
      await ctx.library.write(alice.user.id, (lib) =>
        lib.addToWatchlist(movieIds.slice(start, start + 1_000)),
      );
    }
    const path = await createFeed('alice');
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const started = performance.now();
    const res = await fetch(`${address}${path}`);
    const items = (await res.json()) as { id: number }[];
    const ms = performance.now() - started;
    expect(res.status).toBe(200);
    expect(items).toHaveLength(COUNT);
    expect(items.map((m) => m.id)).toEqual(movieIds.map((_, i) => 2_000_000 + i));
    // A generous bound for a shared test machine (docs/webhooks.md gives the measured times).
    expect(ms).toBeLessThan(10_000);
    console.info(`radarr feed of ${COUNT} movies: ${Math.round(ms)} ms`);
  });
});

describe('the OpenAPI document', () => {
  it("describes the feed: a GET with no credential, its item's fields, 200, 404 and 429", async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const feed = doc.paths['/feed/radarr/{uuid}'];
    expect(Object.keys(feed)).toEqual(['get']);
    expect(feed.get.security).toBeUndefined();
    expect(feed.get.tags).toEqual(['feeds']);
    expect(Object.keys(feed.get.responses).sort()).toEqual(['200', '404', '429']);
    const item = feed.get.responses['200'].content['application/json'].schema.items;
    expect(Object.keys(item.properties).sort()).toEqual(
      ['added_at', 'id', 'imdb_id', 'tmdb_id', 'title', 'year'].sort(),
    );
    expect([...item.required].sort()).toEqual(Object.keys(item.properties).sort());
  });
});

describe('cinelog feed', () => {
  it('prints the URL alone on stdout; a second create regenerates it and the old URL dies', async () => {
    const first = await cli(['feed', 'create', '--user', 'alice', '--kind', 'radarr']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^http:\/\/cinelog\.test\/api\/feed\/radarr\/[0-9a-f-]{36}\n$/);
    expect(first.stderr).toBe('created the radarr feed of alice\n');
    const uuid = URL_PATTERN.exec(first.lastLine)![1];
    expect(await ctx.db.selectFrom('feeds').select(['user_id', 'kind', 'uuid']).execute()).toEqual([
      { user_id: alice.user.id, kind: 'radarr', uuid },
    ]);
    const second = await cli(['feed', 'create', '--user', 'alice', '--kind', 'radarr']);
    expect(second.lastLine).not.toBe(first.lastLine);
    expect(second.stderr).toContain('the previous URL no longer works');
    expect((await read(new URL(first.lastLine).pathname)).statusCode).toBe(404);
    expect((await read(new URL(second.lastLine).pathname)).statusCode).toBe(200);

    const listed = await cli(['feed', 'list', '--user', 'alice']);
    expect(listed.stdout).toBe(`radarr\t${second.lastLine}\n`);
    expect((await cli(['feed', 'delete', '--user', 'alice', '--kind', 'radarr'])).code).toBe(0);
    expect(await cli(['feed', 'delete', '--user', 'alice', '--kind', 'radarr'])).toMatchObject({
      code: 1,
      stderr: 'cinelog: alice has no radarr feed\n',
    });
    expect((await cli(['feed', 'list', '--user', 'alice'])).stdout).toBe('');
  });

  it('refuses an unknown user or kind, creating nothing', async () => {
    expect((await cli(['feed', 'create', '--user', 'nobody', '--kind', 'radarr'])).code).toBe(1);
    const kind = await cli(['feed', 'create', '--user', 'alice', '--kind', 'sonarr']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('radarr');
    expect(await ctx.db.selectFrom('feeds').select('id').execute()).toEqual([]);
  });

  it('goes with its user: deleting the user removes the feed, and its URL dies', async () => {
    await createUser(ctx, { name: 'keeper', isAdmin: true });
    const path = await createFeed('alice');
    await ctx.users.delete('alice');
    expect((await read(path)).json()).toEqual(UNKNOWN);
    expect(await ctx.db.selectFrom('feeds').select('id').execute()).toEqual([]);
  });
});

describe('the request log', () => {
  it('never holds a feed URL’s UUID', async () => {
    const lines: string[] = [];
    const config = { ...ctx.config, logLevel: 'trace' as const };
    const app = await buildApp({
      config,
      db: ctx.db,
      tmdb: null,
      clock: ctx.clock,
      logger: loggerOptions(config, { write: (line: string) => lines.push(line) }),
    });
    try {
      const path = await createFeed('alice');
      const uuid = path.split('/').pop()!;
      expect((await app.inject({ method: 'GET', url: `${path}?k=v` })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: path.toUpperCase() })).statusCode).toBe(404);
      const log = lines.join('');
      expect(log).toContain('"url":"/api/feed/radarr/***?k=***"');
      expect(log).not.toContain(uuid);
      expect(log.toLowerCase()).not.toContain(uuid.toLowerCase());
    } finally {
      await app.close();
    }
  });
});
