import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Outbox } from '../../integrations/mail/outbox.js';
import type { Clock } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../users/passwords.js';
import { recoverAccount } from './credentials.js';
import * as resets from './password-resets.repository.js';
import { hashToken } from './token-format.js';

/** A link works for this long after it was asked for. */
export const RESET_LINK_MINUTES = 60;
const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The link is unknown, used, expired or replaced by a newer one. */
export class InvalidResetLinkError extends Error {
  override name = 'InvalidResetLinkError';
  constructor() {
    super('this link is no longer valid');
  }
}

export interface PasswordResetsService {
  /**
   * Sends a link to the account with this address, if there is one, and returns at once: the lookup
   * and the mail run afterwards, so neither the answer nor its timing tells whether the account
   * exists. Failures are logged (without the link). Does nothing without a mailer.
   */
  request(email: string): void;
  /** Whether the link is still good: unused, not expired, not replaced. */
  isOpen(token: string): Promise<boolean>;
  /**
   * Uses the link (once: of two submissions only one succeeds) to set a new password, and signs the
   * account out everywhere: every web session ends and every API token is revoked, in one transaction.
   * A password that breaks the rules leaves the link usable (ValidationError).
   */
  consume(token: string, newPassword: string): Promise<void>;
}

export function createPasswordResetsService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  outbox: Outbox;
  appUrl: string;
}): PasswordResetsService {
  const { db, clock, outbox } = deps;

  const sendLink = async (email: string) => {
    const user = await resets.findUserByEmail(db, email);
    if (!user) return;
    const token = randomBytes(32).toString('base64url');
    const now = clock.now();
    await inTransaction(db, async (trx) => {
      await resets.deleteExpiredResets(trx, now.toISOString());
      // One open link per account: asking again replaces the older link.
      await resets.deleteUserResets(trx, user.id);
      await resets.insertReset(trx, {
        userId: user.id,
        hash: hashToken(token),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + RESET_LINK_MINUTES * 60_000).toISOString(),
      });
    });
    await outbox.deliver(
      { to: email, ...resetMail(deps.appUrl, user.name, token) },
      { userId: user.id },
      'password reset mail not sent',
    );
  };

  return {
    request(email) {
      outbox.later(() => sendLink(email.trim().toLowerCase()));
    },

    async isOpen(token) {
      return (
        LINK_TOKEN_PATTERN.test(token) && resets.isOpenReset(db, hashToken(token), clock.now().toISOString())
      );
    },

    async consume(token, newPassword) {
      if (!LINK_TOKEN_PATTERN.test(token)) throw new InvalidResetLinkError();
      const hash = hashToken(token);
      // Checked first: a dead link costs no password hashing and keeps its "no longer valid" answer.
      if (!(await resets.isOpenReset(db, hash, clock.now().toISOString()))) throw new InvalidResetLinkError();
      if (newPassword.length < MIN_PASSWORD_LENGTH || newPassword.length > MAX_PASSWORD_LENGTH) {
        throw new ValidationError(
          `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
        );
      }
      const passwordHash = await hashPassword(newPassword);
      await inTransaction(db, async (trx) => {
        const now = clock.now().toISOString();
        // Using the link and the recovery are one transaction: the link cannot be used twice.
        const userId = await resets.markResetUsed(trx, hash, now);
        if (userId === undefined) throw new InvalidResetLinkError();
        await recoverAccount(trx, userId, passwordHash, now);
      });
    },
  };
}

function resetMail(appUrl: string, name: string, token: string): { subject: string; text: string } {
  return {
    subject: 'Set a new password for cinelog',
    text: [
      `Someone, hopefully you, asked to set a new password for the cinelog account "${name}" at ${appUrl}.`,
      '',
      'Open this link to choose a new password:',
      '',
      `${appUrl}/reset-password/${token}`,
      '',
      `The link works once, for ${RESET_LINK_MINUTES} minutes. Setting a new password signs the account out`,
      'everywhere and revokes all its API tokens.',
      '',
      'If you did not ask for this, ignore this mail: your password stays as it is.',
      '',
    ].join('\n'),
  };
}
