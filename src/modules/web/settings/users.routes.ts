import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { describeOwned, LastAdminError, type User } from '../../users/users.service.js';
import { isTicked } from '../shell/forms.js';
import { currentUser, requireAdmin, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { usersPage } from './users.page.js';

const NewUserForm = Type.Object({
  name: Type.String({ maxLength: 200 }),
  email: Type.String({ maxLength: 500 }),
  password: Type.String({ maxLength: 1000 }),
  isAdmin: Type.Optional(Type.String({ maxLength: 10 })),
});

const UserParams = Type.Object({ name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }) });

const RoleForm = Type.Object({ admin: Type.Union([Type.Literal('on'), Type.Literal('off')]) });

/** The name typed again: a deletion cannot be undone. */
const DeleteForm = Type.Object({ confirmName: Type.String({ maxLength: 200 }) });

/** The services these pages use. */
export type UserAdminDeps = Pick<WebDeps, 'users' | 'twoFactor'>;

/** Settings → users (admins): every account, the form that creates one, roles and deletion. */
export function userAdminRoutes(
  app: App,
  { render, settings }: Pages,
  { users, twoFactor }: UserAdminDeps,
): void {
  const adminOnly = { preHandler: [requireSignIn, requireAdmin] };

  const showUsers = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { values: Record<string, string | undefined>; error?: string },
    status = 200,
  ) => {
    const withTwoFactor = await twoFactor.usersWithTwoFactor();
    const all = await users.list();
    return render(
      request,
      reply,
      'users',
      usersPage(currentUser(request).user, all, withTwoFactor, data),
      status,
    );
  };

  app.get('/settings/users', adminOnly, async (request, reply) => showUsers(request, reply, { values: {} }));

  app.post('/settings/users', { ...adminOnly, schema: { body: NewUserForm } }, async (request, reply) => {
    const form = request.body;
    try {
      // The new account gets the server's time zone (TIMEZONE); its owner can change it in their settings.
      const created = await users.create({
        name: form.name.trim(),
        email: form.email,
        password: form.password,
        isAdmin: isTicked(form.isAdmin),
      });
      const role = created.isAdmin ? 'administrator' : 'user';
      setFlash(reply, `The ${role} ${created.name} is created and can sign in now.`, settings);
      return reply.redirect('/settings/users', 303);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return showUsers(request, reply, { error: error.message, values: { ...form, password: '' } }, 400);
    }
  });
}

/** The services these pages use. */
export type UserRoleDeps = Pick<WebDeps, 'users'>;

/** Settings → Users (administrators): making a user an administrator or not, deleting a user. */
export function userRoleRoutes(app: App, { render, settings }: Pages, { users }: UserRoleDeps): void {
  const adminOnly = { preHandler: [requireSignIn, requireAdmin] };

  const userNamed = async (name: string): Promise<User> => {
    const user = await users.findByName(name);
    if (!user) throw notFound('UserNotFound', `There is no user named "${name}".`);
    return user;
  };
  /** An administrator changes other accounts here; their own role and account stay (no lock-out by a slip). */
  const notSelf = (request: FastifyRequest, user: User, what: string) => {
    if (user.id === currentUser(request).user.id) {
      throw new AppError(
        400,
        'InvalidRequestBody',
        `You cannot ${what} your own account here: another administrator can, or use the command line.`,
      );
    }
  };
  const deletePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    error?: string,
    status = 200,
  ) =>
    render(
      request,
      reply,
      'user-delete',
      {
        title: `Delete the user ${user.name}?`,
        target: user.name,
        owned: describeOwned(await users.owned(user.name)),
        ...(error !== undefined && { error }),
      },
      status,
    );

  app.post(
    '/settings/users/:name/admin',
    { ...adminOnly, schema: { params: UserParams, body: RoleForm } },
    async (request, reply) => {
      const user = await userNamed(request.params.name);
      notSelf(request, user, 'change the role of');
      const updated = await users.update(user.name, { isAdmin: request.body.admin === 'on' });
      setFlash(
        reply,
        updated.isAdmin
          ? `${updated.name} is an administrator.`
          : `${updated.name} is no longer an administrator.`,
        settings,
      );
      return reply.redirect('/settings/users', 303);
    },
  );

  app.get(
    '/settings/users/:name/delete',
    { ...adminOnly, schema: { params: UserParams } },
    async (request, reply) => {
      const user = await userNamed(request.params.name);
      notSelf(request, user, 'delete');
      return deletePage(request, reply, user);
    },
  );

  app.post(
    '/settings/users/:name/delete',
    { ...adminOnly, schema: { params: UserParams, body: DeleteForm } },
    async (request, reply) => {
      const user = await userNamed(request.params.name);
      notSelf(request, user, 'delete');
      if (request.body.confirmName.trim() !== user.name) {
        return deletePage(request, reply, user, `Type the user name ${user.name} to confirm.`, 400);
      }
      try {
        const deleted = await users.delete(user.name);
        setFlash(
          reply,
          `The user ${deleted.name} is deleted, with ${describeOwned(deleted.rows)}.`,
          settings,
        );
        return reply.redirect('/settings/users', 303);
      } catch (error) {
        if (!(error instanceof LastAdminError)) throw error;
        return deletePage(request, reply, user, error.message, 409);
      }
    },
  );
}
