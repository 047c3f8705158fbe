import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { countAttempt, LOGIN_LIMITS } from '../../auth/attempt-limits.js';
import type { User } from '../../users/users.service.js';
import { isTicked } from '../shell/forms.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { type AccountPageData, accountPage, profileOf } from './account.page.js';

const PasswordForm = Type.Object({
  current: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  passwordConfirm: Type.String({ maxLength: 1000 }),
});
const EmailForm = Type.Object({
  email: Type.String({ maxLength: 500 }),
  current: Type.String({ maxLength: 1000 }),
});
const ProfileForm = Type.Object({
  timezone: Type.String({ maxLength: 100 }),
  privacy: Type.String({ maxLength: 20 }),
  ratingScale: Type.Optional(Type.String({ maxLength: 20 })),
  /** A checkbox: absent when unticked. */
  publicProfile: Type.Optional(Type.String({ maxLength: 10 })),
});

/** The services these pages use. */
export type AccountDeps = Pick<WebDeps, 'users' | 'hits' | 'mailer' | 'twoFactor' | 'oidc'>;

/** Settings → account: the password, the e-mail address, and the profile (time zone, privacy). */
export function accountRoutes(
  app: App,
  { render, settings }: Pages,
  { users, hits, mailer, twoFactor, oidc }: AccountDeps,
): void {
  // Whoever holds a session must not guess the current password at leisure (password and e-mail forms).
  const countGuess = (userId: number) =>
    countAttempt(hits, [{ key: `password-change:${userId}`, limit: LOGIN_LIMITS.perAccount }]);
  const pageOf = (user: User) => ({ profile: profileOf(user), email: user.email });

  const showAccount = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: AccountPageData,
    status = 200,
  ) => {
    const { user } = currentUser(request);
    const twoFactorStatus = await twoFactor.status(user.id);
    const page = accountPage(
      user,
      data,
      { status: twoFactorStatus, available: twoFactor.available },
      mailer !== null,
      oidc && { only: oidc.only, identities: await oidc.identitiesOf(user.id) },
    );
    return render(request, reply, 'account', page, status);
  };

  app.get('/settings/account', { preHandler: requireSignIn }, async (request, reply) =>
    showAccount(request, reply, pageOf(currentUser(request).user)),
  );

  app.post(
    '/settings/account/password',
    { preHandler: requireSignIn, schema: { body: PasswordForm } },
    async (request, reply) => {
      const { user, sessionId } = currentUser(request);
      const form = request.body;
      await countGuess(user.id);
      let ended: number;
      try {
        if (form.password !== form.passwordConfirm) throw new ValidationError('the two new passwords differ');
        // Other browsers signed in with the old password are signed out; API tokens stay active.
        ended = await users.changePassword(user.id, form.current, form.password, sessionId);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return showAccount(request, reply, { ...pageOf(user), passwordError: error.message }, 400);
      }
      const elsewhere = ended > 0 ? ' You are signed out in your other browsers.' : '';
      setFlash(reply, `Your password is changed.${elsewhere} Your API tokens still work.`, settings);
      return reply.redirect('/settings/account', 303);
    },
  );

  app.post(
    '/settings/account/email',
    { preHandler: requireSignIn, schema: { body: EmailForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const form = request.body;
      await countGuess(user.id);
      let changed: User;
      try {
        changed = await users.changeEmail(user.id, form.current, form.email);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const data = { ...pageOf(user), email: form.email, emailError: error.message };
        return showAccount(request, reply, data, 400);
      }
      const notice = mailer ? ` A notice went to ${user.email}.` : '';
      setFlash(reply, `Your e-mail address is now ${changed.email}.${notice}`, settings);
      return reply.redirect('/settings/account', 303);
    },
  );

  app.post(
    '/settings/account/profile',
    { preHandler: requireSignIn, schema: { body: ProfileForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const form = request.body;
      try {
        await users.update(user.name, {
          timezone: form.timezone,
          privacy: form.privacy,
          ...(form.ratingScale !== undefined && { ratingScale: form.ratingScale }),
          publicProfile: isTicked(form.publicProfile),
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const profile = {
          timezone: form.timezone,
          privacy: form.privacy,
          ratingScale: form.ratingScale ?? user.ratingScale,
          publicProfile: isTicked(form.publicProfile),
        };
        const data = { profile, email: user.email, profileError: error.message };
        return showAccount(request, reply, data, 400);
      }
      setFlash(reply, 'Your profile is saved.', settings);
      return reply.redirect('/settings/account', 303);
    },
  );
}
