import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createTmdbClient } from '../src/integrations/tmdb/tmdb.client.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, type FakeTmdbMovie, startFakeTmdb } from './fake-tmdb.js';
import { setupTestApp, type TestContext } from './harness.js';

/**
 * The world of a suite of uploaded imports (API and web app), set up by hooks registered where this is
 * called: one fake TMDB for the suite, serving `films` besides its own; for each test, an app on it
 * (TMDB failures are not retried) whose IMPORTS_DIR is a fresh directory, removed afterwards.
 */
export function importsWorld(films: readonly FakeTmdbMovie[]): {
  readonly fake: FakeTmdb;
  readonly ctx: TestContext;
  readonly importsDir: string;
} {
  const world = {} as { fake: FakeTmdb; ctx: TestContext; importsDir: string };
  beforeAll(async () => {
    world.fake = await startFakeTmdb();
  });
  afterAll(() => world.fake?.close());
  beforeEach(async () => {
    world.fake.reset();
    for (const movie of films) world.fake.putMovie(movie);
    world.importsDir = mkdtempSync(join(tmpdir(), 'cinelog-uploads-'));
    world.ctx = await setupTestApp({
      tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: world.fake.url, maxRetries: 0 }),
      env: { IMPORTS_DIR: world.importsDir },
    });
  });
  afterEach(async () => {
    await world.ctx?.close();
    rmSync(world.importsDir, { recursive: true, force: true });
  });
  return world;
}
