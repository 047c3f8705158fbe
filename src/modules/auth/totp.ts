import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: HMAC-SHA-1, 6 digits, 30-second steps. */
const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** A code of the step before or after the current one is accepted too: clocks drift, people type slowly. */
const STEP_WINDOW = 1;
/** 160 bits, the size RFC 4226 recommends. */
const SECRET_BYTES = 20;
const CODE_PATTERN = /^[0-9]{6}$/;

/** A new random secret, base32 (what authenticator apps take when it is typed in). */
export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32;

/** The `otpauth://` address a QR code carries to the app. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return new TOTP({ ...TOTP_SETTINGS, issuer, label: account, secret: Secret.fromBase32(secret) }).toString();
}

export const isTotpCode = (code: string) => CODE_PATTERN.test(code);

/**
 * The time step (unix time / 30 s) of the window's step the code belongs to, or null when it belongs to
 * none. The caller accepts a step once only.
 */
export function matchingStep(secret: string, code: string, now: Date): number | null {
  if (!isTotpCode(code)) return null;
  const timestamp = now.getTime();
  const delta = TOTP.validate({
    ...TOTP_SETTINGS,
    secret: Secret.fromBase32(secret),
    token: code,
    timestamp,
    window: STEP_WINDOW,
  });
  return delta === null ? null : TOTP.counter({ period: TOTP_SETTINGS.period, timestamp }) + delta;
}
