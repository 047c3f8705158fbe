// First, before any other module loads: see shared/tick-shape.ts.
import './shared/start-first.js';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { createTmdbClient } from './integrations/tmdb/tmdb.client.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    synchronous: config.sqliteSynchronous,
  });
  await migrateToLatest(database.db);
  const tmdb = config.tmdb.apiKey
    ? createTmdbClient({ apiKey: config.tmdb.apiKey, baseUrl: config.tmdb.baseUrl })
    : null;
  const app = await buildApp({ config, db: database.db, tmdb });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stops accepting connections, waits for in-flight requests, then releases the database.
    await app.close();
    await database.close();
    // What the log holds (see shared/log-destination.ts) is written out.
    await new Promise<void>((resolve) => (app.log as unknown as Logger).flush(() => resolve()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // A long queue of connections not yet accepted (Node's default is 511; the kernel may cap it lower,
  // net.core.somaxconn): a burst of new connections waits there instead of being dropped.
  await app.listen({ port: config.port, host: config.host, backlog: 4096 });
  // Each request validator compiles on its route's first request (shared/validation.ts), not all at
  // start: compiled ahead, every route's validator took about 10 MB of RSS at rest (docs/performance.md,
  // Memory); one costs a few milliseconds once.
  // Background jobs (JOBS_CONCURRENCY at once; 0: another instance runs them).
  await app.jobs.runner.start();
  if (!config.tmdb.apiKey) app.log.warn('TMDB_API_KEY is not set: movie search and add are unavailable');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`cinelog: configuration error: ${error.message}\n`);
  } else {
    process.stderr.write(
      `cinelog: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  process.exit(1);
});
