import type { FastifyReply } from 'fastify';
import { CHALLENGE_MINUTES } from '../../auth/two-factor.service.js';
import type { CookieSettings } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';

// The two-factor step of a sign-in, shared by the password sign-in (login.routes.ts), which starts it,
// and the code page (login-two-factor.routes.ts), which ends it.

/** Holds the secret of a sign-in whose password was right and whose code is awaited. */
export const CHALLENGE_COOKIE = 'cinelog_two_factor';
export const CODE_PATH = '/login/two-factor';

export const challengeCookie = (settings: CookieSettings) =>
  ({ path: CODE_PATH, httpOnly: true, sameSite: 'lax', secure: settings.secureCookies }) as const;

/**
 * The answer to a right password of an account with two-factor sign-in on: no session yet, but a
 * short-lived challenge (its secret in a cookie only the code page receives) and the code page.
 */
export async function askForCode(
  reply: FastifyReply,
  twoFactor: WebDeps['twoFactor'],
  settings: CookieSettings,
  sign: { userId: number; persistent: boolean; next: string },
): Promise<FastifyReply> {
  const challenge = await twoFactor.startChallenge(sign.userId, sign.persistent, sign.next);
  reply.setCookie(CHALLENGE_COOKIE, challenge.value, {
    ...challengeCookie(settings),
    maxAge: CHALLENGE_MINUTES * 60,
  });
  return reply.redirect(CODE_PATH, 303);
}
