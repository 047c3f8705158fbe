import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** The account a forgot-password form's address belongs to (addresses are stored in lower case). */
export function findUserByEmail(db: Db, email: string): Promise<{ id: number; name: string } | undefined> {
  return db.selectFrom('users').select(['id', 'name']).where('email', '=', email).executeTakeFirst();
}

export async function insertReset(
  db: Db,
  reset: { userId: number; hash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({
      user_id: reset.userId,
      token_hash: reset.hash,
      created_at: reset.createdAt,
      expires_at: reset.expiresAt,
      used_at: null,
    })
    .execute();
}

/** Forgets every link of the user, open or not: a new link replaces the older ones. */
export async function deleteUserResets(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).execute();
}

/** Kills the user's links not used yet: after a password or e-mail change, an older link must not work. */
export async function deleteOpenResets(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Forgets the links nobody can use any more. */
export async function deleteExpiredResets(db: Db, now: string): Promise<void> {
  await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}

/** Whether a link with this hash is unused and not expired. */
export async function isOpenReset(db: Db, hash: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('password_resets')
    .select('id')
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Marks the open link with this hash used, in one statement, so that of two submissions only one
 * finds it open. Its user, or undefined when no open link has this hash.
 */
export async function markResetUsed(db: Db, hash: string, now: string): Promise<number | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}
