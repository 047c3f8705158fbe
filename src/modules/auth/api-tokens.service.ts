import type { Kysely } from 'kysely';
import type { ApiTokenRow, Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, isoString } from '../../shared/dates.js';
import { UnauthenticatedError, ValidationError } from '../../shared/errors.js';
import * as tokens from './api-tokens.repository.js';
import { generateTokenValue, hashesEqual, hashToken, isWellFormedToken } from './token-format.js';

export const TOKEN_EXPIRY_CHOICES = ['30', '90', '365', 'never'] as const;
export type TokenExpiry = (typeof TOKEN_EXPIRY_CHOICES)[number];
export type TokenState = 'active' | 'expired' | 'revoked';

export const isTokenExpiry = (value: string): value is TokenExpiry =>
  (TOKEN_EXPIRY_CHOICES as readonly string[]).includes(value);

/** Last-used time is written at most this often per token, not on every request. */
const LAST_USED_THROTTLE_MS = 60_000;

export interface TokenView {
  /** Not secret: names the token in the web app's revoke links. */
  id: number;
  name: string;
  displayPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  state: TokenState;
}

/** Who a valid token speaks for. */
export interface Caller {
  userId: number;
  name: string;
  isAdmin: boolean;
  tokenId: number;
}

export interface ApiTokensService {
  create(userId: number, name: string, expiry: TokenExpiry): Promise<{ value: string; token: TokenView }>;
  list(userId: number): Promise<TokenView[]>;
  revoke(userId: number, displayPrefix: string): Promise<number>;
  /** Revokes one of the user's tokens (again is no failure); null when the user has no token with that id. */
  revokeById(userId: number, tokenId: number): Promise<TokenView | null>;
  revokeAll(userId: number): Promise<number>;
  /** The caller a token value belongs to; throws UnauthenticatedError for any token that is not active. */
  authenticate(value: string): Promise<Caller>;
}

export function createApiTokensService(deps: { db: Kysely<Database>; clock: Clock }): ApiTokensService {
  const { db, clock } = deps;
  // Between two writes to tokens or users (a revocation is one) a token reads the same: no query per
  // request on SQLite, also while its owner's lists are being written.
  const byHash = tokens.keptTokensByHash<tokens.TokenWithOwner | undefined>(db);

  const toView = (row: ApiTokenRow, now: Date): TokenView => ({
    id: row.id,
    name: row.name,
    displayPrefix: row.display_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    state: stateOf(row.revoked_at, row.expires_at, now),
  });

  return {
    async create(userId, name, expiry) {
      const label = name.trim();
      if (label.length < 1 || label.length > 100)
        throw new ValidationError('token name must be 1 to 100 characters');
      if (!TOKEN_EXPIRY_CHOICES.includes(expiry)) {
        throw new ValidationError(`expiry must be one of ${TOKEN_EXPIRY_CHOICES.join(', ')}`);
      }
      const now = clock.now();
      const generated = generateTokenValue();
      const row = await tokens.insertToken(db, {
        userId,
        name: label,
        hash: generated.hash,
        displayPrefix: generated.displayPrefix,
        createdAt: now.toISOString(),
        expiresAt: expiry === 'never' ? null : addDays(now, Number(expiry)).toISOString(),
      });
      return { value: generated.value, token: toView(row, now) };
    },

    async list(userId) {
      const now = clock.now();
      return (await tokens.listTokens(db, userId)).map((row) => toView(row, now));
    },

    revoke: (userId, displayPrefix) =>
      tokens.revokeTokenByPrefix(db, userId, displayPrefix, clock.now().toISOString()),

    async revokeById(userId, tokenId) {
      const now = clock.now();
      await tokens.revokeTokenById(db, userId, tokenId, now.toISOString());
      const row = await tokens.findToken(db, userId, tokenId);
      return row ? toView(row, now) : null;
    },

    revokeAll: (userId) => tokens.revokeAllTokens(db, userId, clock.now().toISOString()),

    async authenticate(value) {
      if (!isWellFormedToken(value)) throw new UnauthenticatedError();
      const hash = hashToken(value);
      // Compared in constant time as read from the database; a cached row was compared when read.
      const found = await byHash.get(hash, async () => {
        const row = await tokens.findTokenByHash(db, hash);
        return row && hashesEqual(row.tokenHash, hash) ? row : undefined;
      });
      const now = clock.now();
      if (!found || stateOf(found.revokedAt, found.expiresAt, now) !== 'active') {
        throw new UnauthenticatedError();
      }
      const throttleStart = isoString(now.getTime() - LAST_USED_THROTTLE_MS);
      if (found.lastUsedAt === null || found.lastUsedAt < throttleStart) {
        await tokens.touchToken(db, found.tokenId, isoString(now.getTime()), throttleStart);
      }
      return {
        userId: found.userId,
        name: found.userName,
        isAdmin: found.isAdmin === 1,
        tokenId: found.tokenId,
      };
    },
  };
}

function stateOf(revokedAt: string | null, expiresAt: string | null, now: Date): TokenState {
  if (revokedAt !== null) return 'revoked';
  if (expiresAt !== null && expiresAt <= isoString(now.getTime())) return 'expired';
  return 'active';
}
