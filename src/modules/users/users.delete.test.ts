import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../../../test/databases.js';
import { createMovie, TestClock } from '../../../test/harness.js';
import type { Database } from '../../db/schema.js';
import { createJobQueue } from '../../jobs/queue.js';
import { createApiTokensService } from '../auth/api-tokens.service.js';
import { endSignInsOnChange } from '../auth/credentials.js';
import { createSessionsService } from '../auth/sessions.service.js';
import { createFeedsService } from '../feeds/feeds.service.js';
import { createLibrary } from '../library/library.service.js';
import { catchUpStatistics } from '../library/statistics-aggregates.js';
import { createWebhooksService } from '../scrobble/webhooks.service.js';
import { USER_OWNED_CHILD_TABLES, USER_OWNED_TABLES } from './users.repository.js';
import { createUsersService, LastAdminError, type User, UserNotFoundError } from './users.service.js';

let database: TestDatabase;
let clock: TestClock;
let users: ReturnType<typeof createUsersService>;

beforeEach(async () => {
  database = await createTestDatabase();
  clock = new TestClock();
  users = createUsersService({
    credentials: endSignInsOnChange,
    db: database.db,
    clock,
    defaultTimezone: 'UTC',
  });
});
afterEach(() => database.destroy());

const newUser = (name: string, isAdmin = false) =>
  users.create({ name, email: `${name}@example.test`, password: 'correct horse battery', isAdmin });

/** Every table with a `user_id` column, read from the database itself: a table added later is found too. */
async function tablesWithUserId(db: Kysely<Database>): Promise<string[]> {
  const schema =
    TEST_ENGINE === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema
      : null;
  const tables = await db.introspection.getTables();
  return tables
    .filter((t) => (schema === null || t.schema === schema) && t.columns.some((c) => c.name === 'user_id'))
    .map((t) => t.name)
    .sort();
}

async function rowsOf(db: Kysely<Database>, table: string, userId: number): Promise<number> {
  const { rows } = await sql<{
    count: number | string;
  }>`select count(*) as count from ${sql.table(table)} where user_id = ${userId}`.execute(db);
  return Number(rows[0]!.count);
}

const rateLimitKeys = (user: User, uuid: string, feedUuid: string) => [
  `login-account:user:${user.id}`,
  `two-factor:${user.id}`,
  `password-change:${user.id}`,
  `webhook:${uuid}`,
  `feed:${feedUuid}`,
];

