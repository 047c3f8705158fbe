import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/program.js';
import { loadConfig } from '../src/config.js';
import { type DatabaseHandle, type Engine, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import type { Database } from '../src/db/schema.js';
import { createTmdbClient } from '../src/integrations/tmdb/tmdb.client.js';
import { createJobQueue } from '../src/jobs/queue.js';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { createFeedsService } from '../src/modules/feeds/feeds.service.js';
import { createLibrary } from '../src/modules/library/library.service.js';
import { createWebhooksService } from '../src/modules/scrobble/webhooks.service.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { createTestDatabase, TEST_ENGINE } from './databases.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from './fake-tmdb.js';
import { setRating, TestClock } from './harness.js';

const APP_URL = 'http://cinelog.test';
/** Every response is recorded, and replayed, at this instant: the same clock on both sides. */
const REPLAY_AT = '2024-09-01T10:00:00.000Z';

type Row = Record<string, unknown>;

/** A database of either engine for one test: a SQLite file (created on first open) or a PostgreSQL database. */
interface Scratch {
  url: string;
  db(): Kysely<Database>;
  destroy(): Promise<void>;
}

const scratches: Scratch[] = [];

async function scratchDatabase(engine: Engine, { migrated }: { migrated: boolean }): Promise<Scratch> {
  let scratch: Scratch;
  if (engine === 'postgres') {
    const database = await createTestDatabase({ empty: !migrated });
    scratch = { url: database.url, db: () => database.db, destroy: () => database.destroy() };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-copy-'));
    const url = `sqlite:${join(dir, 'cinelog.sqlite')}`;
    let handle: DatabaseHandle | undefined;
    const open = () => {
      handle ??= openDatabase(url);
      return handle;
    };
    if (migrated) await migrateToLatest(open().db);
    scratch = {
      url,
      db: () => open().db,
      async destroy() {
        await handle?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  scratches.push(scratch);
  return scratch;
}

afterEach(async () => {
  await Promise.all(scratches.splice(0).map((scratch) => scratch.destroy()));
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(
  args: string[],
  options: { env?: Record<string, string>; clock?: TestClock; tty?: boolean } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: options.env ?? {},
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: Object.assign(
      { write: (chunk: string) => (stderr += chunk) },
      options.tty ? { isTTY: true } : {},
    ),
    ...(options.clock && { clock: options.clock }),
  });
  return { code, stdout, stderr };
}

const copy = (from: string, to: string, tty = false) =>
  cli(['db', 'copy', '--from', from, '--to', to], { tty });

/** Every app table's rows, in a canonical order: what a copy must reproduce exactly. */
async function dump(db: Kysely<Database>): Promise<Record<string, Row[]>> {
  const tables = (await db.introspection.getTables())
    .filter((t) => !t.isView && !t.name.startsWith('kysely_') && (t.schema ?? 'public') === 'public')
    .map((t) => t.name)
    .sort();
  const result: Record<string, Row[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Row>`select * from ${sql.table(table)}`.execute(db);
    const canonical = (row: Row) =>
      JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)));
    result[table] = rows.sort((a, b) => canonical(a).localeCompare(canonical(b)));
  }
  return result;
}

function failsWithOneLine(result: CliResult, code: number, pattern: RegExp) {
  expect(result).toMatchObject({ code, stdout: '' });
  expect(result.stderr).toMatch(/^cinelog: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

const maxId = (rows: Row[] | undefined) => Math.max(0, ...(rows ?? []).map((row) => Number(row.id)));

describe('cinelog db copy', () => {
  let fake: FakeTmdb;

  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await fake.close();
  });

  async function startApp(db: Kysely<Database>, url: string, clock: TestClock): Promise<FastifyInstance> {
    const config = loadConfig({
      DATABASE_URL: url,
      APP_URL,
      TMDB_IMAGE_BASE_URL: 'http://images.test/t/p',
    });
    const tmdb = createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 });
    const app = await buildApp({ config, db, tmdb, clock, logger: false });
    await app.ready();
    return app;
  }

  /** A realistic installation, built through the app and its services on `source`. */
  async function seed(source: Scratch) {
    const db = source.db();
    const clock = new TestClock(new Date('2024-06-01T08:00:00.000Z'));
    const app = await startApp(db, source.url, clock);
    try {
      const users = createUsersService({
        credentials: endSignInsOnChange,
        db,
        clock,
        defaultTimezone: 'UTC',
      });
      const tokens = createApiTokensService({ db, clock });
      const webhooks = createWebhooksService({ db, clock, appUrl: APP_URL });
      const password = 'correct horse battery';

      const alice = await users.create({
        name: 'alice',
        email: 'alice@example.test',
        password,
        isAdmin: true,
        timezone: 'Europe/Berlin',
      });
      const bob = await users.create({ name: 'bob', email: 'bob@example.test', password });
      const carol = await users.create({ name: 'carol', email: 'carol@example.test', password });
      await users.update('carol', { privacy: 'private' });
      await users.update('bob', { watchlistAutoRemove: false });

      const token = async (userId: number, label: string, expiry: '30' | '365' | 'never') =>
        (await tokens.create(userId, label, expiry)).value;
      const aliceMain = await token(alice.id, 'main', 'never');
      const alicePhone = await token(alice.id, 'phone, expired by now', '30');
      const aliceOld = await token(alice.id, 'old laptop', 'never');
      await tokens.revoke(alice.id, aliceOld.slice(0, 16));
      const bobMain = await token(bob.id, 'main', '365');
      const carolMain = await token(carol.id, 'main', 'never');

      const as = (value: string) => ({ authorization: `Bearer ${value}` });
      const send = async (
        method: 'POST' | 'PUT' | 'DELETE',
        url: string,
        value: string,
        payload: unknown,
        status = 204,
      ) => {
        const res = await app.inject({ method, url, headers: as(value), payload: payload as object });
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
        return res;
      };
      const add = async (providerId: number) =>
        (await send('POST', '/api/movies/add', aliceMain, { providerId }, 200)).json().serviceId as number;
      const ledger = await add(710001);
      const kiel = await add(710002);
      clock.advance(60_000);
      const comets = await add(710003);
      const comets2 = await add(710004);
      const garden = await add(710006);
      // Values the provider would not send: the edges of what a row holds.
      const { id: odd } = await db
        .insertInto('movies')
        .values({
          title: 'Ödd "Öne" — 東京 🎬',
          original_title: null,
          release_date: null,
          tagline: "it's\nmulti-line\ttext \\ with a backslash",
          overview: '',
          original_language: null,
          runtime: null,
          poster_path: null,
          tmdb_id: 990_001,
          trakt_id: 2_147_483_647,
          imdb_id: null,
          letterboxd_id: 'odd-one',
          tmdb_vote_average: 0.1 + 0.2,
          tmdb_vote_count: 0,
          imdb_rating_average: -1.5e-7,
          imdb_rating_count: 2_147_483_647,
          created_at: clock.now().toISOString(),
          updated_at: '2024-06-01T08:01:02.345Z',
        })
        .returning('id')
        .executeTakeFirstOrThrow();

      const history = (name: string) => `/api/users/${name}/history/movies`;
      const played = (name: string) => `/api/users/${name}/played/movies`;
      const watchlist = (name: string) => `/api/users/${name}/watchlist/movies`;
      clock.advance(60_000);
      await send('POST', history('alice'), aliceMain, [
        {
          serviceId: ledger,
          watchedAt: '2024-05-01',
          plays: 2,
          comment: 'first 🎬 "quoted"\nsecond line',
          position: 5.5,
        },
        { serviceId: kiel, watchedAt: '2024-05-01', position: -2.25 },
        { serviceId: comets, watchedAt: '2023-12-24', comment: 'Weihnachten ü' },
        { serviceId: odd, watchedAt: '2024-05-02', plays: 3 },
        { serviceId: comets2, watchedAt: '2022-01-01', position: -2.25 },
      ]);
      // A gap in the ids: the copy keeps ids, it does not renumber.
      await send('DELETE', history('alice'), aliceMain, [{ serviceId: kiel, watchedAt: '2024-05-01' }]);
      clock.advance(3_600_000);
      await send('PUT', history('alice'), aliceMain, [
        { serviceId: kiel, watchedAt: '2024-05-03', plays: 4, comment: null, position: 1e-3 },
      ]);
      await send('POST', played('alice'), aliceMain, [
        {
          serviceId: garden,
          watchDates: [
            { watchedAt: null, plays: 2, comment: 'saw it as a kid' },
            { watchedAt: '2024-04-30' },
          ],
        },
        { serviceId: ledger, watchDates: [{ watchedAt: null }] },
      ]);
      await send('POST', history('bob'), bobMain, [
        { serviceId: kiel, watchedAt: '2024-06-01', comment: 'bob' },
      ]);
      await send('POST', played('bob'), bobMain, [{ serviceId: comets, watchDates: [{ watchedAt: null }] }]);
      await send('POST', history('carol'), carolMain, [{ serviceId: ledger, watchedAt: '2024-01-01' }]);
      // Diary entries of their own: a rating, a rewatch flag, tags (issue 30).
      await send('POST', '/api/users/alice/diary', aliceMain, [
        { serviceId: comets, watchedAt: '2023-12-24', rating: 7, rewatch: true, tags: ['Winter', 'family'] },
        { serviceId: odd, watchedAt: '2024-05-02', tags: ['winter'] },
      ]);
      // Likes and a ranked list with notes (issue 30).
      await send('PUT', '/api/users/alice/likes/movies', aliceMain, [
        { serviceId: comets },
        { serviceId: odd },
      ]);
      const list = (
        await send(
          'POST',
          '/api/users/alice/lists',
          aliceMain,
          { name: 'Winter', ranked: true, visibility: 'users' },
          201,
        )
      ).json().id as number;
      await send('PUT', `/api/users/alice/lists/${list}/movies`, aliceMain, [
        { serviceId: odd, note: 'first' },
        { serviceId: comets, position: 1 },
      ]);

      await send('POST', watchlist('alice'), aliceMain, [{ serviceId: comets2 }, { serviceId: odd }]);
      clock.advance(86_400_000);
      await send('POST', watchlist('alice'), aliceMain, [{ serviceId: garden }]);
      await send('POST', watchlist('bob'), bobMain, [{ serviceId: ledger }, { serviceId: garden }]);
      await send('POST', watchlist('carol'), carolMain, [{ serviceId: odd }]);

      const library = createLibrary({ db, clock, imageBaseUrl: 'http://images.test/t/p' });
      const rate = (userId: number, movieId: number, rating: number) =>
        setRating({ library }, userId, movieId, rating);
      await rate(alice.id, ledger, 8);
      await rate(alice.id, odd, 10);
      await rate(alice.id, comets, 3);
      await rate(bob.id, kiel, 6);

      const jellyfin = new URL((await webhooks.create(alice.id, 'jellyfin')).url).pathname;
      await webhooks.update(alice.id, 'jellyfin', { accountFilter: ['moviebuff', 'Partner'] });
      await webhooks.create(alice.id, 'plex', { scrobbleRatings: true });
      await webhooks.update(alice.id, 'plex', { scrobbleWatches: false });
      const emby = new URL((await webhooks.create(bob.id, 'emby')).url).pathname;
      // Alice's watchlist as a Radarr list: the same URL serves the same list after the move.
      const feeds = createFeedsService({ db, clock, appUrl: APP_URL, users, library });
      const radarr = new URL((await feeds.create(alice.id, 'radarr')).url).pathname;

      // A web sign-in and an open forgot-password link (hashes only, as the app stores them).
      const hour = 3_600_000;
      await db
        .insertInto('sessions')
        .values({
          user_id: alice.id,
          token_hash: 'a'.repeat(64),
          persistent: 1,
          created_at: clock.now().toISOString(),
          expires_at: new Date(clock.now().getTime() + 720 * hour).toISOString(),
        })
        .execute();
      await db
        .insertInto('password_resets')
        .values({
          user_id: bob.id,
          token_hash: 'b'.repeat(64),
          created_at: clock.now().toISOString(),
          expires_at: new Date(clock.now().getTime() + hour).toISOString(),
          used_at: null,
        })
        .execute();

      // Two-factor sign-in: sealed secrets (the copy moves them as they are), recovery-code hashes, and
      // a sign-in waiting for its code.
      await db
        .insertInto('two_factor')
        .values([
          {
            user_id: alice.id,
            secret: 'v1.c2VhbGVkLXNlY3JldA',
            enabled_at: clock.now().toISOString(),
            last_step: 57_240_000,
            pending_secret: null,
            pending_at: null,
          },
          {
            user_id: bob.id,
            secret: null,
            enabled_at: null,
            last_step: null,
            pending_secret: 'v1.cGVuZGluZw',
            pending_at: clock.now().toISOString(),
          },
        ])
        .execute();
      await db
        .insertInto('two_factor_recovery_codes')
        .values(
          ['c', 'd'].map((letter) => ({
            user_id: alice.id,
            code_hash: letter.repeat(64),
            created_at: clock.now().toISOString(),
          })),
        )
        .execute();
      await db
        .insertInto('two_factor_challenges')
        .values({
          user_id: alice.id,
          token_hash: 'e'.repeat(64),
          persistent: 1,
          next: '/settings/tokens',
          failures: 2,
          created_at: clock.now().toISOString(),
          expires_at: new Date(clock.now().getTime() + 300_000).toISOString(),
        })
        .execute();
      // Her single sign-on link, and a link on its way to the issuer.
      await db
        .insertInto('user_identities')
        .values({
          user_id: alice.id,
          issuer: 'https://sso.example.test',
          subject: 'alice-subject',
          email: 'alice@sso.example.test',
          created_at: clock.now().toISOString(),
          last_used_at: null,
        })
        .execute();
      await db
        .insertInto('oidc_logins')
        .values({
          token_hash: 'f'.repeat(64),
          state: 'state',
          nonce: 'nonce',
          code_verifier: 'verifier',
          user_id: alice.id,
          next: '/settings/account',
          created_at: clock.now().toISOString(),
          expires_at: new Date(clock.now().getTime() + 300_000).toISOString(),
        })
        .execute();
      // The ids an import gave alice's movies: hers alone, they move with her.
      await db
        .insertInto('user_external_ids')
        .values({
          user_id: alice.id,
          source: 'trakt',
          external_id: '9001',
          movie_id: ledger,
          created_at: clock.now().toISOString(),
        })
        .execute();
      // A pending job (an import of alice's), a finished one: the queue moves with the data.
      const jobs = createJobQueue({ db, clock });
      await jobs.enqueue('movies.refresh', { movieId: ledger }, { key: `movie:${ledger}` });
      await jobs.enqueue(
        'library.import',
        { userId: alice.id },
        { userId: alice.id, runAt: new Date('2030-01-01T00:00:00Z') },
      );
      await jobs.enqueue('imdb.ratings', null, { key: 'schedule', runAt: new Date('2024-07-01T00:00:00Z') });

      const stop = (overrides: Record<string, unknown> = {}) =>
        JSON.stringify({
          NotificationType: 'PlaybackStop',
          UtcTimestamp: '2024-06-02T20:15:00.1234567Z',
          Name: "The Lighthouse Keeper's Ledger",
          ItemType: 'Movie',
          Provider_tmdb: '710001',
          Provider_imdb: 'tt9710001',
          PlayedToCompletion: true,
          NotificationUsername: 'moviebuff',
          ...overrides,
        });
      const report = async (path: string, body: string, status = 200) => {
        clock.advance(60_000);
        const res = await app.inject({
          method: 'POST',
          url: path,
          payload: body,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.statusCode, res.body).toBe(status);
        return res.json().outcome as string | undefined;
      };
      const outcomes = [
        await report(jellyfin, stop()),
        await report(jellyfin, stop()),
        await report(jellyfin, stop({ NotificationUsername: 'guest' })),
        await report(jellyfin, stop({ ItemType: 'Episode' })),
        await report(jellyfin, stop({ Provider_tmdb: '799999', Provider_imdb: undefined, Name: 'Nowhere' })),
        await report(jellyfin, 'this is not json', 400),
        await report(
          emby,
          JSON.stringify({
            Event: 'playback.stop',
            Date: '2024-06-03T08:15:00.0000000Z',
            User: { Name: 'bob' },
            Item: { Name: 'Night Train to Kiel', Type: 'Movie', ProviderIds: { Tmdb: '710002' } },
            PlaybackInfo: { PlayedToCompletion: true },
          }),
        ),
      ];
      expect(outcomes).toEqual([
        'counted',
        'duplicate',
        'ignored',
        'ignored',
        'unmatched',
        undefined,
        'counted',
      ]);

      clock.set(REPLAY_AT);
      const calls = requests({
        tokens: [aliceMain, alicePhone, aliceOld, bobMain, carolMain],
        readers: [aliceMain, bobMain, carolMain],
        expired: alicePhone,
        movies: [ledger, kiel, comets, comets2, garden, odd, 999_999],
      });
      calls.push({ url: radarr, headers: {} });
      const answers = await answer(app, calls);
      const cliOutputs = await cliReads(source.url, clock);
      return { answers, cliOutputs, calls, aliceMain, jellyfin, ids: { alice: alice.id, ledger } };
    } finally {
      await app.close();
    }
  }

  interface Call {
    url: string;
    headers: Record<string, string>;
  }

  /** Every read the API offers, for every caller and owner: token checks, lists with sorts and pages, the inbox. */
  function requests(who: { tokens: string[]; readers: string[]; expired: string; movies: number[] }): Call[] {
    const calls: Call[] = [];
    const unknown = `cinelog_${'A'.repeat(43)}`;
    for (const value of [...who.tokens, unknown, 'not-a-token']) {
      calls.push({ url: '/api/authentication/token', headers: { authorization: `Bearer ${value}` } });
      calls.push({ url: '/api/authentication/token', headers: { 'x-service-token': value } });
    }
    calls.push({ url: '/api/authentication/token', headers: {} });
    const sorts = ['addedAt', 'rating', 'releaseDate', 'runtime', 'title'].flatMap((by) =>
      ['asc', 'desc'].map((order) => `?sortBy=${by}&sortOrder=${order}`),
    );
    const queries = {
      history: ['', '?sortOrder=asc', '?limit=2&page=2', '?search=paper', '?page=99'],
      watchlist: ['', ...sorts, '?limit=1&page=2', '?releaseYear=2019', '?search=%E6%9D%B1%E4%BA%AC'],
      played: ['', ...sorts, '?limit=2&page=2', '?releaseYear=2019', '?search=garden'],
      'webhook-events': [
        '',
        '?limit=2&page=2',
        '?outcome=counted',
        '?server=jellyfin',
        '?outcome=ignored&server=jellyfin',
      ],
    };
    for (const reader of [...who.readers, who.expired]) {
      for (const owner of ['alice', 'bob', 'carol', 'nobody']) {
        for (const [list, suffixes] of Object.entries(queries)) {
          const base =
            list === 'webhook-events'
              ? `/api/users/${owner}/webhook-events`
              : `/api/users/${owner}/${list}/movies`;
          for (const suffix of reader === who.expired ? [''] : suffixes) {
            calls.push({ url: `${base}${suffix}`, headers: { authorization: `Bearer ${reader}` } });
          }
        }
      }
    }
    for (const suffix of ['', '?tag=WINTER', '?year=2024&month=5', '?rewatch=true']) {
      calls.push({
        url: `/api/users/alice/diary${suffix}`,
        headers: { authorization: `Bearer ${who.readers[0]}` },
      });
    }
    calls.push({ url: '/api/users/alice/tags', headers: { authorization: `Bearer ${who.readers[0]}` } });
    for (const path of ['likes/movies', 'lists', 'lists/1']) {
      calls.push({ url: `/api/users/alice/${path}`, headers: { authorization: `Bearer ${who.readers[0]}` } });
    }
    // Alice's statistics, all time and one year: read here, so hers are up to date in the copy, while
    // what the others wrote is still pending (the copy carries both).
    for (const suffix of ['', '?year=2024']) {
      calls.push({
        url: `/api/users/alice/statistics${suffix}`,
        headers: { authorization: `Bearer ${who.readers[0]}` },
      });
    }
    // Everything stored of each movie: cast, crew, companies, collection.
    for (const movieId of who.movies) {
      calls.push({ url: `/api/movies/${movieId}`, headers: { authorization: `Bearer ${who.readers[0]}` } });
    }
    for (const reader of who.readers) {
      for (const search of ['paper', 'the', 'kiel&page=2']) {
        calls.push({
          url: `/api/movies/search?search=${search}`,
          headers: { authorization: `Bearer ${reader}` },
        });
      }
    }
    return calls;
  }

  async function answer(app: FastifyInstance, calls: Call[]) {
    const answers = [];
    for (const call of calls) {
      const res = await app.inject({ method: 'GET', url: call.url, headers: call.headers });
      answers.push({
        request: `GET ${call.url} ${JSON.stringify(call.headers)}`,
        status: res.statusCode,
        contentType: res.headers['content-type'],
        wwwAuthenticate: res.headers['www-authenticate'],
        body: res.body,
      });
    }
    return answers;
  }

  /** What the CLI shows of each user: tokens with their states and last use, webhook URLs and settings. */
  async function cliReads(url: string, clock: TestClock) {
    const outputs: CliResult[] = [];
    for (const user of ['alice', 'bob', 'carol']) {
      for (const args of [
        ['token', 'list', '--user', user, '--json'],
        ['webhook', 'list', '--user', user],
        ['feed', 'list', '--user', user],
      ]) {
        outputs.push(await cli(args, { env: { DATABASE_URL: url, APP_URL }, clock }));
      }
    }
    return outputs;
  }

  const directions: [Engine, Engine][] =
    TEST_ENGINE === 'postgres'
      ? [
          ['sqlite', 'postgres'],
          ['postgres', 'sqlite'],
        ]
      : [['sqlite', 'sqlite']];

  for (const [fromEngine, toEngine] of directions) {
    it(`moves an installation from ${fromEngine} to ${toEngine}: every API response is the same afterwards`, async () => {
      const source = await scratchDatabase(fromEngine, { migrated: true });
      // An unmigrated target: the copy migrates it first.
      const target = await scratchDatabase(toEngine, { migrated: false });
      const seeded = await seed(source);

      // The recording means something: data, other users' data, 403s and 401s.
      const statuses = seeded.answers.map((a) => a.status);
      for (const status of [200, 401, 403, 404]) expect(statuses).toContain(status);
      const aliceHistory = seeded.answers.find(
        (a) =>
          a.request.startsWith('GET /api/users/alice/history/movies ') &&
          a.request.includes(seeded.aliceMain),
      );
      // Six dated entries through the API, one through the Jellyfin webhook.
      expect(JSON.parse(aliceHistory!.body).watchlist).toHaveLength(7);
      expect(seeded.cliOutputs.every((output) => output.code === 0)).toBe(true);
      expect(seeded.cliOutputs[0]!.stdout).toContain('"state":"expired"');
      expect(seeded.cliOutputs[0]!.stdout).toContain('"state":"revoked"');
      expect(seeded.cliOutputs[1]!.stdout).toContain('users moviebuff, Partner');

      // A catch-up of another user's statistics stopped half-way (the server closing): its row moves too.
      const entry = await source
        .db()
        .selectFrom('watch_dates')
        .innerJoin('users', 'users.id', 'watch_dates.user_id')
        .select(['watch_dates.user_id', 'watch_dates.movie_id', 'watch_dates.watched_at'])
        .where('users.name', '<>', 'alice')
        .orderBy('watch_dates.id')
        .executeTakeFirstOrThrow();
      await source
        .db()
        .insertInto('statistics_counting')
        .values({ user_id: entry.user_id, movie_id: entry.movie_id, watched_at: entry.watched_at ?? '' })
        .execute();

      // A saved media-server connection (its token sealed) and a backfill's fetched page (issue 31).
      const now = new Date().toISOString();
      await source
        .db()
        .insertInto('media_server_connections')
        .values({
          user_id: entry.user_id,
          server: 'jellyfin',
          url: 'http://jellyfin.test:8096',
          token: 'v1.sealed-token',
          server_user: 'moviebuff',
          sync_hours: 12,
          last_sync_at: now,
          last_job_id: null,
          last_result: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await source
        .db()
        .insertInto('media_server_backfill_pages')
        .values({ job_id: 1, seq: 0, next_cursor: '200', total: 450, movies: '[]', created_at: now })
        .execute();

      const before = await dump(source.db());
      for (const [table, rows] of Object.entries(before))
        expect(rows.length, `rows in ${table}`).toBeGreaterThan(0);
      const total = Object.values(before).reduce((sum, rows) => sum + rows.length, 0);

      const result = await copy(source.url, target.url);
      expect(result.stderr).not.toContain('cinelog:');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${total}\n`);
      for (const [table, rows] of Object.entries(before)) {
        expect(result.stderr).toContain(`copied ${table}: ${rows.length}/${rows.length}\n`);
      }
      expect(result.stderr).toMatch(/^applied \d+ migrations? to the target: 0001_initial, /);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
        `copied ${total} rows in ${Object.keys(before).length} tables from ${source.url} to ${target.url}`,
      );

      // Row for row, value for value: text, integers, doubles, nulls and timestamps as they were.
      const copied = await dump(target.db());
      expect(copied).toEqual(before);
      expect(await dump(source.db())).toEqual(before);
      expect(copied.watch_dates).toContainEqual(expect.objectContaining({ watched_at: null, plays: 2 }));
      expect(copied.watch_dates).toContainEqual(expect.objectContaining({ position: 5.5, plays: 2 }));
      expect(copied.watch_dates).toContainEqual(expect.objectContaining({ position: -2.25 }));
      expect(copied.watch_dates).toContainEqual(expect.objectContaining({ position: 0.001, plays: 4 }));
      expect(copied.movies).toContainEqual(
        expect.objectContaining({
          title: 'Ödd "Öne" — 東京 🎬',
          tmdb_vote_average: 0.30000000000000004,
          imdb_rating_average: -1.5e-7,
          trakt_id: 2_147_483_647,
          release_date: null,
          updated_at: '2024-06-01T08:01:02.345Z',
        }),
      );
      // A movie's people, companies and collection, each stored once, their links by id.
      expect(copied.people).toContainEqual(
        expect.objectContaining({ name: '森 健二', profile_path: '/fakeProfileMori.jpg' }),
      );
      expect(copied.people!.filter((row) => row.name === 'Edda Lindqvist')).toHaveLength(1);
      expect(copied.collections).toEqual([expect.objectContaining({ name: 'Paper Comets Collection' })]);
      expect(copied.movie_cast).toContainEqual(
        expect.objectContaining({ character: 'Wren (voice)', cast_order: 0 }),
      );

      const clock = new TestClock(new Date(REPLAY_AT));
      const app = await startApp(target.db(), target.url, clock);
      try {
        const replayed = await answer(app, seeded.calls);
        for (const [i, recorded] of seeded.answers.entries()) expect(replayed[i]).toEqual(recorded);
        expect(replayed).toHaveLength(seeded.answers.length);
        expect(await cliReads(target.url, clock)).toEqual(seeded.cliOutputs);

        // New rows get new ids: the identity sequences (PostgreSQL) and AUTOINCREMENT (SQLite) moved on.
        const auth = { authorization: `Bearer ${seeded.aliceMain}` };
        const added = await app.inject({
          method: 'POST',
          url: '/api/movies/add',
          headers: auth,
          payload: { providerId: 710005 },
        });
        expect(added.statusCode, added.body).toBe(200);
        expect(added.json()).toEqual({ serviceId: maxId(before.movies) + 1 });
        const played = await app.inject({
          method: 'POST',
          url: '/api/users/alice/history/movies',
          headers: auth,
          payload: [{ serviceId: seeded.ids.ledger, watchedAt: '2024-08-31' }],
        });
        expect(played.statusCode, played.body).toBe(204);
        const scrobbled = await app.inject({
          method: 'POST',
          url: seeded.jellyfin,
          headers: { 'content-type': 'application/json' },
          payload: {
            NotificationType: 'PlaybackStop',
            UtcTimestamp: '2024-08-30T20:00:00Z',
            Name: 'Paper Comets',
            ItemType: 'Movie',
            Provider_tmdb: '710003',
            PlayedToCompletion: true,
            NotificationUsername: 'Partner',
          },
        });
        expect(scrobbled.json()).toMatchObject({ outcome: 'counted', watchDate: '2024-08-30' });
        const dave = await createUsersService({
          credentials: endSignInsOnChange,
          db: target.db(),
          clock,
          defaultTimezone: 'UTC',
        }).create({
          name: 'dave',
          email: 'dave@example.test',
          password: 'correct horse battery',
        });
        expect(dave.id).toBe(maxId(before.users) + 1);
        await createApiTokensService({ db: target.db(), clock }).create(dave.id, 'new', 'never');
        await createWebhooksService({ db: target.db(), clock, appUrl: APP_URL }).create(dave.id, 'kodi');

        const after = await dump(target.db());
        for (const table of ['movies', 'watch_dates', 'users', 'api_tokens', 'webhooks', 'webhook_events']) {
          const fresh = after[table]!.filter((row) => !before[table]!.some((old) => old.id === row.id));
          expect(
            fresh.map((row) => row.id),
            table,
          ).toEqual(Array.from({ length: fresh.length }, (_, i) => maxId(before[table]) + 1 + i));
          expect(fresh.length, table).toBeGreaterThan(0);
        }
      } finally {
        await app.close();
      }
    });
  }

  describe('refusals', () => {
    async function oneUser(db: Kysely<Database>) {
      await db
        .insertInto('users')
        .values({
          name: 'zoe',
          email: 'zoe@example.test',
          password_hash: 'not a real hash',
          is_admin: 0,
          privacy: 'users',
          timezone: 'UTC',
          watchlist_auto_remove: 1,
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: '2024-01-01T00:00:00.000Z',
        })
        .execute();
    }

    it('refuses a target that holds data and changes neither database', async () => {
      const source = await scratchDatabase('sqlite', { migrated: true });
      await oneUser(source.db());
      const target = await scratchDatabase(TEST_ENGINE, { migrated: true });
      await target.db().insertInto('genres').values({ tmdb_id: 1, name: 'Kept' }).execute();
      const [sourceBefore, targetBefore] = [await dump(source.db()), await dump(target.db())];

      failsWithOneLine(
        await copy(source.url, target.url),
        1,
        /^cinelog: the target database is not empty \(table genres holds 1 row\): db copy only fills an empty database/,
      );
      expect(await dump(source.db())).toEqual(sourceBefore);
      expect(await dump(target.db())).toEqual(targetBefore);
    });

    it('refuses the same database as --from and --to (exit 2), however the URL is spelled', async () => {
      const source = await scratchDatabase('sqlite', { migrated: true });
      const respelled = `sqlite:${relative(process.cwd(), source.url.slice('sqlite:'.length))}`;
      const pairs = [
        [source.url, source.url],
        [source.url, respelled],
        ['postgres://postgres@127.0.0.1:5432/cinelog', 'postgresql://postgres:secret@127.0.0.1/cinelog'],
      ];
      for (const [from, to] of pairs) {
        expect(await copy(from!, to!)).toEqual({
          code: 2,
          stdout: '',
          stderr: 'cinelog: --from and --to name the same database: give two different databases\n',
        });
      }
    });

    it('needs both options (exit 2)', async () => {
      expect(await cli(['db', 'copy', '--from', 'sqlite:a.sqlite'])).toEqual({
        code: 2,
        stdout: '',
        stderr: "cinelog: required option '--to <url>' not specified\n",
      });
      expect((await cli(['db', 'copy', '--to', 'sqlite:a.sqlite'])).code).toBe(2);
    });

    it('fails with one line for an unreachable or invalid URL and never prints a password', async () => {
      const target = await scratchDatabase('sqlite', { migrated: false });
      const targetFile = target.url.slice('sqlite:'.length);
      const unreachable = await copy('postgres://cinelog:s3cret-pass@127.0.0.1:1/nowhere', target.url);
      failsWithOneLine(
        unreachable,
        1,
        /^cinelog: cannot open --from postgres:\/\/cinelog:\*\*\*@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/,
      );
      expect(unreachable.stderr).not.toContain('s3cret');

      const invalid = await copy(target.url, 'mysql://root:hunter22@db/cinelog');
      failsWithOneLine(
        invalid,
        1,
        /^cinelog: --to must be sqlite:<path> or postgres:\/\/user:pass@host:port\/db \(got "mysql:\/\/root:\*\*\*@db\/cinelog"\)\n$/,
      );

      const missing = await copy(`sqlite:${join(targetFile, '..', 'missing.sqlite')}`, target.url);
      failsWithOneLine(missing, 1, /^cinelog: --from: no SQLite database at .*missing\.sqlite\n$/);
      expect(existsSync(targetFile)).toBe(false);
    });
  });

  describe('a failure halfway', () => {
    it('leaves the target empty: one transaction', async () => {
      const source = await scratchDatabase('sqlite', { migrated: true });
      const db = source.db();
      await sql`insert into users (id, name, email, password_hash, is_admin, privacy, timezone, watchlist_auto_remove, created_at, updated_at)
        values (1, 'zoe', 'zoe@example.test', 'x', 0, 'users', 'UTC', 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`.execute(
        db,
      );
      // A play of a movie that does not exist, as an old file written without foreign keys may hold.
      await sql`pragma foreign_keys = off`.execute(db);
      await sql`insert into watch_dates (user_id, movie_id, watched_at, plays, comment, position, created_at, updated_at)
        values (1, 99, '2024-01-01', 1, null, 1, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`.execute(
        db,
      );
      await sql`pragma foreign_keys = on`.execute(db);
      const target = await scratchDatabase(TEST_ENGINE, { migrated: true });

      const result = await copy(source.url, target.url);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      // Progress went out before the failure; the failure itself is the one last line.
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines.filter((line) => line.startsWith('cinelog:'))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(
        /^cinelog: copying watch_dates failed: .*foreign key.*; the target is unchanged$/i,
      );
      expect(lines).toContain('copied users: 1/1');
      const rows = Object.values(await dump(target.db())).flat();
      expect(rows).toEqual([]);
    });

    it('refuses a table it does not know instead of leaving it behind', async () => {
      const source = await scratchDatabase('sqlite', { migrated: true });
      await sql`create table notes (id integer primary key, body text)`.execute(source.db());
      await sql`insert into notes (body) values ('kept somewhere')`.execute(source.db());
      const target = await scratchDatabase(TEST_ENGINE, { migrated: true });

      failsWithOneLine(
        await copy(source.url, target.url),
        1,
        /^cinelog: the source database has tables db copy does not know: notes /,
      );
      expect(Object.values(await dump(target.db())).flat()).toEqual([]);
    });
  });

  describe('batches and progress', () => {
    async function manyMovies(count: number) {
      const source = await scratchDatabase('sqlite', { migrated: true });
      const rows = Array.from({ length: count }, (_, i) => ({
        title: `Movie ${i}`,
        original_title: null,
        release_date: i % 3 === 0 ? null : '2001-02-03',
        tagline: null,
        overview: null,
        original_language: 'en',
        runtime: i,
        poster_path: null,
        tmdb_id: 500_000 + i,
        trakt_id: null,
        imdb_id: null,
        letterboxd_id: null,
        tmdb_vote_average: i / 7,
        tmdb_vote_count: i,
        imdb_rating_average: null,
        imdb_rating_count: null,
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: null,
      }));
      for (let i = 0; i < rows.length; i += 1000) {
        await source
          .db()
          .insertInto('movies')
          .values(rows.slice(i, i + 1000))
          .execute();
      }
      // Ids with holes, so paging by key cannot rely on them being dense.
      await source.db().deleteFrom('movies').where('id', 'in', [2, 500, 501, 1000]).execute();
      return source;
    }

    it('copies in batches of 500 rows, a plain line per batch when stderr is not a terminal', async () => {
      const source = await manyMovies(1239);
      const target = await scratchDatabase(TEST_ENGINE, { migrated: false });
      const result = await copy(source.url, target.url);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('1235\n');
      const lines = result.stderr.split('\n').filter((line) => line.startsWith('copied movies'));
      expect(lines).toEqual([
        'copied movies: 500/1235',
        'copied movies: 1000/1235',
        'copied movies: 1235/1235',
      ]);
      expect(result.stderr).toContain('copied users: 0/0\n');
      expect((await dump(target.db())).movies).toEqual((await dump(source.db())).movies);
    });

    it('draws one bar per table, redrawn in place, on a terminal', async () => {
      const source = await manyMovies(1001);
      const target = await scratchDatabase(TEST_ENGINE, { migrated: false });
      const result = await copy(source.url, target.url, true);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('997\n');
      const moviesLine = result.stderr.split('\n').find((line) => line.includes('movies'))!;
      expect(moviesLine.split('\r').filter(Boolean)).toEqual([
        `copying movies           [${'#'.repeat(15)}${'.'.repeat(15)}] 500/997`,
        `copied  movies           [${'#'.repeat(30)}] 997/997`,
      ]);
    });
  });
});
