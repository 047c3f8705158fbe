import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { Database, UserRow } from '../../db/schema.js';

type Db = Kysely<Database>;

export async function insertSession(
  db: Db,
  session: { userId: number; hash: string; persistent: boolean; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      user_id: session.userId,
      token_hash: session.hash,
      persistent: session.persistent ? 1 : 0,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    })
    .execute();
}

// Every page asks it (when the sessions cache has not kept it): compiled once (src/db/precompiled.ts).
const sessionByHash = precompiled(
  (db, hash: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select([
        'sessions.id as session_id',
        'sessions.token_hash as session_hash',
        'sessions.expires_at as session_expires_at',
      ])
      .where('sessions.token_hash', '=', hash),
  1,
);

/** A session as stored, with its user. */
export interface StoredSession {
  sessionId: number;
  tokenHash: string;
  expiresAt: string;
  user: UserRow;
}

/**
 * A session and its user by hash, kept between writes to sessions and users (`findSession`). Writes
 * that move only the user's data version keep it (the pages' caches read the version apart).
 */
export const keptSessionsByHash = keptBetweenWrites<string>(['sessions', 'users']);

/** The session with this hash and its user, expired or not (the caller compares `expiresAt`). */
export async function findSession(db: Db, hash: string): Promise<StoredSession | undefined> {
  const [row] = await sessionByHash(db, hash);
  if (!row) return undefined;
  const { session_id, session_hash, session_expires_at, ...user } = row;
  return { sessionId: session_id, tokenHash: session_hash, expiresAt: session_expires_at, user };
}

export async function deleteSessionByHash(db: Db, hash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', hash).execute();
}

/** Ends every session of the user, but the one kept (if any). */
export async function deleteUserSessions(db: Db, userId: number, keepSessionId?: number): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepSessionId !== undefined) query = query.where('id', '!=', keepSessionId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredSessions(db: Db, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
