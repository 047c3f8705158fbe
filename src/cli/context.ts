import type { Kysely } from 'kysely';
import { type Config, loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import { databaseHitCounter } from '../db/rate-limit-store.js';
import type { Database } from '../db/schema.js';
import { createTmdbClient } from '../integrations/tmdb/tmdb.client.js';
import { jobKinds } from '../job-kinds.js';
import { type BackgroundJobs, createBackgroundJobs } from '../jobs/background-jobs.js';
import { type ApiTokensService, createApiTokensService } from '../modules/auth/api-tokens.service.js';
import { secretKeySource } from '../modules/auth/secret-box.js';
import { createTwoFactorService, type TwoFactorService } from '../modules/auth/two-factor.service.js';
import { publicImageBaseUrl } from '../modules/images/images.service.js';
import { createLibrary, type Library } from '../modules/library/library.service.js';
import { createMoviesService, type MoviesService } from '../modules/movies/movies.service.js';
import { createWebhooksService, type WebhooksService } from '../modules/scrobble/webhooks.service.js';
import {
  createUsersService,
  type User,
  UserNotFoundError,
  type UsersService,
} from '../modules/users/users.service.js';
import { type Clock, systemClock } from '../shared/clock.js';

/** Where a command writes: results to stdout, everything else to stderr. */
export interface OutputStream {
  write(chunk: string): unknown;
}

/** What one run of the command line reads and writes; tests pass their own. */
export interface CliIo {
  /** Handed to loadConfig; when absent, loadConfig reads the process environment. */
  env?: Readonly<Record<string, string | undefined>>;
  stdout: OutputStream;
  stderr: OutputStream;
  clock?: Clock;
}

/** The command line itself was wrong (missing or conflicting options): exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A well-formed command that cannot be carried out (names something that does not exist): exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

export interface CommandContext {
  config: Config;
  db: Kysely<Database>;
  clock: Clock;
  /** The catalogue (TMDB through TMDB_API_KEY, when set). */
  movies: MoviesService;
  /** What users keep: the one write entry point and the read side. */
  library: Library;
  /** The background job queue, and a runner for `cinelog jobs run` (never started in the background). */
  jobs: BackgroundJobs;
  users: UsersService;
  tokens: ApiTokensService;
  webhooks: WebhooksService;
  twoFactor: TwoFactorService;
  /** Names of the migrations this run applied before the command ran. */
  appliedMigrations: string[];
}

/**
 * Runs a command against the configured database: migrated first, so a fresh file works, and always
 * closed afterwards. Migrations applied on the way are noted on stderr unless the command reports them.
 */
export async function withDatabase<T>(
  io: CliIo,
  command: (context: CommandContext) => Promise<T>,
  options: { announceMigrations?: boolean } = {},
): Promise<T> {
  const config = loadConfig(io.env);
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    synchronous: config.sqliteSynchronous,
  });
  try {
    const appliedMigrations = await migrateToLatest(database.db);
    if (appliedMigrations.length > 0 && options.announceMigrations !== false) {
      io.stderr.write(
        `applied ${plural(appliedMigrations.length, 'migration')}: ${appliedMigrations.join(', ')}\n`,
      );
    }
    const clock = io.clock ?? systemClock;
    const db = database.db;
    const tmdb = config.tmdb.apiKey
      ? createTmdbClient({ apiKey: config.tmdb.apiKey, baseUrl: config.tmdb.baseUrl })
      : null;
    const library = createLibrary({ db, clock, imageBaseUrl: publicImageBaseUrl(config) });
    const movies = createMoviesService({ db, clock, tmdb, marks: library.marks });
    const users = createUsersService({ db: database.db, clock, defaultTimezone: config.timezone });
    const jobs = createBackgroundJobs({
      db,
      clock,
      kinds: jobKinds({ db, clock, config, movies, library, users }),
      options: { concurrency: 1 },
    });
    return await command({
      config,
      db,
      clock,
      movies,
      library,
      jobs,
      appliedMigrations,
      users,
      tokens: createApiTokensService({ db: database.db, clock }),
      webhooks: createWebhooksService({ db: database.db, clock, appUrl: config.appUrl }),
      twoFactor: createTwoFactorService({
        db: database.db,
        clock,
        keys: secretKeySource({ secretKey: config.secretKey, databaseUrl: config.databaseUrl }),
        hits: databaseHitCounter(database.db, clock),
      }),
    });
  } finally {
    await database.close();
  }
}

export async function requireUser(users: UsersService, name: string): Promise<User> {
  const user = await users.findByName(name);
  if (!user) throw new UserNotFoundError(name);
  return user;
}

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
