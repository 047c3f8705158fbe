import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp, type ServerTimeouts } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import type { Mailer } from '../src/integrations/mail/mailer.js';
import type { TmdbClient } from '../src/integrations/tmdb/tmdb.types.js';
import {
  type ApiTokensService,
  createApiTokensService,
  type TokenExpiry,
} from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import type { MediaServerClientFactory } from '../src/modules/backfill/backfill.service.js';
import { createLibrary, type Library } from '../src/modules/library/library.service.js';
import { createUsersService, type User, type UsersService } from '../src/modules/users/users.service.js';
import type { Clock } from '../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from './databases.js';

export type { TestDatabase };
export { createTestDatabase };

/** A clock tests can move. */
export class TestClock implements Clock {
  constructor(private current = new Date('2024-06-15T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestContext {
  app: FastifyInstance;
  db: Kysely<Database>;
  config: Config;
  clock: TestClock;
  users: UsersService;
  tokens: ApiTokensService;
  /** The library on the test's database (its own page cache: reads through the app see writes at once). */
  library: Library;
  close(): Promise<void>;
}

/** The real app on a real, fresh database of the test engine, driven in-process with `app.inject`. */
export async function setupTestApp(
  options: {
    tmdb?: TmdbClient | null;
    env?: Record<string, string>;
    timeouts?: ServerTimeouts;
    mailer?: Mailer;
    mediaServers?: MediaServerClientFactory;
    /** pino options (loggerOptions with a stream of the test's own, to read the lines); none otherwise. */
    logger?: FastifyServerOptions['logger'];
  } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: database.url,
    APP_URL: 'http://cinelog.test',
    TMDB_IMAGE_BASE_URL: 'http://images.test/t/p',
    // No daily download from IMDb in tests: a test that wants it points this at test/fake-imdb.ts.
    IMDB_RATINGS_URL: '',
    // TMDB's image URLs, as before the cache; a test of the image cache turns it on.
    IMAGE_CACHE: 'false',
    ...options.env,
  });
  const clock = new TestClock();
  const app = await buildApp({
    config,
    db: database.db,
    tmdb: options.tmdb ?? null,
    clock,
    logger: options.logger ?? false,
    ...(options.timeouts && { timeouts: options.timeouts }),
    ...(options.mailer && { mailer: options.mailer }),
    ...(options.mediaServers && { mediaServers: options.mediaServers }),
  });
  await app.ready();
  return {
    app,
    db: database.db,
    config,
    clock,
    users: createUsersService({
      credentials: endSignInsOnChange,
      db: database.db,
      clock,
      defaultTimezone: config.timezone,
    }),
    tokens: createApiTokensService({ db: database.db, clock }),
    library: createLibrary({ db: database.db, clock, imageBaseUrl: config.tmdb.imageBaseUrl }),
    async close() {
      await app.close();
      await database.destroy();
    },
  };
}

/**
 * A second instance of the app on the test's database, with its own connections: another process, as
 * far as the database and the caches can tell. `close()` stops it and closes its connections.
 */
export async function secondInstance(
  ctx: Pick<TestContext, 'config' | 'clock'>,
  options: { tmdb?: TmdbClient | null; mediaServers?: MediaServerClientFactory } = {},
) {
  const database = openDatabase(ctx.config.databaseUrl, { poolSize: 2 });
  const app = await buildApp({
    config: ctx.config,
    db: database.db,
    tmdb: options.tmdb ?? null,
    clock: ctx.clock,
    logger: false,
    ...(options.mediaServers && { mediaServers: options.mediaServers }),
  });
  return {
    app,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** Another connection (pool) to a test database, as another process would open: `close()` closes it. */
export function secondDatabaseHandle(database: Pick<TestDatabase, 'url'>) {
  return openDatabase(database.url, { poolSize: 3 });
}

let userSeq = 0;

export interface TestUser {
  user: User;
  token: string;
  /** Headers that authenticate as this user. */
  auth: { authorization: string };
}

/** A user with an active API token. */
export async function createUser(
  ctx: Pick<TestContext, 'users' | 'tokens'>,
  overrides: { name?: string; isAdmin?: boolean; privacy?: 'private' | 'users'; expiry?: TokenExpiry } = {},
): Promise<TestUser> {
  userSeq += 1;
  const name = overrides.name ?? `user${userSeq}`;
  let user = await ctx.users.create({
    name,
    email: `${name}@example.test`,
    password: 'correct horse battery',
    isAdmin: overrides.isAdmin ?? false,
  });
  if (overrides.privacy) user = await ctx.users.update(name, { privacy: overrides.privacy });
  const { value } = await ctx.tokens.create(user.id, 'test token', overrides.expiry ?? 'never');
  return { user, token: value, auth: { authorization: `Bearer ${value}` } };
}

let movieSeq = 0;

/** A movie in the local catalogue, as if added from the provider. */
export async function createMovie(
  ctx: Pick<TestContext, 'db' | 'clock'>,
  overrides: Partial<{
    title: string;
    original_title: string | null;
    release_date: string | null;
    runtime: number | null;
    tmdb_id: number;
    imdb_id: string | null;
    poster_path: string | null;
    original_language: string;
  }> = {},
): Promise<{ id: number; title: string; tmdbId: number }> {
  movieSeq += 1;
  const tmdbId = overrides.tmdb_id ?? 900_000 + movieSeq;
  const title = overrides.title ?? `Test Movie ${movieSeq}`;
  const row = await ctx.db
    .insertInto('movies')
    .values({
      title,
      original_title: overrides.original_title === undefined ? title : overrides.original_title,
      release_date: overrides.release_date === undefined ? '2001-02-03' : overrides.release_date,
      tagline: 'A tagline',
      overview: 'An overview',
      original_language: overrides.original_language ?? 'en',
      runtime: overrides.runtime === undefined ? 100 : overrides.runtime,
      poster_path: overrides.poster_path === undefined ? `/poster${movieSeq}.jpg` : overrides.poster_path,
      tmdb_id: tmdbId,
      imdb_id: overrides.imdb_id === undefined ? `tt${String(1_000_000 + movieSeq)}` : overrides.imdb_id,
      tmdb_vote_average: 7.5,
      tmdb_vote_count: 1234,
      created_at: ctx.clock.now().toISOString(),
      updated_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, title, tmdbId };
}

/** Rates a movie for a user the way the app does: through the library. */
export async function setRating(
  ctx: Pick<TestContext, 'library'>,
  userId: number,
  movieId: number,
  rating: number,
) {
  await ctx.library.write(userId, (lib) => lib.setRatings([{ movieId, rating }]));
}
