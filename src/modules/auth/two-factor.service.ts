import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { HitCounter } from '../../db/rate-limit-store.js';
import type { Database, TwoFactorRow } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import { verifyPassword } from '../users/passwords.js';
import { findUserById } from '../users/users.repository.js';
import { type AttemptLimit, countAttempt } from './attempt-limits.js';
import { SealedSecretError, SecretKeyMissingError, type SecretKeySource } from './secret-box.js';
import { hashesEqual, hashToken } from './token-format.js';
import { isTotpCode, matchingStep, newTotpSecret, totpUri } from './totp.js';
import * as twoFactor from './two-factor.repository.js';

/** Recovery codes handed out at once; a new set replaces the old one. */
export const RECOVERY_CODE_COUNT = 10;
/** After a right password, the code is awaited this long. */
export const CHALLENGE_MINUTES = 5;
/** Wrong codes one sign-in may send before it must start again with the password. */
export const CHALLENGE_MAX_FAILURES = 5;
/**
 * Codes checked per account, wherever (sign-in, new recovery codes, turning off), counted in the database
 * like sign-ins. Only someone who knows the password reaches a code field.
 */
export const CODE_LIMIT: AttemptLimit = { limit: 10, windowMs: 15 * 60_000 };

const ISSUER = 'cinelog';
// 80 random bits in 16 characters of Crockford's base32 (no i, l, o, u): SHA-256 of one cannot be
// searched back, so a fast hash is right, as for tokens.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_PATTERN = /^[0-9a-hjkmnp-tv-z]{16}$/;
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export type TwoFactorState = 'off' | 'setting-up' | 'on';

export interface TwoFactorStatus {
  state: TwoFactorState;
  enabledAt: string | null;
  recoveryCodesLeft: number;
}

/** What the setup page shows: the secret for typing in, and the address its QR code carries. */
export interface Enrolment {
  /** Base32, as authenticator apps take it. */
  secret: string;
  uri: string;
  issuer: string;
  account: string;
}

/** Whom a finished sign-in signs in, and how. */
export interface CompletedChallenge {
  userId: number;
  persistent: boolean;
  next: string;
  usedRecoveryCode: boolean;
  recoveryCodesLeft: number;
}

/** The code is not one of the app's current codes nor an unused recovery code. */
export class WrongCodeError extends ValidationError {
  constructor(
    /** `used`: the app's code was right but already accepted once (wait for the next one). */
    readonly reason: 'wrong' | 'used' = 'wrong',
    /** Wrong codes this sign-in may still send, when counted. */
    readonly attemptsLeft?: number,
  ) {
    super(
      reason === 'used'
        ? 'this code was used already: wait for the next one from your app'
        : 'the code is not correct',
    );
  }
}

/** Asked of an account whose two-factor sign-in is not in the state the request needs. */
export class TwoFactorStateError extends ValidationError {}

/** Codes from the app cannot be checked: the server key is not the one the secret was sealed with. */
export class ServerKeyError extends ValidationError {
  constructor() {
    super(
      'codes from your app cannot be checked right now, because the server key (SECRET_KEY or secret.key) ' +
        'is missing or not the one they were set up with: use a recovery code, or ask an administrator',
    );
  }
}

/** The sign-in waiting for a code is unknown, expired, used, or had too many wrong codes. */
export class ChallengeExpiredError extends Error {
  override name = 'ChallengeExpiredError';
  constructor(readonly reason: 'expired' | 'too-many-codes' = 'expired') {
    super(reason === 'expired' ? 'the sign-in expired' : 'too many wrong codes');
  }
}

export interface TwoFactorService {
  /** Whether it can be turned on here: false on PostgreSQL without SECRET_KEY. */
  readonly available: boolean;
  status(userId: number): Promise<TwoFactorStatus>;
  isOn(userId: number): Promise<boolean>;
  /** The ids of the users who have it on. */
  usersWithTwoFactor(): Promise<Set<number>>;
  /** Starts a setup with a new secret (an unfinished one is replaced). */
  begin(user: { id: number; name: string }): Promise<Enrolment>;
  /** The unfinished setup, or null. */
  pending(user: { id: number; name: string }): Promise<Enrolment | null>;
  cancel(userId: number): Promise<void>;
  /** Turns it on with a code of the setup's secret; returns the recovery codes, shown this once. */
  confirm(userId: number, code: string): Promise<string[]>;
  /** A new set of recovery codes (the old ones stop working), for a current code. */
  regenerateRecoveryCodes(userId: number, code: string): Promise<string[]>;
  /** The user turns it off: the password and a code (or a recovery code). */
  turnOff(userId: number, password: string, code: string): Promise<void>;
  /** An administrator or the command line turns it off, asking nothing. Whether it was on. */
  turnOffFor(userId: number): Promise<boolean>;
  /** A right password of an account with two-factor on: the code is asked next. Returns the cookie's value. */
  startChallenge(
    userId: number,
    persistent: boolean,
    next: string,
  ): Promise<{ value: string; expiresAt: Date }>;
  /** Whether a challenge cookie's value still waits for a code. */
  isChallengeOpen(value: string | undefined): Promise<boolean>;
  /** Checks the code of a waiting sign-in; the challenge is used up when it is right. */
  completeChallenge(value: string | undefined, code: string): Promise<CompletedChallenge>;
}

