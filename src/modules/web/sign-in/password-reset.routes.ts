import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { countAttempt, RESET_LIMITS } from '../../auth/attempt-limits.js';
import { InvalidResetLinkError, RESET_LINK_MINUTES } from '../../auth/password-resets.service.js';
import type { Pages } from '../shell/render.js';
import { clearSessionCookie, setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';

/** Holds the link's secret after the mail's link was opened, so that it leaves the address bar. */
const RESET_COOKIE = 'cinelog_reset';
const RESET_PATH = '/reset-password';

const SENT_NOTICE =
  'If an account has this address, we have sent it a link to set a new password. The link works once, for one hour.';
const DONE_NOTICE = 'Your new password is set. All API tokens and sign-ins of the account were revoked.';

const ForgotForm = Type.Object({ email: Type.String({ maxLength: 500 }) });
const LinkParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const ResetForm = Type.Object({
  password: Type.String({ maxLength: 1000 }),
  passwordConfirm: Type.String({ maxLength: 1000 }),
});

/** The services these pages use. */
export type PasswordResetDeps = Pick<WebDeps, 'passwordResets' | 'hits' | 'mailer'>;

/** Forgot password and the reset link. */
export function passwordResetRoutes(
  app: App,
  { render, settings }: Pages,
  { passwordResets, hits, mailer }: PasswordResetDeps,
): void {
  const cookieOptions = {
    path: RESET_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secureCookies,
  } as const;

  const forgotPage = (request: FastifyRequest, reply: FastifyReply, status = 200) =>
    render(
      request,
      reply,
      'forgot-password',
      { title: 'Forgot your password?', mailConfigured: mailer !== null },
      status,
    );

  const resetPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { invalid?: boolean; error?: string },
    status = 200,
  ) => {
    if (data.invalid) reply.clearCookie(RESET_COOKIE, cookieOptions);
    return render(request, reply, 'reset-password', { title: 'Set a new password', ...data }, status);
  };

  app.get('/forgot-password', async (request, reply) => forgotPage(request, reply));

  app.post('/forgot-password', { schema: { body: ForgotForm } }, async (request, reply) => {
    // Without SMTP nothing is sent: say so again rather than pretend.
    if (mailer === null) return forgotPage(request, reply, 400);
    const email = request.body.email.trim().toLowerCase();
    // Counted for any address, known or not, so that a refusal tells nothing either.
    await countAttempt(hits, [
      { key: `reset-address:${request.ip}`, limit: RESET_LIMITS.perAddress },
      { key: `reset-account:${email}`, limit: RESET_LIMITS.perAccount },
    ]);
    // Not awaited: the same answer, as fast, whether or not an account has this address.
    passwordResets.request(email);
    setFlash(reply, SENT_NOTICE, settings);
    return reply.redirect('/forgot-password', 303);
  });

  // The mail's link: its secret goes into a cookie only this page's address receives.
  app.get('/reset-password/:token', { schema: { params: LinkParams } }, async (request, reply) => {
    reply.setCookie(RESET_COOKIE, request.params.token, {
      ...cookieOptions,
      maxAge: RESET_LINK_MINUTES * 60,
    });
    return reply.redirect(RESET_PATH, 303);
  });

  app.get(RESET_PATH, async (request, reply) => {
    const open = await passwordResets.isOpen(request.cookies[RESET_COOKIE] ?? '');
    return open ? resetPage(request, reply, {}) : resetPage(request, reply, { invalid: true }, 400);
  });

  app.post(RESET_PATH, { schema: { body: ResetForm } }, async (request, reply) => {
    const form = request.body;
    const token = request.cookies[RESET_COOKIE] ?? '';
    try {
      if (!(await passwordResets.isOpen(token))) throw new InvalidResetLinkError();
      if (form.password !== form.passwordConfirm) throw new ValidationError('the two passwords differ');
      await passwordResets.consume(token, form.password);
    } catch (error) {
      if (error instanceof InvalidResetLinkError) return resetPage(request, reply, { invalid: true }, 400);
      if (error instanceof ValidationError) return resetPage(request, reply, { error: error.message }, 400);
      throw error;
    }
    reply.clearCookie(RESET_COOKIE, cookieOptions);
    // That sign-in, if any, has just ended with all the others.
    clearSessionCookie(reply, settings);
    setFlash(reply, DONE_NOTICE, settings);
    return reply.redirect('/login', 303);
  });
}
