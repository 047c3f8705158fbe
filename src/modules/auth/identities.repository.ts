import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

// user_identities (an account's link to an issuer's subject) and oidc_logins (a sign-in on its way
// to the issuer and back).

export interface IdentityRow {
  id: number;
  userId: number;
  issuer: string;
  subject: string;
  email: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

const identityColumns = [
  'id',
  'user_id as userId',
  'issuer',
  'subject',
  'email',
  'created_at as createdAt',
  'last_used_at as lastUsedAt',
] as const;

export function findIdentity(db: Db, issuer: string, subject: string): Promise<IdentityRow | undefined> {
  return db
    .selectFrom('user_identities')
    .select(identityColumns)
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

export function identitiesOfUser(db: Db, userId: number): Promise<IdentityRow[]> {
  return db
    .selectFrom('user_identities')
    .select(identityColumns)
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

/**
 * Links the subject to the user: false when the subject, or the user for this issuer, is linked
 * already (two sign-ins at once: the other one won).
 */
export async function insertIdentity(
  db: Db,
  identity: { userId: number; issuer: string; subject: string; email: string | null; now: string },
): Promise<boolean> {
  const result = await db
    .insertInto('user_identities')
    .values({
      user_id: identity.userId,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email,
      created_at: identity.now,
      last_used_at: identity.now,
    })
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function touchIdentity(db: Db, id: number, email: string | null, now: string): Promise<void> {
  await db.updateTable('user_identities').set({ email, last_used_at: now }).where('id', '=', id).execute();
}

/** Deletes the user's own identity: whether it was theirs to delete. */
export async function deleteIdentity(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('user_identities')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function findUserIdByEmail(db: Db, email: string): Promise<{ id: number } | undefined> {
  return db.selectFrom('users').select('id').where('email', '=', email).orderBy('id').executeTakeFirst();
}

export interface LoginRow {
  id: number;
  state: string;
  nonce: string;
  codeVerifier: string;
  userId: number | null;
  next: string;
}

export async function insertLogin(
  db: Db,
  login: Omit<LoginRow, 'id'> & { hash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('oidc_logins')
    .values({
      token_hash: login.hash,
      state: login.state,
      nonce: login.nonce,
      code_verifier: login.codeVerifier,
      user_id: login.userId,
      next: login.next,
      created_at: login.createdAt,
      expires_at: login.expiresAt,
    })
    .execute();
}

/**
 * Uses up the unexpired sign-in with this hash: it is deleted as it is read, so a second callback
 * with the same cookie (a replay) finds nothing.
 */
export async function takeLogin(db: Db, hash: string, now: string): Promise<LoginRow | undefined> {
  const row = await db
    .selectFrom('oidc_logins')
    .select(['id', 'state', 'nonce', 'code_verifier as codeVerifier', 'user_id as userId', 'next'])
    .where('token_hash', '=', hash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const result = await db.deleteFrom('oidc_logins').where('id', '=', row.id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1 ? row : undefined;
}

export async function deleteExpiredLogins(db: Db, now: string): Promise<void> {
  await db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
}

export async function nameTaken(db: Db, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}