/** Gives the user a row in every table a user owns rows in, through the services where there is one. */
async function giveEverything(user: User, movies: { id: number }[]): Promise<void> {
  const { db } = database;
  // A saved media-server connection (its token sealed as the backfill seals it; any text will do here).
  await db
    .insertInto('media_server_connections')
    .values({
      user_id: user.id,
      server: 'plex',
      url: 'http://plex.test:32400',
      token: 'v1.sealed',
      server_user: null,
      sync_hours: null,
      last_sync_at: null,
      last_job_id: null,
      last_result: null,
      created_at: clock.now().toISOString(),
      updated_at: clock.now().toISOString(),
    })
    .execute();
  const library = createLibrary({ db, clock, imageBaseUrl: 'http://images.test' });
  const owner = { id: user.id, watchlistAutoRemove: false, timezone: 'UTC' };
  await library.write(owner.id, (lib) =>
    lib.logEntries([
      {
        movieId: movies[0]!.id,
        watchedAt: '2024-01-02',
        plays: 2,
        comment: 'twice',
        position: 1,
        tags: ['Heist', 'rainy day'],
      },
      { movieId: movies[1]!.id, watchedAt: null, plays: 1, comment: null, position: 1 },
    ]),
  );
  // The statistics' aggregates, brought up to date as a read does; then one more play, still pending.
  await catchUpStatistics(db, user.id);
  await library.write(owner.id, (lib) =>
    lib.addPlays([{ movieId: movies[0]!.id, watchedAt: '2024-01-03', plays: 1, comment: null }]),
  );
  // An entry a catch-up was counting again when it stopped (the server closing, say).
  await db
    .insertInto('statistics_counting')
    .values({ user_id: user.id, movie_id: movies[1]!.id, watched_at: '' })
    .execute();
  await library.write(owner.id, (lib) => lib.addToWatchlist([movies[2]!.id]));
  await library.write(owner.id, (lib) => lib.setRatings([{ movieId: movies[0]!.id, rating: 8 }]));
  await library.write(owner.id, async (lib) => {
    await lib.likeMovies([movies[0]!.id, movies[1]!.id]);
    const list = await lib.createList({ name: 'Favourites', visibility: 'users' });
    await lib.putListMovies(list.id, [{ movieId: movies[0]!.id }, { movieId: movies[2]!.id, note: 'yes' }]);
  });
  await library.write(owner.id, (lib) =>
    lib.keepExternalIds([{ source: 'trakt', externalId: String(5000 + user.id), movieId: movies[0]!.id }]),
  );
  await createJobQueue({ db, clock }).enqueue('library.import', { userId: user.id }, { userId: user.id });
  await createApiTokensService({ db, clock }).create(user.id, 'phone', 'never');
  const webhook = await createWebhooksService({ db, clock, appUrl: 'http://cinelog.test' }).create(
    user.id,
    'plex',
  );
  const feed = await createFeedsService({ db, clock, appUrl: 'http://cinelog.test', users, library }).create(
    user.id,
    'radarr',
  );
  await createSessionsService({ db, clock }).start(user.id, true);
  const now = clock.now().toISOString();
  const later = new Date(clock.now().getTime() + 3_600_000).toISOString();
  await db
    .insertInto('webhook_events')
    .values({
      user_id: user.id,
      server: 'plex',
      received_at: now,
      event: 'media.scrobble',
      account: null,
      outcome: 'counted',
      reason: null,
      movie_id: movies[0]!.id,
      movie_title: null,
      event_at: now,
      watch_date: '2024-01-02',
      payload: '{}',
    })
    .execute();
  await db
    .insertInto('password_resets')
    .values({
      user_id: user.id,
      token_hash: `reset-${user.id}`,
      created_at: now,
      expires_at: later,
      used_at: null,
    })
    .execute();
  await db
    .insertInto('two_factor')
    .values({
      user_id: user.id,
      secret: 'sealed',
      enabled_at: now,
      last_step: null,
      pending_secret: null,
      pending_at: null,
    })
    .execute();
  await db
    .insertInto('two_factor_recovery_codes')
    .values({ user_id: user.id, code_hash: `code-${user.id}`, created_at: now })
    .execute();
  await db
    .insertInto('two_factor_challenges')
    .values({
      user_id: user.id,
      token_hash: `challenge-${user.id}`,
      persistent: 0,
      next: '/',
      created_at: now,
      expires_at: later,
    })
    .execute();
  await db
    .insertInto('user_identities')
    .values({
      user_id: user.id,
      issuer: 'https://sso.example.test',
      subject: `subject-${user.id}`,
      email: null,
      created_at: now,
      last_used_at: null,
    })
    .execute();
  await db
    .insertInto('oidc_logins')
    .values({
      token_hash: `oidc-${user.id}`,
      state: 'state',
      nonce: 'nonce',
      code_verifier: 'verifier',
      user_id: user.id,
      next: '/settings/account',
      created_at: now,
      expires_at: later,
    })
    .execute();
  const uuid = webhook.url.split('/').at(-1)!;
  await db
    .insertInto('rate_limits')
    .values(
      rateLimitKeys(user, uuid, feed.url.split('/').at(-1)!).map((key) => ({
        key,
        hits: 1,
        reset_at: later,
      })),
    )
    .execute();
}

