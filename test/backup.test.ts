import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/program.js';
import { loadConfig } from '../src/config.js';
import { backupSqlite, checkBackupFile } from '../src/db/backup.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { BACKUP_DATABASE, scheduledBackupName } from '../src/modules/backups/backups.jobs.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { createSqliteTestDatabase, createTestDatabase, TEST_ENGINE, type TestDatabase } from './databases.js';
import { createMovie, TestClock } from './harness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One run of the command line, in-process. */
async function cli(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    clock: new TestClock(new Date('2024-06-15T12:00:00.000Z')),
  });
  return { code, stdout, stderr, lastLine: stdout.trimEnd().split('\n').at(-1) };
}

/** The built command line as its own process: the backup really is another process than the server. */
function spawnCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = join(ROOT, 'dist', 'cli', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` (npm test does)`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'cinelog.js'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

describe.runIf(TEST_ENGINE === 'sqlite')('cinelog backup and restore (SQLite)', () => {
  let database: TestDatabase;
  let dir: string;
  let app: FastifyInstance;
  const clock = new TestClock();

  beforeEach(async () => {
    database = await createSqliteTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'cinelog-backup-'));
  });
  afterEach(async () => {
    await app?.close();
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const startApp = async (db = database, env: Record<string, string> = {}) => {
    const config = loadConfig({ DATABASE_URL: db.url, IMDB_RATINGS_URL: '', IMAGE_CACHE: 'false', ...env });
    const instance = await buildApp({ config, db: db.db, tmdb: null, clock, logger: false });
    await instance.ready();
    return instance;
  };

  async function aliceWithToken(db: TestDatabase['db']) {
    const users = createUsersService({ credentials: endSignInsOnChange, db, clock, defaultTimezone: 'UTC' });
    const alice = await users.create({
      name: 'alice',
      email: 'alice@example.test',
      password: 'correct horse',
      isAdmin: true,
    });
    const { value } = await createApiTokensService({ db, clock }).create(alice.id, 'writer', 'never');
    return { alice, auth: { authorization: `Bearer ${value}` } };
  }

  /** Rows enough for a backup of many steps (about 4 MB), so that writes land between its steps. */
  async function fill(userId: number, movieIds: number[]) {
    const now = clock.now().toISOString();
    const filler = 'x'.repeat(200);
    for (let batch = 0; batch < 20; batch++) {
      await database.db
        .insertInto('watch_dates')
        .values(
          Array.from({ length: 500 }, (_, i) => ({
            user_id: userId,
            movie_id: movieIds[i % movieIds.length]!,
            watched_at: dateOf(3000 + batch * 500 + i),
            plays: 1,
            comment: filler,
            position: 1,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
  }

  const dateOf = (day: number) =>
    new Date(Date.UTC(1980, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);

  it('takes a consistent backup under write load that restores every write acknowledged before it began, into a working instance', async () => {
    app = await startApp();
    const { alice, auth } = await aliceWithToken(database.db);
    const movies: { id: number }[] = [];
    for (let i = 0; i < 4; i++) movies.push(await createMovie({ db: database.db, clock }));
    await fill(
      alice.id,
      movies.map((movie) => movie.id),
    );

    // Four writers, each sending one play after the other: writer w's i-th play is movie w on day i.
    const acked = movies.map(() => [] as { i: number; at: number }[]);
    const sentBefore = (at: number) =>
      movies.map((_, w) => acked[w]!.filter((write) => write.at <= at).length);
    let stop = false;
    const writers = movies.map(async (movie, w) => {
      for (let i = 0; !stop; i++) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/users/alice/history/movies',
          headers: auth,
          payload: [{ serviceId: movie.id, watchedAt: dateOf(i), plays: 1 }],
        });
        expect(response.statusCode).toBe(204);
        acked[w]!.push({ i, at: performance.now() });
      }
    });
    while (acked.some((writes) => writes.length < 10)) await new Promise((resolve) => setTimeout(resolve, 5));

    const out = join(dir, 'backups', 'during-writes.sqlite');
    const began = performance.now();
    const before = sentBefore(began);
    const backup = await spawnCli(['backup', '--out', out], { DATABASE_URL: database.url });
    const ended = performance.now();
    const during = movies.map((_, w) => acked[w]!.length - before[w]!);
    stop = true;
    await Promise.all(writers);

    expect(backup.stderr).toMatch(/^backed up .*test\.sqlite \(\d+ pages, [\d.]+ MiB\)/);
    expect([backup.code, backup.stdout]).toEqual([0, `${out}\n`]);
    // Writes went on while it ran: the backup did not stop the server.
    expect(during.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(checkBackupFile(out)).toMatchObject({ users: 1 });
    expect(existsSync(`${out}-wal`)).toBe(false);

    const restoredUrl = `sqlite:${join(dir, 'restored', 'cinelog.sqlite')}`;
    const restore = await cli(['restore', '--from', out], { DATABASE_URL: restoredUrl });
    expect([restore.code, restore.stderr]).toEqual([
      0,
      `restored ${out} (1 user) to ${join(dir, 'restored', 'cinelog.sqlite')}\n`,
    ]);
    expect(restore.lastLine).toBe(join(dir, 'restored', 'cinelog.sqlite'));

    const restored = openDatabase(restoredUrl);
    try {
      await migrateToLatest(restored.db);
      const rows = await restored.db
        .selectFrom('watch_dates')
        .select(['movie_id', 'watched_at'])
        .where('user_id', '=', alice.id)
        .where('watched_at', '<', dateOf(3000))
        .execute();
      movies.forEach((movie, w) => {
        const days = rows
          .filter((row) => row.movie_id === movie.id)
          .map((row) => Math.round((Date.parse(row.watched_at!) - Date.UTC(1980, 0, 1)) / 86_400_000))
          .sort((a, b) => a - b);
        // Every play acknowledged before the backup began is there...
        expect(days.length, `writer ${w}`).toBeGreaterThanOrEqual(before[w]!);
        // ...and what is there is one moment of the database: a writer's plays from its first on, no gap,
        // none it had not sent before the backup ended.
        expect(days, `writer ${w}`).toEqual(Array.from({ length: days.length }, (_, i) => i));
        expect(days.length, `writer ${w}`).toBeLessThanOrEqual(sentBefore(ended)[w]! + 1);
      });
      expect(
        await restored.db
          .selectFrom('watch_dates')
          .select('id')
          .where('watched_at', '>=', dateOf(3000))
          .execute(),
      ).toHaveLength(10_000);

      // A working instance on it: the token still signs in, the history is served.
      const restoredApp = await startApp({ ...restored, url: restoredUrl, destroy: async () => {} });
      try {
        const history = await restoredApp.inject({
          url: '/api/users/alice/history/movies?limit=5',
          headers: auth,
        });
        expect(history.statusCode).toBe(200);
        expect(history.json().watchlist).toHaveLength(5);
        const post = await restoredApp.inject({
          method: 'POST',
          url: '/api/users/alice/history/movies',
          headers: auth,
          payload: [{ serviceId: movies[0]!.id, watchedAt: '2024-01-01' }],
        });
        expect(post.statusCode).toBe(204);
      } finally {
        await restoredApp.close();
      }
    } finally {
      await restored.close();
    }
  }, 120_000);

  it('copies in bigger steps when writes keep starting it again, and still ends', async () => {
    const { alice } = await aliceWithToken(database.db);
    const movie = await createMovie({ db: database.db, clock });
    await fill(alice.id, [movie.id]);
    const writer = openDatabase(database.url);
    let stop = false;
    let day = 0;
    const writes = (async () => {
      while (!stop) {
        await writer.db
          .insertInto('ratings')
          .values({
            user_id: alice.id,
            movie_id: movie.id,
            rating: (day % 10) + 1,
            created_at: 'x',
            updated_at: 'x',
          })
          .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doUpdateSet({ rating: (day % 10) + 1 }))
          .execute();
        day += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const steps: number[] = [];
      const result = await backupSqlite(database.url.slice('sqlite:'.length), join(dir, 'busy.sqlite'), {
        pagesPerStep: 4,
        onProgress: (progress) => steps.push(progress.restarts),
      });
      expect(result.restarts).toBeGreaterThan(0);
      expect(result.pages).toBeGreaterThan(500);
      expect(checkBackupFile(result.path).users).toBe(1);
    } finally {
      stop = true;
      await writes;
      await writer.close();
    }
  }, 60_000);

  it('refuses to restore over a database in use, and changes nothing', async () => {
    const { alice } = await aliceWithToken(database.db);
    const out = join(dir, 'alice.sqlite');
    expect((await cli(['backup', '--out', out], { DATABASE_URL: database.url })).code).toBe(0);
    await createUsersService({
      credentials: endSignInsOnChange,
      db: database.db,
      clock,
      defaultTimezone: 'UTC',
    }).create({
      name: 'bob',
      email: 'bob@example.test',
      password: 'correct horse',
    });
    // The server's connections are open: the restore is refused at once.
    app = await startApp();
    const refused = await cli(['restore', '--from', out], { DATABASE_URL: database.url });
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toBe(
      `cinelog: the database ${database.url.slice('sqlite:'.length)} is in use (a running cinelog server or another program has it open): stop the server, then restore\n`,
    );
    const names = await database.db.selectFrom('users').select('name').orderBy('name').execute();
    expect(names.map((row) => row.name)).toEqual(['alice', 'bob']);
    expect(readdirSync(dir)).toEqual(['alice.sqlite']);
    expect(
      readdirSync(join(database.url.slice('sqlite:'.length), '..')).filter((name) => name.includes('restor')),
    ).toEqual([]);

    // Stopped, it goes through, and the database it replaced is kept beside it.
    await app.close();
    await database.close();
    const file = database.url.slice('sqlite:'.length);
    const done = await cli(['restore', '--from', out], { DATABASE_URL: database.url });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(
      /; the database it replaced is kept as .*test\.sqlite\.before-restore-20240615T120000Z\n$/,
    );
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = openDatabase(database.url);
    try {
      const after = await reopened.db.selectFrom('users').select(['id', 'name']).execute();
      expect(after).toEqual([{ id: alice.id, name: 'alice' }]);
    } finally {
      await reopened.close();
    }
    const kept = new SqliteDatabase(`${file}.before-restore-20240615T120000Z`, { readonly: true });
    expect(kept.prepare('select count(*) from users').pluck().get()).toBe(2);
    kept.close();
    database = { ...database, close: async () => {} };
  });

  it('restores only a whole cinelog database of a version it knows', async () => {
    const target = { DATABASE_URL: `sqlite:${join(dir, 'target.sqlite')}` };
    const notSqlite = join(dir, 'notes.txt');
    writeFileSync(
      notSqlite,
      'just some text, long enough to be more than a header of one hundred bytes'.repeat(3),
    );
    const foreign = join(dir, 'foreign.sqlite');
    const other = new SqliteDatabase(foreign);
    other.exec('create table notes (text)');
    other.close();
    const newer = join(dir, 'newer.sqlite');
    expect((await cli(['backup', '--out', newer], { DATABASE_URL: database.url })).code).toBe(0);
    const edit = new SqliteDatabase(newer);
    edit.prepare("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', 'x')").run();
    edit.close();

    const cases: [string, string][] = [
      [join(dir, 'missing.sqlite'), `no file at ${join(dir, 'missing.sqlite')}`],
      [notSqlite, `${notSqlite} is not a SQLite database`],
      [foreign, `${foreign} is a SQLite database, but not cinelog's (it has no users or migrations)`],
      [
        newer,
        `${newer} was made by a newer cinelog (migrations 9999_from_the_future): upgrade cinelog before restoring it`,
      ],
    ];
    for (const [from, message] of cases) {
      const result = await cli(['restore', '--from', from], target);
      expect([result.code, result.stderr], from).toEqual([1, `cinelog: ${message}\n`]);
    }
    expect(existsSync(join(dir, 'target.sqlite'))).toBe(false);
    const usage = await cli(['restore'], target);
    expect([usage.code, usage.stderr]).toEqual([
      2,
      "cinelog: required option '--from <file>' not specified\n",
    ]);
  });

  it('never overwrites a file with a backup', async () => {
    const out = join(dir, 'taken.sqlite');
    writeFileSync(out, 'mine');
    const result = await cli(['backup', '--out', out], { DATABASE_URL: database.url });
    expect([result.code, result.stderr]).toEqual([
      1,
      `cinelog: ${out} already exists: give the backup a new file name\n`,
    ]);
    const missing = await cli(['backup', '--out', join(dir, 'x.sqlite')], {
      DATABASE_URL: `sqlite:${join(dir, 'nothing-here.sqlite')}`,
    });
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `cinelog: no SQLite database at ${join(dir, 'nothing-here.sqlite')}\n`,
    ]);
    expect(readdirSync(dir)).toEqual(['taken.sqlite']);
  });

  it('takes scheduled backups into BACKUP_DIR as background jobs, keeping the newest BACKUP_KEEP', async () => {
    const backups = join(dir, 'scheduled');
    app = await startApp(database, { BACKUP_DIR: backups, BACKUP_KEEP: '2' });
    await aliceWithToken(database.db);
    expect(app.jobs.runner.kinds).toContain(BACKUP_DATABASE);
    const names: string[] = [];
    // The first by hand; each run queues the next one BACKUP_INTERVAL_HOURS (24) later.
    await app.jobs.queue.enqueue(BACKUP_DATABASE, null);
    for (let run = 0; run < 4; run++) {
      names.push(scheduledBackupName(clock.now()));
      const counts = await app.jobs.runner.runUntilEmpty({ kinds: [BACKUP_DATABASE] });
      expect(counts).toEqual({ done: 1, failed: 0 });
      expect(await app.jobs.runner.runUntilEmpty({ kinds: [BACKUP_DATABASE] })).toEqual({
        done: 0,
        failed: 0,
      });
      if (run === 1) writeFileSync(join(backups, 'my-notes.txt'), 'not a backup');
      clock.advance(24 * 3_600_000);
    }
    expect(names[0]).toBe('cinelog-20240615-120000Z.sqlite');
    expect(readdirSync(backups).sort()).toEqual([names[2], names[3], 'my-notes.txt'].sort());
    expect(checkBackupFile(join(backups, names[3]!)).users).toBe(1);
    const jobs = await app.jobs.queue.recent(10);
    // The next one is queued for a day later; the last one done names its file and what it deleted.
    expect(jobs[0]).toMatchObject({ kind: BACKUP_DATABASE, state: 'queued', key: 'schedule' });
    const job = jobs.find((candidate) => candidate.state === 'done');
    expect(job!.result).toContain(`${join(backups, names[3]!)} (`);
    expect(job!.result).toContain(`; deleted ${names[1]}`);
  });
});

describe('cinelog backup and restore on PostgreSQL', () => {
  it('explains pg_dump and pg_restore instead, exiting 1', async () => {
    const url = 'postgres://cinelog:secret@db.internal:5432/cinelog';
    const backup = await cli(['backup', '--out', '/tmp/never.sqlite'], { DATABASE_URL: url });
    expect([backup.code, backup.stdout]).toEqual([1, '']);
    expect(backup.stderr).toBe(
      "cinelog: cinelog backup copies SQLite databases; back up PostgreSQL with pg_dump: pg_dump --format=custom --file=cinelog.dump 'postgres://cinelog:***@db.internal:5432/cinelog' (see docs/deployment.md#backups)\n",
    );
    const restore = await cli(['restore', '--from', '/tmp/never.dump'], { DATABASE_URL: url });
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('pg_restore --clean --if-exists');
    expect(restore.stderr).not.toContain('secret');
  });

  it.runIf(TEST_ENGINE === 'postgres')('refuses BACKUP_DIR with a PostgreSQL database', async () => {
    const database = await createTestDatabase();
    try {
      expect(() => loadConfig({ DATABASE_URL: database.url, BACKUP_DIR: '/tmp/x' })).toThrow(/BACKUP_DIR/);
    } finally {
      await database.destroy();
    }
  });
});