const activeContext = (userId: number) => `two-factor:${userId}`;
const pendingContext = (userId: number) => `two-factor-setup:${userId}`;

/** What people type: spaces and dashes dropped, letter case and look-alikes (o, i, l) forgiven. */
export function normalizeCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
}

/** A recovery code as shown: four groups of four. */
const formatRecoveryCode = (code: string) => code.match(/.{4}/g)!.join('-');

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let code = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      code += RECOVERY_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return code;
}

export function createTwoFactorService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  keys: SecretKeySource;
  hits: HitCounter;
}): TwoFactorService {
  const { db, clock, keys, hits } = deps;

  const enrolment = (secret: string, account: string): Enrolment => ({
    secret,
    uri: totpUri(secret, ISSUER, account),
    issuer: ISSUER,
    account,
  });

  const openSecret = (sealed: string, context: string): string => {
    try {
      return keys.box().open(sealed, context);
    } catch (error) {
      if (error instanceof SealedSecretError || error instanceof SecretKeyMissingError) {
        throw new ServerKeyError();
      }
      throw error;
    }
  };

  const isOn = async (userId: number) => {
    const row = await twoFactor.findTwoFactor(db, userId);
    return row !== undefined && row.secret !== null;
  };

  const requireOn = async (userId: number): Promise<TwoFactorRow & { secret: string }> => {
    const row = await twoFactor.findTwoFactor(db, userId);
    if (!row || row.secret === null) throw new TwoFactorStateError('two-factor sign-in is not on');
    return row as TwoFactorRow & { secret: string };
  };

  /** Every check of a code of an account in use counts against the account's limit. */
  const countCodeAttempt = (userId: number) =>
    countAttempt(hits, [{ key: `two-factor:${userId}`, limit: CODE_LIMIT }]);

  /**
   * Accepts the code of an account with two-factor on, in the caller's transaction: a code of the app
   * (its step recorded, so it works once) or a recovery code (deleted). WrongCodeError otherwise.
   */
  const useCode = async (
    trx: Kysely<Database>,
    row: TwoFactorRow & { secret: string },
    code: string,
  ): Promise<'app' | 'recovery'> => {
    const typed = normalizeCode(code);
    if (isTotpCode(typed)) {
      const step = matchingStep(openSecret(row.secret, activeContext(row.user_id)), typed, clock.now());
      if (step === null) throw new WrongCodeError();
      if (!(await twoFactor.acceptStep(trx, row.user_id, step))) throw new WrongCodeError('used');
      return 'app';
    }
    if (RECOVERY_PATTERN.test(typed)) {
      const hash = hashToken(typed);
      // Every stored hash is compared, in constant time, whichever matches.
      let match: number | undefined;
      for (const stored of await twoFactor.listRecoveryCodes(trx, row.user_id)) {
        if (hashesEqual(stored.code_hash, hash)) match = stored.id;
      }
      if (match !== undefined && (await twoFactor.deleteRecoveryCode(trx, row.user_id, match))) {
        return 'recovery';
      }
    }
    throw new WrongCodeError();
  };

  const newRecoveryCodes = async (trx: Kysely<Database>, userId: number): Promise<string[]> => {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await twoFactor.replaceRecoveryCodes(trx, userId, codes.map(hashToken), clock.now().toISOString());
    return codes.map(formatRecoveryCode);
  };

  return {
    available: keys.available,

    async status(userId) {
      const row = await twoFactor.findTwoFactor(db, userId);
      const state: TwoFactorState = row?.secret ? 'on' : row?.pending_secret ? 'setting-up' : 'off';
      return {
        state,
        enabledAt: row?.enabled_at ?? null,
        recoveryCodesLeft: state === 'on' ? await twoFactor.countRecoveryCodes(db, userId) : 0,
      };
    },

    isOn,

    async usersWithTwoFactor() {
      return new Set(await twoFactor.usersWithTwoFactor(db));
    },

    async begin(user) {
      if (await isOn(user.id)) throw new TwoFactorStateError('two-factor sign-in is already on');
      const secret = newTotpSecret();
      const sealed = keys.box().seal(secret, pendingContext(user.id));
      await twoFactor.savePendingSecret(db, user.id, sealed, clock.now().toISOString());
      return enrolment(secret, user.name);
    },

    async pending(user) {
      const row = await twoFactor.findTwoFactor(db, user.id);
      if (!row?.pending_secret || row.secret !== null) return null;
      try {
        return enrolment(keys.box().open(row.pending_secret, pendingContext(user.id)), user.name);
      } catch (error) {
        // Sealed under a key the server no longer has: that setup cannot be finished, start again.
        if (error instanceof SealedSecretError || error instanceof SecretKeyMissingError) return null;
        throw error;
      }
    },

    cancel: (userId) => twoFactor.deletePendingSecret(db, userId),

    async confirm(userId, code) {
      const row = await twoFactor.findTwoFactor(db, userId);
      if (row?.secret) throw new TwoFactorStateError('two-factor sign-in is already on');
      if (!row?.pending_secret) throw new TwoFactorStateError('there is no setup to confirm: start again');
      const pendingSealed = row.pending_secret;
      const secret = openSecret(pendingSealed, pendingContext(userId));
      const step = matchingStep(secret, normalizeCode(code), clock.now());
      if (step === null) throw new WrongCodeError();
      const sealed = keys.box().seal(secret, activeContext(userId));
      return inTransaction(db, async (trx) => {
        const now = clock.now().toISOString();
        // Only the setup that was checked: not one started again in another tab meanwhile.
        if (!(await twoFactor.enableTwoFactor(trx, { userId, pendingSealed, sealed, step, now }))) {
          throw new TwoFactorStateError('this setup was replaced or finished meanwhile: start again');
        }
        return newRecoveryCodes(trx, userId);
      });
    },

    async regenerateRecoveryCodes(userId, code) {
      const row = await requireOn(userId);
      await countCodeAttempt(userId);
      return inTransaction(db, async (trx) => {
        await useCode(trx, row, code);
        return newRecoveryCodes(trx, userId);
      });
    },

    async turnOff(userId, password, code) {
      const row = await requireOn(userId);
      await countCodeAttempt(userId);
      const user = await findUserById(db, userId);
      if (!user || !(await verifyPassword(user.password_hash, password))) {
        throw new ValidationError('the password is not correct');
      }
      await inTransaction(db, async (trx) => {
        await useCode(trx, row, code);
        await twoFactor.deleteTwoFactor(trx, userId);
      });
    },

    turnOffFor: (userId) => inTransaction(db, (trx) => twoFactor.deleteTwoFactor(trx, userId)),

    async startChallenge(userId, persistent, next) {
      const now = clock.now();
      const value = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + CHALLENGE_MINUTES * 60_000);
      await twoFactor.deleteExpiredChallenges(db, now.toISOString());
      await twoFactor.insertChallenge(db, {
        userId,
        hash: hashToken(value),
        persistent,
        // No text column of PostgreSQL holds a NUL: such an address is no page to return to anyway.
        next: next.includes('\u0000') ? '/' : next,
        createdAt: now.toISOString(),
        expiresAt: expiresAt.toISOString(),
      });
      return { value, expiresAt };
    },

    async isChallengeOpen(value) {
      if (value === undefined || !CHALLENGE_PATTERN.test(value)) return false;
      const hash = hashToken(value);
      const challenge = await twoFactor.findLiveChallenge(db, hash, clock.now().toISOString());
      return (
        challenge !== undefined &&
        hashesEqual(challenge.tokenHash, hash) &&
        challenge.failures < CHALLENGE_MAX_FAILURES
      );
    },

    async completeChallenge(value, code) {
      if (value === undefined || !CHALLENGE_PATTERN.test(value)) throw new ChallengeExpiredError();
      const hash = hashToken(value);
      const challenge = await twoFactor.findLiveChallenge(db, hash, clock.now().toISOString());
      if (!challenge || !hashesEqual(challenge.tokenHash, hash)) throw new ChallengeExpiredError();
      if (challenge.failures >= CHALLENGE_MAX_FAILURES) throw new ChallengeExpiredError('too-many-codes');
      // Turned off meanwhile (by an administrator): the password alone signs in now.
      const row = await twoFactor.findTwoFactor(db, challenge.userId);
      if (!row || row.secret === null) throw new ChallengeExpiredError();
      await countCodeAttempt(challenge.userId);
      try {
        return await inTransaction(db, async (trx) => {
          // Used up with the code, or not at all: of two submissions, one signs in.
          if (!(await twoFactor.deleteChallenge(trx, challenge.id))) throw new ChallengeExpiredError();
          const method = await useCode(trx, row as TwoFactorRow & { secret: string }, code);
          return {
            userId: challenge.userId,
            persistent: challenge.persistent,
            next: challenge.next,
            usedRecoveryCode: method === 'recovery',
            recoveryCodesLeft: await twoFactor.countRecoveryCodes(trx, challenge.userId),
          };
        });
      } catch (error) {
        if (!(error instanceof WrongCodeError)) throw error;
        const failures = await twoFactor.countChallengeFailure(db, challenge.id);
        if (failures >= CHALLENGE_MAX_FAILURES) {
          await twoFactor.deleteChallenge(db, challenge.id);
          throw new ChallengeExpiredError('too-many-codes');
        }
        throw new WrongCodeError(error.reason, CHALLENGE_MAX_FAILURES - failures);
      }
    },
  };
}
