import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { isTicked, NewAccountForm, timeZoneChoices } from '../shell/forms.js';
import type { Pages } from '../shell/render.js';
import {
  clearSessionCookie,
  SESSION_COOKIE,
  safeNext,
  setFlash,
  setSessionCookie,
} from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { askForCode } from './login-challenge.js';

const LoginQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 1000 })) });
const LoginForm = Type.Object({
  login: Type.String({ maxLength: 500 }),
  password: Type.String({ maxLength: 1000 }),
  remember: Type.Optional(Type.String({ maxLength: 10 })),
  next: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** The services these pages use. */
export type LoginDeps = Pick<
  WebDeps,
  'users' | 'sessions' | 'signIn' | 'twoFactor' | 'defaultTimezone' | 'oidc'
>;

/** Sign in, sign out, and the sign-up page (only with ENABLE_REGISTRATION=true). */
export function loginRoutes(
  app: App,
  { render, settings }: Pages,
  { users, sessions, signIn, twoFactor, defaultTimezone, oidc }: LoginDeps,
): void {
  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: Record<string, unknown>,
    status = 200,
  ) =>
    render(
      request,
      reply,
      'login',
      {
        title: 'Sign in',
        // The single sign-on button; OIDC_ONLY: the only way in (the password form is not shown).
        sso: oidc && { label: oidc.buttonLabel, only: oidc.only },
        ...data,
      },
      status,
    );

  app.get('/login', { schema: { querystring: LoginQuery } }, async (request, reply) => {
    if ((await users.count()) === 0) return reply.redirect('/setup', 303);
    if (request.signedIn) return reply.redirect(safeNext(request.query.next), 303);
    return loginPage(request, reply, { values: { next: safeNext(request.query.next) } });
  });

  app.post('/login', { schema: { body: LoginForm } }, async (request, reply) => {
    const form = request.body;
    const next = safeNext(form.next);
    if (oidc?.only) {
      // OIDC_ONLY: no password is even checked (the way back in for an administrator: docs/cli.md).
      return loginPage(
        request,
        reply,
        { error: 'Password sign-in is turned off here: sign in with single sign-on.', values: { next } },
        403,
      );
    }
    const user = await signIn.verify(form.login, form.password, request.ip);
    if (!user) {
      return loginPage(
        request,
        reply,
        {
          error: 'The name or e-mail and the password do not match an account.',
          values: { login: form.login, next },
        },
        401,
      );
    }
    // Two-factor sign-in on: no session before the code (login-two-factor.routes.ts).
    if (await twoFactor.isOn(user.id)) {
      return askForCode(reply, twoFactor, settings, {
        userId: user.id,
        persistent: isTicked(form.remember),
        next,
      });
    }
    // A fresh session on every sign-in: a session id planted before it is worth nothing after.
    const previous = request.cookies[SESSION_COOKIE];
    if (previous !== undefined) await sessions.end(previous);
    setSessionCookie(reply, await sessions.start(user.id, isTicked(form.remember)), settings);
    return reply.redirect(next, 303);
  });

  app.post('/logout', async (request, reply) => {
    const value = request.cookies[SESSION_COOKIE];
    if (value !== undefined) await sessions.end(value);
    clearSessionCookie(reply, settings);
    // Behind a sign-in proxy, its own sign-out too: it would sign the browser in here again at once.
    if (settings.proxyLogoutUrl) return reply.redirect(settings.proxyLogoutUrl, 303);
    setFlash(reply, 'You are signed out.', settings);
    return reply.redirect('/login', 303);
  });

  const registerPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: Record<string, unknown>,
    status = 200,
  ) =>
    render(
      request,
      reply,
      'register',
      { title: 'Create an account', timeZones: timeZoneChoices(), ...data },
      status,
    );

  app.get('/register', async (request, reply) => {
    if (!settings.registrationOpen) throw notFound('RouteNotFound', 'sign-up is closed on this installation');
    return registerPage(request, reply, { values: { timezone: defaultTimezone, guessTimezone: true } });
  });

  app.post('/register', { schema: { body: NewAccountForm } }, async (request, reply) => {
    if (!settings.registrationOpen) throw notFound('RouteNotFound', 'sign-up is closed on this installation');
    const form = request.body;
    try {
      if (form.password !== form.passwordConfirm) throw new ValidationError('the two passwords differ');
      const user = await users.create({
        name: form.name.trim(),
        email: form.email,
        password: form.password,
        timezone: form.timezone,
      });
      setSessionCookie(reply, await sessions.start(user.id, false), settings);
      setFlash(reply, `Welcome, ${user.name}. Your account is ready.`, settings);
      return reply.redirect('/', 303);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return registerPage(
        request,
        reply,
        { error: error.message, values: { ...form, password: '', passwordConfirm: '' } },
        400,
      );
    }
  });
}
