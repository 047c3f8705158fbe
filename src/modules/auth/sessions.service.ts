import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { toUser, type User } from '../users/users.service.js';
import * as sessions from './sessions.repository.js';
import { hashesEqual, hashToken } from './token-format.js';

/** "Remember me": the sign-in lasts 30 days. Without it, the browser forgets the cookie when it closes. */
export const PERSISTENT_SESSION_DAYS = 30;
/** A browser-session cookie is still refused by the server after this long. */
const BROWSER_SESSION_HOURS = 12;
const SESSION_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface NewSession {
  /** The cookie's value: the secret, never stored. */
  value: string;
  expiresAt: Date;
  persistent: boolean;
}

export interface SignedIn {
  sessionId: number;
  user: User;
}

/** Web app sign-ins. They never authenticate the API, whose endpoints take tokens only. */
export interface SessionsService {
  start(userId: number, persistent: boolean): Promise<NewSession>;
  /** The user a cookie value signs in, or null for a missing, unknown or expired one. */
  resolve(value: string | undefined): Promise<SignedIn | null>;
  end(value: string): Promise<void>;
  /** Signs the user out everywhere, but in the session kept (if any). */
  endAll(userId: number, keepSessionId?: number): Promise<number>;
}

export function createSessionsService(deps: { db: Kysely<Database>; clock: Clock }): SessionsService {
  const { db, clock } = deps;
  // Every page asks it. Between two writes to sessions or users (a sign-out, a settings change) a
  // session reads the same: no query per page on SQLite, and none after a write to the user's lists
  // (the pages' caches ask the library for the data version). Expiry is checked on each request
  // against the kept row.
  const byHash = sessions.keptSessionsByHash<{ expiresAt: string; signedIn: SignedIn } | undefined>(db);
  return {
    async start(userId, persistent) {
      const now = clock.now();
      const value = randomBytes(32).toString('base64url');
      const lifetimeMs = persistent
        ? PERSISTENT_SESSION_DAYS * 86_400_000
        : BROWSER_SESSION_HOURS * 3_600_000;
      const expiresAt = new Date(now.getTime() + lifetimeMs);
      // Sign-ins are rare: a good moment to forget the expired ones.
      await sessions.deleteExpiredSessions(db, now.toISOString());
      await sessions.insertSession(db, {
        userId,
        hash: hashToken(value),
        persistent,
        createdAt: now.toISOString(),
        expiresAt: expiresAt.toISOString(),
      });
      return { value, expiresAt, persistent };
    },

    async resolve(value) {
      if (value === undefined || !SESSION_PATTERN.test(value)) return null;
      const hash = hashToken(value);
      // Compared in constant time as read from the database; a kept row was compared when read.
      const found = await byHash.get(hash, async () => {
        const row = await sessions.findSession(db, hash);
        return row && hashesEqual(row.tokenHash, hash)
          ? { expiresAt: row.expiresAt, signedIn: { sessionId: row.sessionId, user: toUser(row.user) } }
          : undefined;
      });
      if (!found || found.expiresAt <= clock.now().toISOString()) return null;
      return found.signedIn;
    },

    async end(value) {
      if (SESSION_PATTERN.test(value)) await sessions.deleteSessionByHash(db, hashToken(value));
    },

    endAll: (userId, keepSessionId) => sessions.deleteUserSessions(db, userId, keepSessionId),
  };
}
