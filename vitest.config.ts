import { randomInt } from 'node:crypto';
import { defineConfig } from 'vitest/config';

// The whole suite runs on SQLite, and again on PostgreSQL when TEST_DATABASE_URL names a server
// (each run creates and drops its own databases there).
const postgres = process.env.TEST_DATABASE_URL;
// One seed for every adversarial property of the run (test/adversarial/fc.ts): FC_SEED, or a random one.
const FC_SEED = process.env.FC_SEED ?? String(randomInt(2 ** 31));

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          env: { CINELOG_TEST_ENGINE: 'sqlite', FC_SEED },
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
                // Pure parsers touch no database, and the SQLite driver's own tests use SQLite whatever
                // the project: once is enough. The browser tests walk the pages, which the HTTP-level
                // tests already run on both engines; but the sign-ins of a household (issue 32: single
                // sign-on, forward auth) walk on both, as their issue asks.
                exclude: [
                  'src/modules/scrobble/drivers/**',
                  'src/integrations/imdb/imdb-ratings.reader.test.ts',
                  // The media-server clients against their fake servers: no database.
                  'src/integrations/media-servers/**',
                  'src/config.test.ts',
                  'src/db/sqlite-driver.test.ts',
                  'src/db/generation.test.ts',
                  'test/browser/!(sso|forward-auth).test.ts',
                  'test/browser/browser.ts',
                  // The adversarial suite's checks of its own checkers and generators.
                  'test/adversarial/checks.test.ts',
                ],
                env: { CINELOG_TEST_ENGINE: 'postgres', FC_SEED },
                globalSetup: ['test/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
