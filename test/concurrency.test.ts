import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { createWebhooksService } from '../src/modules/scrobble/webhooks.service.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from './databases.js';
import { createMovie } from './harness.js';

/** What the workload sends: one request, to whichever instance the test picks. */
interface Call {
  method: 'POST' | 'PUT' | 'DELETE';
  url: string;
  body: string;
  headers: Record<string, string>;
}

async function seed(database: TestDatabase) {
  const users = createUsersService({
    credentials: endSignInsOnChange,
    db: database.db,
    clock: systemClock,
    defaultTimezone: 'UTC',
  });
  const alice = await users.create({
    name: 'alice',
    email: 'alice@example.test',
    password: 'long enough password',
  });
  const { value: token } = await createApiTokensService({ db: database.db, clock: systemClock }).create(
    alice.id,
    't',
    'never',
  );
  const clock = { now: () => new Date() } as never;
  const [m1, m2, m3, m4] = [
    await createMovie({ db: database.db, clock }, { tmdb_id: 810001 }),
    await createMovie({ db: database.db, clock }, { tmdb_id: 810002 }),
    await createMovie({ db: database.db, clock }, { tmdb_id: 810003 }),
    await createMovie({ db: database.db, clock }, { tmdb_id: 810004 }),
  ];
  const webhooks = createWebhooksService({ db: database.db, clock: systemClock, appUrl: 'http://x' });
  const plex = new URL((await webhooks.create(alice.id, 'plex')).url).pathname;
  const jellyfin = new URL((await webhooks.create(alice.id, 'jellyfin')).url).pathname;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const history = '/api/users/alice/history/movies';
  const calls: Call[] = [];
  for (let i = 0; i < 60; i++) {
    calls.push({
      method: 'POST',
      url: history,
      body: JSON.stringify([{ serviceId: m1!.id, watchedAt: '2024-01-01' }]),
      headers: auth,
    });
  }
  for (let i = 0; i < 30; i++) {
    const body = JSON.stringify([
      { serviceId: m2!.id, watchDates: [{ watchedAt: '2024-02-02', plays: 3, comment: `run ${i}` }] },
    ]);
    calls.push({ method: 'PUT', url: '/api/users/alice/played/movies', body, headers: auth });
  }
  for (let i = 0; i < 30; i++) {
    calls.push({
      method: i % 2 === 0 ? 'POST' : 'DELETE',
      url: '/api/users/alice/watchlist/movies',
      body: JSON.stringify([{ serviceId: m3!.id }, { serviceId: m4!.id }]),
      headers: auth,
    });
  }
  // The same finished watch reported 40 times by two servers: it must count once.
  const plexBody = JSON.stringify({
    event: 'media.scrobble',
    user: true,
    Account: { title: 'alice' },
    Metadata: { type: 'movie', title: 'x', Guid: [{ id: 'tmdb://810004' }], lastViewedAt: 1717243200 },
  });
  const jellyfinBody = JSON.stringify({
    NotificationType: 'PlaybackStop',
    ItemType: 'Movie',
    PlayedToCompletion: true,
    Provider_tmdb: '810004',
    UtcTimestamp: '2024-06-01T12:30:00Z',
    NotificationUsername: 'alice',
  });
  for (let i = 0; i < 20; i++) {
    calls.push({
      method: 'POST',
      url: plex,
      body: `payload=${encodeURIComponent(plexBody)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    calls.push({
      method: 'POST',
      url: jellyfin,
      body: jellyfinBody,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
  // Interleave the kinds, so that every kind overlaps every other.
  calls.sort(() => Math.random() - 0.5);
  return { calls, movies: { m1: m1!.id, m2: m2!.id, m3: m3!.id, m4: m4!.id } };
}

async function expectExactOutcome(
  database: TestDatabase,
  movies: Record<string, number>,
  statuses: number[],
) {
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
  expect(statuses.filter((s) => s !== 200 && s !== 204)).toEqual([]);
  const rows = await database.db
    .selectFrom('watch_dates')
    .select(['movie_id', 'watched_at', 'plays', 'comment'])
    .orderBy('movie_id')
    .execute();
  expect(rows.map((r) => [r.movie_id, r.watched_at, r.plays])).toEqual([
    [movies.m1, '2024-01-01', 60],
    [movies.m2, '2024-02-02', 3],
    [movies.m4, '2024-06-01', 1],
  ]);
  const counted = await database.db
    .selectFrom('webhook_events')
    .select((eb) => ['outcome', eb.fn.countAll<number>().as('n')])
    .groupBy('outcome')
    .orderBy('outcome')
    .execute();
  expect(counted.map((c) => [c.outcome, Number(c.n)])).toEqual([
    ['counted', 1],
    ['duplicate', 39],
  ]);
  const watchlist = await database.db.selectFrom('watchlist').select('movie_id').execute();
  expect(watchlist.length).toBeLessThanOrEqual(2);
}

describe('concurrent writes', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it(`${TEST_ENGINE === 'postgres' ? 'two app instances on one PostgreSQL database' : 'one process on SQLite'}: exact plays, no duplicates, no 5xx`, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.destroy());
    const { calls, movies } = await seed(database);
    const config = loadConfig({ DATABASE_URL: database.url });
    const apps: FastifyInstance[] = [];
    // PostgreSQL: two instances, each with its own pool. SQLite: one process owns the file's handle.
    for (let i = 0; i < (TEST_ENGINE === 'postgres' ? 2 : 1); i++) {
      const handle = i === 0 ? database : openDatabase(database.url, { poolSize: 5 });
      const app = await buildApp({ config, db: handle.db, tmdb: null, logger: false });
      cleanups.push(() => app.close());
      if (i > 0) cleanups.push(() => handle.close());
      apps.push(app);
    }
    const statuses = await Promise.all(
      calls.map((call, i) =>
        apps[i % apps.length]!.inject({
          method: call.method,
          url: call.url,
          payload: call.body,
          headers: call.headers,
        }).then((res) => res.statusCode),
      ),
    );
    await expectExactOutcome(database, movies, statuses);
  });

  it.runIf(TEST_ENGINE === 'sqlite')(
    'two server processes on one SQLite file: no SQLITE_BUSY, no lost write',
    async () => {
      const database = await createTestDatabase();
      cleanups.push(() => database.destroy());
      const { calls, movies } = await seed(database);
      const ports = await Promise.all([freePort(), freePort()]);
      const servers = ports.map((port) => startServer(database.url, port));
      for (const server of servers) cleanups.push(() => server.kill('SIGKILL'));
      await Promise.all(ports.map(waitHealthy));
      const statuses = await Promise.all(
        calls.map((call, i) =>
          fetch(`http://127.0.0.1:${ports[i % 2]}${call.url}`, {
            method: call.method,
            body: call.body,
            headers: call.headers,
          }).then(async (res) => {
            await res.arrayBuffer();
            return res.status;
          }),
        ),
      );
      await expectExactOutcome(database, movies, statuses);
    },
  );
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startServer(databaseUrl: string, port: number): ChildProcess {
  return spawn(process.execPath, [join(import.meta.dirname, '..', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      // The test sends every request at once, about 75 connections to each server from one address:
      // more than a client may hold by default (64, docs/configuration.md).
      MAX_CONNECTIONS_PER_CLIENT: '1024',
    },
    stdio: 'ignore',
  });
}

async function waitHealthy(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server on port ${port} did not become healthy`);
}
