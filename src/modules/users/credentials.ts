import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * A change to how a user signs in, told inside the transaction that makes it to what keeps their
 * sign-ins (sessions, API tokens, reset links, two-factor: `auth/credentials.ts`, wired by
 * services.ts). The users module knows that something must end; it knows nothing of auth's tables.
 */
export type CredentialsChange =
  /** The owner changed their password: their other sessions end, open reset links die. */
  | { kind: 'password changed'; keepSessionId?: number | undefined }
  /** The e-mail address changed: a reset link mailed to the old address dies. */
  | { kind: 'email changed' }
  /**
   * A recovery (a forgot-password link, `cinelog user reset-password`): signed out everywhere, every
   * API token revoked, every open reset link dead; two-factor turned off too when asked.
   */
  | { kind: 'recovered'; turnOffTwoFactor: boolean };

/** What the change ended. */
export interface CredentialsOutcome {
  sessionsEnded: number;
  tokensRevoked: number;
  twoFactorTurnedOff: boolean;
}

/** Told of every change, in its transaction (`trx`); `now`: the change's time, ISO. */
export type CredentialsListener = (
  trx: Kysely<Database>,
  userId: number,
  change: CredentialsChange,
  now: string,
) => Promise<CredentialsOutcome>;
