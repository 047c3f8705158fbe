import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { runCli } from '../src/cli/program.js';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  type FakeTmdbMovie,
  startFakeTmdb,
} from './fake-tmdb.js';
import { createUser, setupTestApp, type TestContext, type TestUser } from './harness.js';

/** The titles the import tests use, served by the fake TMDB; every value is made up. */
const template = FAKE_TMDB_MOVIES[5]!;
export const film = (
  id: number,
  title: string,
  release: string,
  imdb: string | null,
  original = title,
): FakeTmdbMovie => ({
  ...template,
  id,
  title,
  original_title: original,
  release_date: release,
  imdb_id: imdb,
  belongs_to_collection: null,
});
export const SALT_ROAD = film(720001, 'Salt Road Summer', '2016-07-01', 'tt9720001');
export const CARTOGRAPHER = film(
  720002,
  'The Quiet Cartographer',
  '2011-10-12',
  'tt9720002',
  'Le Cartographe silencieux',
);
export const NINEFOLD = film(720003, 'Ninefold', '2020-01-02', 'tt9720003');
export const HARBOUR = film(720004, 'Harbour Lights', '1999-05-05', 'tt9720004');
export const HARBOUR_AGAIN = film(720005, 'Harbour Lights Again', '2001-08-08', 'tt9720005');
export const FILMS = [SALT_ROAD, CARTOGRAPHER, NINEFOLD, HARBOUR, HARBOUR_AGAIN];

/**
 * For a parser's tests: a function that writes files (paths may hold folders) into a fresh directory
 * of its own, and answers its path; all of them are removed after the suite.
 */
export function exportFolders(prefix: string): (contents: Record<string, string | Uint8Array>) => string {
  const temp = mkdtempSync(join(tmpdir(), `cinelog-${prefix}-`));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  let count = 0;
  return (contents) => {
    const path = join(temp, `export-${++count}`);
    mkdirSync(path, { recursive: true });
    for (const [name, content] of Object.entries(contents)) {
      mkdirSync(dirname(join(path, name)), { recursive: true });
      writeFileSync(join(path, name), content);
    }
    return path;
  };
}

/** Lines of a CSV file, each ended by a newline. */
export const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

// biome-ignore lint/suspicious/noExplicitAny: the API's answers, read as each test needs them
type Json = any;

export interface CliImportWorld {
  readonly fake: FakeTmdb;
  readonly ctx: TestContext;
  /** A fresh directory of the test's own. */
  readonly dir: string;
  /** Signed up fresh each test, time zone Europe/Berlin. */
  readonly alice: TestUser;
  /** Runs the command line on `target` (default: the test's app); its output and last line. */
  cli(
    args: string[],
    target?: TestContext,
  ): Promise<{ code: number; stdout: string; stderr: string; lastLine: string }>;
  /** The counts the command printed on its last line. */
  counts(result: { lastLine: string }): { added: number; existing: number; unmatched: number };
  /** Writes files (paths may hold folders) into a fresh directory under the test's one; its path. */
  files(name: string, contents: Record<string, string | Uint8Array>): string;
  /** A GET of the user's API, its JSON (expects 200). */
  api(user: TestUser, path: string, target?: TestContext): Promise<Json>;
  /** Everything the user keeps, as the API answers it. */
  lists(user: TestUser, target?: TestContext): Promise<Record<string, Json>>;
}

/**
 * The world of a suite of command-line imports, set up by hooks registered where it is called: a fake
 * TMDB serving `films` (default FILMS), and for each test a fresh app, directory and user alice.
 */
export function cliImportWorld(films: readonly FakeTmdbMovie[] = FILMS): CliImportWorld {
  const state = {} as { fake: FakeTmdb; ctx: TestContext; dir: string; alice: TestUser };
  beforeAll(async () => {
    state.fake = await startFakeTmdb();
  });
  afterAll(() => state.fake?.close());
  beforeEach(async () => {
    state.fake.reset();
    for (const movie of films) state.fake.putMovie(movie);
    state.ctx = await setupTestApp();
    state.dir = mkdtempSync(join(tmpdir(), 'cinelog-import-'));
    state.alice = await createUser(state.ctx, { name: 'alice' });
    await state.ctx.users.update('alice', { timezone: 'Europe/Berlin' });
  });
  afterEach(async () => {
    await state.ctx?.close();
    if (state.dir) rmSync(state.dir, { recursive: true, force: true });
  });

  const world: CliImportWorld = {
    get fake() {
      return state.fake;
    },
    get ctx() {
      return state.ctx;
    },
    get dir() {
      return state.dir;
    },
    get alice() {
      return state.alice;
    },
    async cli(args, target = state.ctx) {
      let stdout = '';
      let stderr = '';
      const code = await runCli(args, {
        env: {
          DATABASE_URL: target.config.databaseUrl,
          TMDB_API_KEY: FAKE_TMDB_API_KEY,
          TMDB_BASE_URL: state.fake.url,
        },
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        clock: target.clock,
      });
      const lastLine = stdout.trimEnd().split('\n').at(-1) ?? '';
      return { code, stdout, stderr, lastLine };
    },
    counts: (result) => JSON.parse(result.lastLine),
    files(name, contents) {
      const path = join(state.dir, name);
      mkdirSync(path, { recursive: true });
      for (const [file, content] of Object.entries(contents)) {
        mkdirSync(dirname(join(path, file)), { recursive: true });
        writeFileSync(join(path, file), content);
      }
      return path;
    },
    async api(user, path, target = state.ctx) {
      const res = await target.app.inject({
        method: 'GET',
        url: `/api/users/${user.user.name}/${path}`,
        headers: user.auth,
      });
      expect(res.statusCode, path).toBe(200);
      return res.json();
    },
    lists: async (user, target = state.ctx) => ({
      history: await world.api(user, 'history/movies?limit=100', target),
      historyAsc: await world.api(user, 'history/movies?limit=100&sortOrder=asc', target),
      played: await world.api(user, 'played/movies?limit=100', target),
      watchlist: await world.api(user, 'watchlist/movies?limit=100', target),
      ratings: await world.api(user, 'ratings/movies?limit=100', target),
    }),
  };
  return world;
}
