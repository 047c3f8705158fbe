import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { type Enrolment, TwoFactorStateError } from '../../auth/two-factor.service.js';
import type { User } from '../../users/users.service.js';
import { asSentence } from '../shell/format.js';
import { currentUser, requireAdmin, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { qrCodeDataUri } from './qr-code.js';

const BASE = '/settings/account/two-factor';
const ACCOUNT = '/settings/account';

const CodeForm = Type.Object({ code: Type.String({ maxLength: 100 }) });
const TurnOffForm = Type.Object({
  password: Type.String({ maxLength: 1000 }),
  code: Type.String({ maxLength: 100 }),
});
// The pattern of user names (users.service.ts): anything else names nobody.
const UserParams = Type.Object({ name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }) });

/** The secret as people copy it by hand: groups of four. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)!.join(' ');

/** The services these pages use. */
export type TwoFactorDeps = Pick<WebDeps, 'twoFactor'>;

/**
 * Settings → Account → two-factor sign-in: setting it up (QR code, confirming a code, the recovery codes
 * shown once), new recovery codes, turning it off (password and code).
 */
export function twoFactorRoutes(app: App, { render, settings }: Pages, { twoFactor }: TwoFactorDeps): void {
  const signedIn = { preHandler: requireSignIn };

  const setupPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    enrolment: Enrolment,
    error?: string,
    status = 200,
  ) =>
    render(
      request,
      reply,
      'two-factor-setup',
      {
        title: 'Set up two-factor sign-in',
        qrCode: qrCodeDataUri(enrolment.uri),
        secret: grouped(enrolment.secret),
        account: enrolment.account,
        issuer: enrolment.issuer,
        error: error ?? null,
      },
      status,
    );

  /** The recovery codes, in the answer to the form that made them: shown this once. */
  const codesPage = (request: FastifyRequest, reply: FastifyReply, codes: string[], justTurnedOn: boolean) =>
    render(request, reply, 'two-factor-recovery-codes', {
      title: justTurnedOn ? 'Two-factor sign-in is on' : 'New recovery codes',
      codes,
      justTurnedOn,
      error: null,
    });

  const newCodesForm = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    const { state, recoveryCodesLeft } = await twoFactor.status(currentUser(request).user.id);
    if (state !== 'on') return reply.redirect(ACCOUNT, 303);
    return render(
      request,
      reply,
      'two-factor-recovery-codes',
      { title: 'New recovery codes', codes: null, recoveryCodesLeft, error: error ?? null },
      status,
    );
  };

  const turnOffForm = async (request: FastifyRequest, reply: FastifyReply, error?: string, status = 200) => {
    if (!(await twoFactor.isOn(currentUser(request).user.id))) return reply.redirect(ACCOUNT, 303);
    return render(
      request,
      reply,
      'two-factor-turn-off',
      { title: 'Turn off two-factor sign-in', error: error ?? null },
      status,
    );
  };

  app.get(BASE, signedIn, async (request, reply) => {
    const enrolment = await twoFactor.pending(currentUser(request).user);
    if (!enrolment) return reply.redirect(ACCOUNT, 303);
    return setupPage(request, reply, enrolment);
  });

  app.post(`${BASE}/start`, signedIn, async (request, reply) => {
    const { user } = currentUser(request);
    if (!twoFactor.available) {
      setFlash(
        reply,
        'Two-factor sign-in needs a server key (SECRET_KEY) that this server does not have.',
        settings,
      );
      return reply.redirect(ACCOUNT, 303);
    }
    if (await twoFactor.isOn(user.id)) return reply.redirect(ACCOUNT, 303);
    await twoFactor.begin(user);
    return reply.redirect(BASE, 303);
  });

  app.post(`${BASE}/confirm`, { ...signedIn, schema: { body: CodeForm } }, async (request, reply) => {
    const { user } = currentUser(request);
    try {
      const codes = await twoFactor.confirm(user.id, request.body.code);
      return await codesPage(request, reply, codes, true);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const enrolment = await twoFactor.pending(user);
      if (error instanceof TwoFactorStateError || !enrolment) {
        setFlash(reply, asSentence(error.message), settings);
        return reply.redirect(ACCOUNT, 303);
      }
      return setupPage(request, reply, enrolment, asSentence(error.message), 400);
    }
  });

  app.post(`${BASE}/cancel`, signedIn, async (request, reply) => {
    await twoFactor.cancel(currentUser(request).user.id);
    setFlash(reply, 'The setup is cancelled: two-factor sign-in stays off.', settings);
    return reply.redirect(ACCOUNT, 303);
  });

  app.get(`${BASE}/recovery-codes`, signedIn, (request, reply) => newCodesForm(request, reply));

  app.post(`${BASE}/recovery-codes`, { ...signedIn, schema: { body: CodeForm } }, async (request, reply) => {
    try {
      const codes = await twoFactor.regenerateRecoveryCodes(currentUser(request).user.id, request.body.code);
      return await codesPage(request, reply, codes, false);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return newCodesForm(request, reply, asSentence(error.message), 400);
    }
  });

  app.get(`${BASE}/turn-off`, signedIn, (request, reply) => turnOffForm(request, reply));

  app.post(`${BASE}/turn-off`, { ...signedIn, schema: { body: TurnOffForm } }, async (request, reply) => {
    const form = request.body;
    try {
      await twoFactor.turnOff(currentUser(request).user.id, form.password, form.code);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return turnOffForm(request, reply, asSentence(error.message), 400);
    }
    setFlash(reply, 'Two-factor sign-in is off: signing in asks for your password only.', settings);
    return reply.redirect(ACCOUNT, 303);
  });
}

/** The services these pages use. */
export type TwoFactorAdminDeps = Pick<WebDeps, 'users' | 'twoFactor'>;

/** Settings → Users (administrators): turning a user's two-factor sign-in off, after a confirmation. */
export function twoFactorAdminRoutes(
  app: App,
  { render, settings }: Pages,
  { users, twoFactor }: TwoFactorAdminDeps,
): void {
  const adminOnly = { preHandler: [requireSignIn, requireAdmin], schema: { params: UserParams } };

  const userNamed = async (name: string): Promise<User> => {
    const user = await users.findByName(name);
    if (!user) throw notFound('UserNotFound', `There is no user named "${name}".`);
    return user;
  };

  app.get('/settings/users/:name/two-factor/turn-off', adminOnly, async (request, reply) => {
    const user = await userNamed(request.params.name);
    return render(request, reply, 'user-two-factor-off', {
      title: `Turn off two-factor sign-in for ${user.name}?`,
      target: user.name,
      on: await twoFactor.isOn(user.id),
    });
  });

  app.post('/settings/users/:name/two-factor/turn-off', adminOnly, async (request, reply) => {
    const user = await userNamed(request.params.name);
    const wasOn = await twoFactor.turnOffFor(user.id);
    setFlash(
      reply,
      wasOn
        ? `Two-factor sign-in of ${user.name} is off: they sign in with their password alone until they turn it on again.`
        : `${user.name} did not have two-factor sign-in on: nothing changed.`,
      settings,
    );
    return reply.redirect('/settings/users', 303);
  });
}
