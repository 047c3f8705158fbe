import type { Kysely } from 'kysely';
import type { Database, TwoFactorRow } from '../../db/schema.js';

type Db = Kysely<Database>;

export function findTwoFactor(db: Db, userId: number): Promise<TwoFactorRow | undefined> {
  return db.selectFrom('two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The users who have two-factor sign-in on. */
export async function usersWithTwoFactor(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('two_factor').select('user_id').where('secret', 'is not', null).execute();
  return rows.map((row) => row.user_id);
}

/** Keeps a new secret being set up (replacing an unfinished one); the secret in use, if any, stays. */
export async function savePendingSecret(db: Db, userId: number, sealed: string, now: string): Promise<void> {
  await db
    .insertInto('two_factor')
    .values({
      user_id: userId,
      secret: null,
      enabled_at: null,
      last_step: null,
      pending_secret: sealed,
      pending_at: now,
    })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ pending_secret: sealed, pending_at: now }))
    .execute();
}

/** Forgets an unfinished setup: the row goes when it holds nothing else. */
export async function deletePendingSecret(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('two_factor').where('user_id', '=', userId).where('secret', 'is', null).execute();
  await db
    .updateTable('two_factor')
    .set({ pending_secret: null, pending_at: null })
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Turns the pending secret `pendingSealed` into the secret in use, with `step` as its last accepted
 * step. Only if that setup is still the pending one and two-factor is still off: whether it was.
 */
export async function enableTwoFactor(
  db: Db,
  change: { userId: number; pendingSealed: string; sealed: string; step: number; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('two_factor')
    .set({
      secret: change.sealed,
      enabled_at: change.now,
      last_step: change.step,
      pending_secret: null,
      pending_at: null,
    })
    .where('user_id', '=', change.userId)
    .where('secret', 'is', null)
    .where('pending_secret', '=', change.pendingSealed)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records `step` as the last accepted one, unless it is not later than the last: in one statement, so
 * of two requests with the same code only one gets through. Whether it was accepted.
 */
export async function acceptStep(db: Db, userId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('two_factor')
    .set({ last_step: step })
    .where('user_id', '=', userId)
    .where('secret', 'is not', null)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Turns two-factor sign-in off: the secrets, the recovery codes, the open sign-ins. Whether it was on. */
export async function deleteTwoFactor(db: Db, userId: number): Promise<boolean> {
  const row = await db
    .deleteFrom('two_factor')
    .where('user_id', '=', userId)
    .returning('secret')
    .executeTakeFirst();
  await db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('two_factor_challenges').where('user_id', '=', userId).execute();
  return row !== undefined && row.secret !== null;
}

export async function replaceRecoveryCodes(
  db: Db,
  userId: number,
  hashes: readonly string[],
  now: string,
): Promise<void> {
  await db.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('two_factor_recovery_codes')
    .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
    .execute();
}

export function listRecoveryCodes(db: Db, userId: number): Promise<{ id: number; code_hash: string }[]> {
  return db
    .selectFrom('two_factor_recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .execute();
}

/** Uses up one recovery code: whether it was still there (of two requests, one gets it). */
export async function deleteRecoveryCode(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('two_factor_recovery_codes')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function countRecoveryCodes(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('two_factor_recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface ChallengeRow {
  id: number;
  userId: number;
  tokenHash: string;
  persistent: boolean;
  next: string;
  failures: number;
}

export async function insertChallenge(
  db: Db,
  challenge: {
    userId: number;
    hash: string;
    persistent: boolean;
    next: string;
    createdAt: string;
    expiresAt: string;
  },
): Promise<void> {
  await db
    .insertInto('two_factor_challenges')
    .values({
      user_id: challenge.userId,
      token_hash: challenge.hash,
      persistent: challenge.persistent ? 1 : 0,
      next: challenge.next,
      created_at: challenge.createdAt,
      expires_at: challenge.expiresAt,
    })
    .execute();
}

/** The unexpired challenge with this hash, however many wrong codes it has seen. */
export async function findLiveChallenge(
  db: Db,
  hash: string,
  now: string,
): Promise<ChallengeRow | undefined> {
  const row = await db
    .selectFrom('two_factor_challenges')
    .select(['id', 'user_id', 'token_hash', 'persistent', 'next', 'failures'])
    .where('token_hash', '=', hash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      userId: row.user_id,
      tokenHash: row.token_hash,
      persistent: row.persistent === 1,
      next: row.next,
      failures: row.failures,
    }
  );
}

/** One more wrong code for the challenge: how many it has seen now. */
export async function countChallengeFailure(db: Db, id: number): Promise<number> {
  const row = await db
    .updateTable('two_factor_challenges')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('id', '=', id)
    .returning('failures')
    .executeTakeFirst();
  return row?.failures ?? Number.POSITIVE_INFINITY;
}

/** Uses up a challenge: whether it was still there (of two requests, one gets it). */
export async function deleteChallenge(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('two_factor_challenges').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function deleteExpiredChallenges(db: Db, now: string): Promise<void> {
  await db.deleteFrom('two_factor_challenges').where('expires_at', '<=', now).execute();
}
