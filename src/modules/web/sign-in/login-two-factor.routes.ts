import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { CHALLENGE_MINUTES, ChallengeExpiredError, WrongCodeError } from '../../auth/two-factor.service.js';
import { asSentence } from '../shell/format.js';
import type { Pages } from '../shell/render.js';
import { SESSION_COOKIE, safeNext, setFlash, setSessionCookie } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { CHALLENGE_COOKIE, CODE_PATH, challengeCookie } from './login-challenge.js';

const CodeQuery = Type.Object({ with: Type.Optional(Type.String({ maxLength: 20 })) });
const CodeForm = Type.Object({ code: Type.String({ maxLength: 100 }) });

const EXPIRED_NOTICE = `The sign-in waited more than ${CHALLENGE_MINUTES} minutes for its code: sign in again.`;
const TOO_MANY_NOTICE = 'Too many wrong codes: sign in again.';

/** The services these pages use. */
export type LoginTwoFactorDeps = Pick<WebDeps, 'twoFactor' | 'sessions'>;

/** The sign-in's second step: a code from the authenticator app, or a recovery code. */
export function loginTwoFactorRoutes(
  app: App,
  { render, settings }: Pages,
  { twoFactor, sessions }: LoginTwoFactorDeps,
): void {
  const codePage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { recovery: boolean; error?: string },
    status = 200,
  ) => render(request, reply, 'login-two-factor', { title: 'Two-factor sign-in', ...data }, status);

  const backToLogin = (reply: FastifyReply, notice: string) => {
    reply.clearCookie(CHALLENGE_COOKIE, challengeCookie(settings));
    setFlash(reply, notice, settings);
    return reply.redirect('/login', 303);
  };

  app.get(CODE_PATH, { schema: { querystring: CodeQuery } }, async (request, reply) => {
    if (!(await twoFactor.isChallengeOpen(request.cookies[CHALLENGE_COOKIE]))) {
      return backToLogin(reply, EXPIRED_NOTICE);
    }
    return codePage(request, reply, { recovery: request.query.with === 'recovery-code' });
  });

  app.post(CODE_PATH, { schema: { body: CodeForm } }, async (request, reply) => {
    const { code } = request.body;
    const recovery = !/^[\d\s]*$/.test(code);
    let done: Awaited<ReturnType<typeof twoFactor.completeChallenge>>;
    try {
      done = await twoFactor.completeChallenge(request.cookies[CHALLENGE_COOKIE], code);
    } catch (error) {
      if (error instanceof ChallengeExpiredError) {
        return backToLogin(reply, error.reason === 'expired' ? EXPIRED_NOTICE : TOO_MANY_NOTICE);
      }
      if (error instanceof WrongCodeError) {
        const left = error.attemptsLeft;
        const tail = left === undefined ? '' : ` ${left} ${left === 1 ? 'try' : 'tries'} left.`;
        return codePage(request, reply, { recovery, error: `${asSentence(error.message)}${tail}` }, 401);
      }
      if (error instanceof ValidationError) {
        return codePage(request, reply, { recovery, error: asSentence(error.message) }, 400);
      }
      throw error;
    }
    // As after a password alone: a fresh session, whatever cookie the browser had before.
    const previous = request.cookies[SESSION_COOKIE];
    if (previous !== undefined) await sessions.end(previous);
    setSessionCookie(reply, await sessions.start(done.userId, done.persistent), settings);
    reply.clearCookie(CHALLENGE_COOKIE, challengeCookie(settings));
    if (done.usedRecoveryCode) {
      const left = done.recoveryCodesLeft;
      setFlash(
        reply,
        `You signed in with a recovery code; it no longer works. ${left} ${left === 1 ? 'code is' : 'codes are'} left: ` +
          'make new ones under Settings → Account.',
        settings,
      );
    }
    return reply.redirect(safeNext(done.next), 303);
  });
}