describe('deleting a user', () => {
  it('knows every table that holds rows of a user', async () => {
    expect(await tablesWithUserId(database.db)).toEqual([...USER_OWNED_TABLES].sort());
  });

  it("removes everything the user owned, and leaves another user's data untouched", async () => {
    await newUser('admin', true);
    const alice = await newUser('alice');
    const bob = await newUser('bob');
    const movies = [
      await createMovie({ db: database.db, clock }),
      await createMovie({ db: database.db, clock }),
    ];
    movies.push(await createMovie({ db: database.db, clock }));
    await giveEverything(alice, movies);
    await giveEverything(bob, movies);
    const aliceUuid = (
      await database.db
        .selectFrom('webhooks')
        .select('uuid')
        .where('user_id', '=', alice.id)
        .executeTakeFirstOrThrow()
    ).uuid;

    const tables = await tablesWithUserId(database.db);
    const bobBefore: Record<string, number> = {};
    for (const table of tables) {
      // The test would prove nothing for a table where alice had no rows to lose.
      expect(await rowsOf(database.db, table, alice.id), table).toBeGreaterThan(0);
      bobBefore[table] = await rowsOf(database.db, table, bob.id);
      expect(bobBefore[table], table).toBeGreaterThan(0);
    }
    // Rows owned through a parent: the movies of the user's lists.
    const listMovies = (userId: number) =>
      database.db
        .selectFrom('list_movies')
        .selectAll('list_movies')
        .innerJoin('lists', 'lists.id', 'list_movies.list_id')
        .where('lists.user_id', '=', userId)
        .orderBy('list_movies.movie_id')
        .execute();
    expect(USER_OWNED_CHILD_TABLES.map((child) => child.table)).toEqual(['list_movies']);
    expect(await listMovies(alice.id)).toHaveLength(2);
    const bobListMovies = await listMovies(bob.id);
    expect(bobListMovies).toHaveLength(2);
    const bobRows = await database.db
      .selectFrom('watch_dates')
      .selectAll()
      .where('user_id', '=', bob.id)
      .execute();

    const links = () =>
      database.db
        .selectFrom('entry_tags')
        .innerJoin('tags', 'tags.id', 'entry_tags.tag_id')
        .select(['tags.user_id', 'tags.name'])
        .orderBy('tags.name')
        .execute();
    expect(await links()).toHaveLength(4);

    const deleted = await users.delete('alice');
    expect(deleted.name).toBe('alice');
    expect(deleted.rows).toMatchObject({
      watch_dates: 3,
      watchlist: 1,
      ratings: 1,
      api_tokens: 1,
      webhooks: 1,
      feeds: 1,
      media_server_connections: 1,
      likes: 2,
      lists: 1,
      list_movies: 2,
    });
    expect(await database.db.selectFrom('list_movies').selectAll().execute()).toHaveLength(2);
    expect(await listMovies(bob.id)).toEqual(bobListMovies);

    expect(await users.findByName('alice')).toBeUndefined();
    for (const table of tables) {
      expect(await rowsOf(database.db, table, alice.id), table).toBe(0);
      expect(await rowsOf(database.db, table, bob.id), table).toBe(bobBefore[table]);
    }
    const bobUuid = (
      await database.db
        .selectFrom('webhooks')
        .select('uuid')
        .where('user_id', '=', bob.id)
        .executeTakeFirstOrThrow()
    ).uuid;
    const limits = await database.db.selectFrom('rate_limits').select('key').orderBy('key').execute();
    const bobFeedUuid = (
      await database.db
        .selectFrom('feeds')
        .select('uuid')
        .where('user_id', '=', bob.id)
        .executeTakeFirstOrThrow()
    ).uuid;
    expect(limits.map((row) => row.key).sort()).toEqual(rateLimitKeys(bob, bobUuid, bobFeedUuid).sort());
    expect(limits.map((row) => row.key)).not.toContain(`webhook:${aliceUuid}`);
    expect(
      await database.db.selectFrom('watch_dates').selectAll().where('user_id', '=', bob.id).execute(),
    ).toEqual(bobRows);
    // The links of alice's entries to her tags went with them.
    expect(await links()).toEqual([
      { user_id: bob.id, name: 'Heist' },
      { user_id: bob.id, name: 'rainy day' },
    ]);
    // The catalogue is shared: the movies stay.
    expect(await database.db.selectFrom('movies').select('id').execute()).toHaveLength(3);
    // The name is free again; the new account starts empty.
    const again = await newUser('alice');
    for (const table of tables) expect(await rowsOf(database.db, table, again.id), table).toBe(0);
  });

  it('refuses to delete the last administrator, and an unknown user, changing nothing', async () => {
    const admin = await newUser('admin', true);
    await newUser('bob');
    await expect(users.delete('admin')).rejects.toThrow(LastAdminError);
    await expect(users.delete('admin')).rejects.toThrow(
      'admin is the last administrator: make another user an administrator before deleting admin',
    );
    await expect(users.delete('nobody')).rejects.toThrow(UserNotFoundError);
    expect((await users.list()).map((u) => u.name)).toEqual(['admin', 'bob']);

    await users.update('bob', { isAdmin: true });
    await users.delete('admin');
    expect((await users.list()).map((u) => [u.name, u.isAdmin])).toEqual([['bob', true]]);
    expect(admin.id).toBeGreaterThan(0);
  });
});

describe('the administrator role', () => {
  it('promotes and demotes, but never the last administrator', async () => {
    await newUser('admin', true);
    await newUser('bob');
    expect((await users.update('bob', { isAdmin: true })).isAdmin).toBe(true);
    expect((await users.update('admin', { isAdmin: false })).isAdmin).toBe(false);
    const refused = users.update('bob', { isAdmin: false, timezone: 'Europe/Paris' });
    await expect(refused).rejects.toThrow(LastAdminError);
    await expect(refused).rejects.toMatchObject({ statusCode: 409 });
    // Refused as a whole: the other change did not happen either.
    expect(await users.findByName('bob')).toMatchObject({ isAdmin: true, timezone: 'UTC' });
  });

  it('keeps one administrator when two demotions race', async () => {
    await newUser('ada', true);
    await newUser('bea', true);
    const results = await Promise.allSettled([
      users.update('ada', { isAdmin: false }),
      users.update('bea', { isAdmin: false }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason),
    ).toEqual([expect.any(LastAdminError)]);
    expect((await users.list()).filter((u) => u.isAdmin)).toHaveLength(1);
  });
});
