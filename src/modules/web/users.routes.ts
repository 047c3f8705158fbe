import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { forbidden, ValidationError } from '../../shared/errors.js';
import type { App } from '../../shared/http.js';
import { currentUser, requireSignIn, setFlash } from './web.context.js';
import { formatDateTime } from './web.format.js';
import type { WebContext } from './web.plugin.js';
import { isTicked } from './web.schemas.js';

const NewUserForm = Type.Object({
  name: Type.String({ maxLength: 200 }),
  email: Type.String({ maxLength: 500 }),
  password: Type.String({ maxLength: 1000 }),
  isAdmin: Type.Optional(Type.String({ maxLength: 10 })),
});

/** preHandler after requireSignIn: pages for administrators only; anyone else gets a 403 page. */
export async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!currentUser(request).user.isAdmin) throw forbidden('Only an administrator can open this page.');
}

/** Settings → users (admins): every account, and the form that creates one. */
export function userAdminRoutes(app: App, web: WebContext): void {
  const { users, twoFactor, render, settings } = web;
  const adminOnly = { preHandler: [requireSignIn, requireAdmin] };

  const usersPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { values: Record<string, string | undefined>; error?: string },
    status = 200,
  ) => {
    const viewer = currentUser(request).user;
    const withTwoFactor = await twoFactor.usersWithTwoFactor();
    const rows = (await users.list()).map((user) => ({
      name: user.name,
      email: user.email,
      isAdmin: user.isAdmin,
      twoFactor: withTwoFactor.has(user.id),
      created: formatDateTime(user.createdAt, viewer.timezone),
    }));
    return render(request, reply, 'users', { title: 'Users', rows, ...data }, status);
  };

  app.get('/settings/users', adminOnly, async (request, reply) => usersPage(request, reply, { values: {} }));

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
      return usersPage(request, reply, { error: error.message, values: { ...form, password: '' } }, 400);
    }
  });
}
