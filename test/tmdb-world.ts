import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTmdbClient } from '../src/integrations/tmdb/tmdb.client.js';
import type { TmdbClient } from '../src/integrations/tmdb/tmdb.types.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, type FakeTmdbMovie, startFakeTmdb } from './fake-tmdb.js';
import { setupTestApp, type TestContext } from './harness.js';

/**
 * A suite's world, set up by hooks registered where this is called: one fake TMDB for the suite,
 * serving `films` besides its own; for each test, a TMDB client on it (failures are not retried) and an
 * app with that client and `env()`.
 */
export function tmdbWorld(
  options: { films?: readonly FakeTmdbMovie[]; env?: () => Record<string, string> } = {},
): { readonly fake: FakeTmdb; readonly tmdb: TmdbClient; readonly ctx: TestContext } {
  const world = {} as { fake: FakeTmdb; tmdb: TmdbClient; ctx: TestContext };
  beforeAll(async () => {
    world.fake = await startFakeTmdb();
  });
  afterAll(() => world.fake?.close());
  beforeEach(async () => {
    world.fake.reset();
    for (const movie of options.films ?? []) world.fake.putMovie(movie);
    world.tmdb = createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: world.fake.url, maxRetries: 0 });
    world.ctx = await setupTestApp({ tmdb: world.tmdb, ...(options.env && { env: options.env() }) });
  });
  afterEach(async () => {
    await world.ctx?.close();
  });
  return world;
}

/** The world of a suite of uploaded imports (API and web app): tmdbWorld whose IMPORTS_DIR is fresh each test. */
export function importsWorld(films: readonly FakeTmdbMovie[]): {
  readonly fake: FakeTmdb;
  readonly ctx: TestContext;
  readonly importsDir: string;
} {
  let importsDir = '';
  const world = tmdbWorld({
    films,
    env: () => {
      importsDir = mkdtempSync(join(tmpdir(), 'cinelog-uploads-'));
      return { IMPORTS_DIR: importsDir };
    },
  });
  afterEach(() => rmSync(importsDir, { recursive: true, force: true }));
  return {
    get fake() {
      return world.fake;
    },
    get ctx() {
      return world.ctx;
    },
    get importsDir() {
      return importsDir;
    },
  };
}
