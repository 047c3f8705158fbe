import type { Kysely } from 'kysely';
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

// Every page asks it: compiled once (src/db/precompiled.ts).
const liveSessionByHash = precompiled(
  (db, hash: string, now: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.id as session_id', 'sessions.token_hash as session_hash'])
      .where('sessions.token_hash', '=', hash)
      .where('sessions.expires_at', '>', now),
  2,
);

/** The live session with this hash and its user. */
export async function findLiveSession(
  db: Db,
  hash: string,
  now: string,
): Promise<{ sessionId: number; tokenHash: string; user: UserRow } | undefined> {
  const [row] = await liveSessionByHash(db, hash, now);
  if (!row) return undefined;
  const { session_id, session_hash, ...user } = row;
  return { sessionId: session_id, tokenHash: session_hash, user };
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
