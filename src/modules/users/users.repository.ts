import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { Database, NewUser, UserRow, UserUpdate } from '../../db/schema.js';

type Db = Kysely<Database>;

const userByName = precompiled(
  (db, name: string) => db.selectFrom('users').selectAll().where('name', '=', name),
  1,
);

/**
 * A user by name, kept between writes to users (`findUserByName`). Writes that move only the data
 * version keep it: its `data_version` may then be older (the library keeps the version apart).
 */
export const keptUsersByName = keptBetweenWrites<string>(['users']);

/** Runs on every request naming a user: compiled once. */
export async function findUserByName(db: Db, name: string): Promise<UserRow | undefined> {
  return (await userByName(db, name))[0];
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function listUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('name').execute();
}

/** A user by name (any letter case) or by e-mail address: what a sign-in form accepts. */
export function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const lower = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(eb.fn('lower', ['name']), '=', lower), eb('email', '=', lower)]))
    .orderBy('id')
    .executeTakeFirst();
}

/** A user by name in any letter case (names are unique in any case: nameOrEmailTaken). */
export function findUserByNameAnyCase(db: Db, name: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .orderBy('id')
    .executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function nameOrEmailTaken(
  db: Db,
  name: string,
  email: string,
): Promise<'name' | 'email' | null> {
  const row = await db
    .selectFrom('users')
    .select(['name', 'email'])
    .where((eb) => eb.or([eb(eb.fn('lower', ['name']), '=', name.toLowerCase()), eb('email', '=', email)]))
    .executeTakeFirst();
  if (!row) return null;
  return row.name.toLowerCase() === name.toLowerCase() ? 'name' : 'email';
}

export async function emailTakenByAnother(db: Db, email: string, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .where('id', '!=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertUser(db: Db, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Db, id: number, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

export async function countAdmins(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('is_admin', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Every table holding rows a user owns, children before parents. The foreign keys cascade too; the
 * deletes are explicit so that they count what went, and do not depend on SQLite's foreign_keys pragma.
 * A migration that adds a table with a `user_id` adds it here (users.delete.test.ts fails until then).
 * The links of diary entries to tags (`entry_tags`) have no `user_id`: they go with their tag and
 * their entry, by their foreign keys' cascade (the library's tables are the library's to write).
 */
export const USER_OWNED_TABLES = [
  'likes',
  'lists',
  'user_external_ids',
  'statistics_groups',
  'statistics_movies',
  'statistics_days',
  'statistics_pending',
  'statistics_counting',
  'tags',
  'watch_dates',
  'watchlist',
  'ratings',
  'api_tokens',
  'webhook_events',
  'webhooks',
  'feeds',
  'media_server_connections',
  'sessions',
  'password_resets',
  'two_factor_recovery_codes',
  'two_factor_challenges',
  'user_identities',
  'oidc_logins',
  'two_factor',
  'jobs',
] as const;

export type UserOwnedTable = (typeof USER_OWNED_TABLES)[number];

/**
 * Tables of rows a user owns through a parent of theirs (no `user_id` of their own): deleted and counted
 * before the parents, by the parent's key.
 */
export const USER_OWNED_CHILD_TABLES = [{ table: 'list_movies', key: 'list_id', parent: 'lists' }] as const;

export type UserOwnedChildTable = (typeof USER_OWNED_CHILD_TABLES)[number]['table'];
export type OwnedCounts = Record<UserOwnedTable | UserOwnedChildTable, number>;

/** Deletes the user and everything they own; returns the rows deleted per table (the user's row excluded). */
export async function deleteUserAndOwned(db: Db, userId: number): Promise<OwnedCounts> {
  const deleted = {} as OwnedCounts;
  for (const { table, key, parent } of USER_OWNED_CHILD_TABLES) {
    const result = await db
      .deleteFrom(table)
      .where(key, 'in', db.selectFrom(parent).select('id').where('user_id', '=', userId))
      .executeTakeFirst();
    deleted[table] = Number(result.numDeletedRows);
  }
  for (const table of USER_OWNED_TABLES) {
    const result = await db.deleteFrom(table).where('user_id', '=', userId).executeTakeFirst();
    deleted[table] = Number(result.numDeletedRows);
  }
  await db.deleteFrom('users').where('id', '=', userId).execute();
  return deleted;
}

/**
 * The attempt counters (rate_limits rows) named after a user: their sign-in, code and password
 * attempts, their webhooks and their feeds.
 */
export async function deleteUserRateLimits(
  db: Db,
  userId: number,
  webhookUuids: readonly string[],
  feedUuids: readonly string[] = [],
): Promise<void> {
  const keys = [
    `login-account:user:${userId}`,
    `two-factor:${userId}`,
    `password-change:${userId}`,
    ...webhookUuids.map((uuid) => `webhook:${uuid}`),
    ...feedUuids.map((uuid) => `feed:${uuid}`),
  ];
  await db.deleteFrom('rate_limits').where('key', 'in', keys).execute();
}

export async function feedUuidsOf(db: Db, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('feeds').select('uuid').where('user_id', '=', userId).execute();
  return rows.map((row) => row.uuid);
}

export async function webhookUuidsOf(db: Db, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('webhooks').select('uuid').where('user_id', '=', userId).execute();
  return rows.map((row) => row.uuid);
}

/** The rows the user owns, per table. */
export async function countOwned(db: Db, userId: number): Promise<OwnedCounts> {
  const counts = {} as OwnedCounts;
  for (const { table, key, parent } of USER_OWNED_CHILD_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where(key, 'in', db.selectFrom(parent).select('id').where('user_id', '=', userId))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.count);
  }
  for (const table of USER_OWNED_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.count);
  }
  return counts;
}
