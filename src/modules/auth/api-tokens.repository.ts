import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { ApiTokenRow, Database } from '../../db/schema.js';

type Db = Kysely<Database>;

export interface TokenWithOwner {
  tokenId: number;
  tokenHash: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  userId: number;
  userName: string;
  isAdmin: number;
}

const tokenByHash = precompiled(
  (db, hash: string) =>
    db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        'api_tokens.id as tokenId',
        'api_tokens.token_hash as tokenHash',
        'api_tokens.expires_at as expiresAt',
        'api_tokens.revoked_at as revokedAt',
        'api_tokens.last_used_at as lastUsedAt',
        'users.id as userId',
        'users.name as userName',
        'users.is_admin as isAdmin',
      ])
      .where('api_tokens.token_hash', '=', hash),
  1,
);

/** A token and its owner by hash, kept between writes to tokens and users (`findTokenByHash`). */
export const keptTokensByHash = keptBetweenWrites<string>(['api_tokens', 'users']);

/** Runs on every authenticated request: compiled once. */
export async function findTokenByHash(db: Db, hash: string): Promise<TokenWithOwner | undefined> {
  return (await tokenByHash(db, hash))[0];
}

export async function insertToken(
  db: Db,
  token: {
    userId: number;
    name: string;
    hash: string;
    displayPrefix: string;
    createdAt: string;
    expiresAt: string | null;
  },
): Promise<ApiTokenRow> {
  return db
    .insertInto('api_tokens')
    .values({
      user_id: token.userId,
      name: token.name,
      token_hash: token.hash,
      display_prefix: token.displayPrefix,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listTokens(db: Db, userId: number): Promise<ApiTokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes the user's active tokens whose display prefix is `prefix`; returns how many. */
export async function revokeTokenByPrefix(
  db: Db,
  userId: number,
  prefix: string,
  now: string,
): Promise<number> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('display_prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** One token of the user, whatever its state. */
export function findToken(db: Db, userId: number, tokenId: number): Promise<ApiTokenRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', tokenId)
    .executeTakeFirst();
}

/** Revokes the user's token `tokenId` if it is still unrevoked; returns how many (0 or 1). */
export async function revokeTokenById(db: Db, userId: number, tokenId: number, now: string): Promise<number> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function revokeAllTokens(db: Db, userId: number, now: string): Promise<number> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Records use, unless another request already did within the throttle window. */
export async function touchToken(db: Db, tokenId: number, now: string, notUsedSince: string): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notUsedSince)]))
    .execute();
}
