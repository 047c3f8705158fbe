import type { Kysely } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { Database } from '../../db/schema.js';
import { firstInCommit } from '../../db/sqlite-driver.js';

type Db = Kysely<Database>;

const bump = precompiled(
  (db, userId: number) =>
    db
      .updateTable('users')
      .set((eb) => ({ data_version: eb('data_version', '+', 1) }))
      .where('id', '=', userId),
  1,
);

/**
 * The start of every library write (and only of those: `Library.write`). It moves the user's data
 * version, so that cached pages of their lists are stale from the commit on, and on PostgreSQL the
 * UPDATE locks the user's row: writes to one user's library run one at a time, so a rule that reads
 * before it writes (the scrobble dedupe window) holds. SQLite's writer runs one transaction at a time
 * anyway, and nobody sees a commit group's writes before its COMMIT: there, once per group is enough.
 */
export async function lockAndMarkChanged(db: Db, userId: number): Promise<void> {
  if (await firstInCommit(db, `data_version:${userId}`)) await bump(db, userId);
}
