import { RECOVERY_CODE_COUNT } from '../../auth/two-factor.service.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';
import type { WebDeps } from '../web.deps.js';

/** What the account page's "Two-factor sign-in" section shows. */
export interface TwoFactorSummary {
  available: boolean;
  state: 'off' | 'setting-up' | 'on';
  enabledAt: { iso: string; text: string } | null;
  recoveryCodesLeft: number;
  recoveryCodeCount: number;
}

/** For the account page (account.routes.ts): the section's data. */
export async function twoFactorSummary(
  twoFactor: WebDeps['twoFactor'],
  user: User,
): Promise<TwoFactorSummary> {
  const status = await twoFactor.status(user.id);
  return {
    available: twoFactor.available,
    state: status.state,
    enabledAt:
      status.enabledAt === null
        ? null
        : { iso: status.enabledAt, text: formatDateTime(status.enabledAt, user.timezone) },
    recoveryCodesLeft: status.recoveryCodesLeft,
    recoveryCodeCount: RECOVERY_CODE_COUNT,
  };
}
