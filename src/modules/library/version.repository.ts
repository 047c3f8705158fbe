import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { Database } from '../../db/schema.js';
import { sharedInCommit } from '../../db/transaction.js';
import { notFound } from '../../shared/errors.js';

type Db = Kysely<Database>;

const bump = precompiled(
  (db, userId: number) =>
    db
      .updateTable('users')
      .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
      .where('id', '=', userId)
      .returning(['watchlist_auto_remove', 'timezone']),
  1,
);

const versionOf = precompiled(
  (db, userId: number) => db.selectFrom('users').select('data_version').where('id', '=', userId),
  1,
);

/**
 * Each user's data version, kept between writes that move it. Apart from the users' rows (kept on
 * `users` alone): a one-play write moves the version, and the next request naming the user (the next
 * POST) then reads nothing; only a cached page asks for the version.
 */
export const keptDataVersions = keptBetweenWrites<number>(['users', 'users.data_version']);

/** The user's data version as it stands (0 for a user deleted meanwhile: a page then keys on 0). */
export async function dataVersionOf(db: Db, userId: number): Promise<number> {
  return (await versionOf(db, userId))[0]?.data_version ?? 0;
}

const policyOf = precompiled(
  (db, userId: number) =>
    db.selectFrom('users').select(['watchlist_auto_remove', 'timezone']).where('id', '=', userId),
  1,
);

/** What a library write needs of the user whose library it is, read under the write's lock. */
export interface OwnerPolicy {
  /** Newly watched movies leave the watchlist (a user setting, on by default). */
  watchlistAutoRemove: boolean;
  /** The owner's time zone: no play is written on a day after their today (library.rules.ts). */
  timezone: string;
}

const toPolicy = (row: { watchlist_auto_remove: number; timezone: string } | undefined): OwnerPolicy => {
  if (!row) throw notFound('UserNotFound', 'the user no longer exists');
  return { watchlistAutoRemove: row.watchlist_auto_remove === 1, timezone: row.timezone };
};

/**
 * The start of every library write (and only of those: `Library.write`). It moves the user's data
 * version, so that cached pages of their lists are stale from the commit on, and on PostgreSQL the
 * UPDATE locks the user's row: writes to one user's library run one at a time, so a rule that reads
 * before it writes (the scrobble dedupe window) holds. SQLite's writer runs one transaction at a time
 * anyway, and nobody sees a commit group's writes before its COMMIT: there, once per group is enough.
 * It answers with the owner's policy (their time zone, watchlist auto-remove) as it stands under the
 * lock: from the UPDATE itself, or, later in a SQLite commit group, as the group's first write read
 * it (a read of its own when the group wrote to users since).
 */
export async function lockAndMarkChanged(
  db: Db,
  userId: number,
): Promise<(() => Promise<OwnerPolicy>) | OwnerPolicy> {
  // The group's first write of this user bumps and reads; the group's later ones get what it read,
  // unless a statement of the group wrote to users since (a settings change): then they read it when
  // a step needs it (plays do; the watchlist and ratings do not), in the same transaction.
  const { value } = await sharedInCommit(db, `data_version:${userId}`, 'users', async () =>
    toPolicy((await bump(db, userId))[0]),
  );
  return value ?? (async () => toPolicy((await policyOf(db, userId))[0]));
}
