import { defineConfig } from 'vitest/config';

// The whole suite runs on SQLite, and again on PostgreSQL when TEST_DATABASE_URL names a server
// (each run creates and drops its own databases there).
const postgres = process.env.TEST_DATABASE_URL;

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
          env: { CINELOG_TEST_ENGINE: 'sqlite' },
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
                // tests already run on both engines.
                exclude: [
                  'src/modules/scrobble/drivers/**',
                  'src/integrations/imdb/imdb-ratings.reader.test.ts',
                  'src/config.test.ts',
                  'src/db/sqlite-driver.test.ts',
                  'src/db/generation.test.ts',
                  'test/browser/**',
                ],
                env: { CINELOG_TEST_ENGINE: 'postgres' },
                globalSetup: ['test/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
