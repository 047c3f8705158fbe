import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { Clock } from '../src/shared/clock.js';
import type { WebClient } from './web-client.js';

/** A SECRET_KEY for tests that set one (PostgreSQL has no two-factor sign-in without it). */
export const TEST_SECRET_KEY = 'a test server key, long enough to pass';

/** The code an authenticator app shows at `at` for a base32 secret: computed as any app does. */
export const codeFor = (secret: string, at: Date) =>
  TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    timestamp: at.getTime(),
  });

/** A code of the right form that the app does not show at `at`, nor a step before or after. */
export function wrongCodeFor(secret: string, at: Date): string {
  const near = [-30_000, 0, 30_000].map((offset) => codeFor(secret, new Date(at.getTime() + offset)));
  let code = 0;
  while (near.includes(String(code).padStart(6, '0'))) code++;
  return String(code).padStart(6, '0');
}

/** The setup key the setup page shows for typing in, spaces dropped. */
export function secretOnPage(html: string): string {
  const shown = /id="totp-secret"[^>]*>([A-Z2-7 ]+)</.exec(html)?.[1];
  if (!shown) throw new Error('no setup key on this page');
  return shown.replace(/ /g, '');
}

/** The recovery codes a page lists. */
export const recoveryCodesOnPage = (html: string) =>
  [...html.matchAll(/<li><code>([0-9a-z]{4}(?:-[0-9a-z]{4}){3})<\/code><\/li>/g)].map((match) => match[1]!);

/**
 * Turns two-factor sign-in on through the account page, as a person would: start, read the key from the
 * page, confirm the app's code. Then moves the clock on one step, so that the next code is a new one.
 */
export async function turnOnTwoFactor(
  client: WebClient,
  clock: Clock & { advance(ms: number): void },
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await client.submit('/settings/account', '/settings/account/two-factor/start');
  expect(started.statusCode).toBe(303);
  expect(started.headers.location).toBe('/settings/account/two-factor');
  const secret = secretOnPage((await client.follow(started)).body);
  const confirmed = await client.post('/settings/account/two-factor/confirm', {
    code: codeFor(secret, clock.now()),
  });
  expect(confirmed.statusCode).toBe(200);
  const recoveryCodes = recoveryCodesOnPage(confirmed.body);
  expect(recoveryCodes).toHaveLength(10);
  clock.advance(30_000);
  return { secret, recoveryCodes };
}
