import type { Kysely } from 'kysely';
import { type Config, loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import type { Database } from '../db/schema.js';
import { createTmdbClient } from '../integrations/tmdb/tmdb.client.js';
import { type User, UserNotFoundError, type UsersService } from '../modules/users/users.service.js';
import { createServices, type Services } from '../services.js';
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

/** The services (services.ts), and what the command line adds. */
export interface CommandContext extends Services {
  config: Config;
  db: Kysely<Database>;
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
    const tmdb = config.tmdb.apiKey
      ? createTmdbClient({ apiKey: config.tmdb.apiKey, baseUrl: config.tmdb.baseUrl })
      : null;
    // The server's services (services.ts), with no mail and one job at a time; the runner never starts
    // by itself (`cinelog jobs run` drains the queue).
    const services = createServices({
      config,
      db: database.db,
      tmdb,
      clock: io.clock ?? systemClock,
      mailer: null,
      jobsConcurrency: 1,
    });
    return await command({ ...services, config, db: database.db, appliedMigrations });
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
