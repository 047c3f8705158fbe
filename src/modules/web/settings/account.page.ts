import { isValidTimeZone } from '../../../config.js';
import type { OidcIdentity } from '../../auth/oidc.service.js';
import { RECOVERY_CODE_COUNT, type TwoFactorStatus } from '../../auth/two-factor.service.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';
import { timeZoneChoices } from '../shell/forms.js';

// Settings → account: the password, the e-mail address, the profile and the two-factor sign-in's
// section. Pure: the user and their two-factor status in, the template's data out.

export interface ProfileValues {
  timezone: string;
  privacy: string;
  ratingScale: string;
  publicProfile: boolean;
}

/** The profile form's values as the user has them. */
export const profileOf = (user: User): ProfileValues => ({
  timezone: user.timezone,
  privacy: user.privacy,
  ratingScale: user.ratingScale,
  publicProfile: user.publicProfile,
});

/** The forms' values: the user's, or what a refused form sent, with why it was refused. */
export interface AccountPageData {
  profile: ProfileValues;
  /** What the e-mail field shows: the address, or what was entered in a refused change. */
  email: string;
  passwordError?: string;
  emailError?: string;
  profileError?: string;
}

/** What the account page's "Two-factor sign-in" section shows. */
export interface TwoFactorSummary {
  available: boolean;
  state: 'off' | 'setting-up' | 'on';
  enabledAt: { iso: string; text: string } | null;
  recoveryCodesLeft: number;
  recoveryCodeCount: number;
}

/**
 * `/settings/account` of `user`: the forms (`data`), the time zones to pick from, whether mail is set
 * up (the e-mail change sends a notice), and the two-factor section from its `status` (`available`:
 * the server has the key it needs).
 */
export function accountPage(
  user: User,
  data: AccountPageData,
  twoFactor: { status: TwoFactorStatus; available: boolean },
  mailConfigured: boolean,
  sso: { only: boolean; identities: readonly OidcIdentity[] } | null = null,
) {
  // A zone the runtime accepts but does not list (an alias such as US/Eastern) stays selectable,
  // so saving the profile never silently moves the user to another zone.
  const zones = timeZoneChoices();
  const { timezone } = data.profile;
  const timeZones = zones.includes(timezone) || !isValidTimeZone(timezone) ? zones : [timezone, ...zones];
  return {
    title: 'Account',
    timeZones,
    mailConfigured,
    twoFactor: twoFactorSummary(user, twoFactor.status, twoFactor.available),
    sso: sso && {
      // OIDC_ONLY: the last link is the only way in, so it cannot be unlinked.
      canUnlink: !sso.only || sso.identities.length > 1,
      identities: sso.identities.map((identity) => ({
        id: identity.id,
        issuer: identity.issuer,
        email: identity.email,
        linkedAt: { iso: identity.createdAt, text: formatDateTime(identity.createdAt, user.timezone) },
      })),
    },
    ...data,
  };
}

function twoFactorSummary(user: User, status: TwoFactorStatus, available: boolean): TwoFactorSummary {
  return {
    available,
    state: status.state,
    enabledAt:
      status.enabledAt === null
        ? null
        : { iso: status.enabledAt, text: formatDateTime(status.enabledAt, user.timezone) },
    recoveryCodesLeft: status.recoveryCodesLeft,
    recoveryCodeCount: RECOVERY_CODE_COUNT,
  };
}
