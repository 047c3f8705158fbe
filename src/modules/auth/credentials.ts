import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { CredentialsListener } from '../users/credentials.js';
import { updateUser } from '../users/users.repository.js';
import { revokeAllTokens } from './api-tokens.repository.js';
import { deleteOpenResets } from './password-resets.repository.js';
import { deleteUserSessions } from './sessions.repository.js';
import { deleteTwoFactor } from './two-factor.repository.js';

/**
 * What a change of a user's credentials ends, in the change's own transaction: the users service
 * tells it (services.ts wires it), so that a password or e-mail change never leaves a session, a
 * token or a reset link behind, and the users module imports nothing of auth.
 */
export const endSignInsOnChange: CredentialsListener = async (trx, userId, change, now) => {
  const outcome = { sessionsEnded: 0, tokensRevoked: 0, twoFactorTurnedOff: false };
  switch (change.kind) {
    case 'email changed':
      // A reset link mailed to the old address must not outlive the change.
      await deleteOpenResets(trx, userId);
      return outcome;
    case 'password changed':
      await deleteOpenResets(trx, userId);
      return { ...outcome, sessionsEnded: await deleteUserSessions(trx, userId, change.keepSessionId) };
    case 'recovered': {
      const sessionsEnded = await deleteUserSessions(trx, userId);
      await deleteOpenResets(trx, userId);
      const tokensRevoked = await revokeAllTokens(trx, userId, now);
      const twoFactorTurnedOff = change.turnOffTwoFactor && (await deleteTwoFactor(trx, userId));
      return { sessionsEnded, tokensRevoked, twoFactorTurnedOff };
    }
  }
};

/**
 * A recovery through a forgot-password link: the new password, and the account signed out everywhere
 * (every web session ends, every API token is revoked, every open reset link dies), as one step of
 * the caller's transaction.
 */
export async function recoverAccount(
  trx: Kysely<Database>,
  userId: number,
  passwordHash: string,
  now: string,
): Promise<void> {
  await updateUser(trx, userId, { password_hash: passwordHash, updated_at: now });
  await endSignInsOnChange(trx, userId, { kind: 'recovered', turnOffTwoFactor: false }, now);
}
