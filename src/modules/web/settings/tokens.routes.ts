import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound, ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { isTokenExpiry } from '../../auth/api-tokens.service.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { DEFAULT_TOKEN_EXPIRY, type TokensPageData, tokensPage } from './tokens.page.js';

// Longer than the service's 100 characters, so a too-long name gets the form back with the reason.
const CreateTokenForm = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  expiry: Type.String({ maxLength: 20 }),
});
// At most 9 digits: any larger number is no token id, and PostgreSQL's integer column would refuse it.
const TokenParams = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });

/** The services these pages use. */
export type TokenDeps = Pick<WebDeps, 'tokens'>;

/** Settings → API tokens: create (the value shown once), list, revoke one, revoke all. */
export function tokenRoutes(app: App, { render, settings }: Pages, { tokens }: TokenDeps): void {
  async function showTokens(
    request: FastifyRequest,
    reply: FastifyReply,
    data: TokensPageData,
    status = 200,
  ) {
    const { user } = currentUser(request);
    const list = await tokens.list(user.id);
    return render(request, reply, 'tokens', tokensPage(user, list, data), status);
  }

  app.get('/settings/tokens', { preHandler: requireSignIn }, (request, reply) =>
    showTokens(request, reply, {}),
  );

  // The value is answered right here, never through a redirect, a cookie or an address: shown once.
  app.post(
    '/settings/tokens',
    { preHandler: requireSignIn, schema: { body: CreateTokenForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const form = request.body;
      try {
        if (!isTokenExpiry(form.expiry)) throw new ValidationError('choose when the token expires');
        const created = await tokens.create(user.id, form.name, form.expiry);
        return await showTokens(request, reply, { created });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const expiry = isTokenExpiry(form.expiry) ? form.expiry : DEFAULT_TOKEN_EXPIRY;
        return showTokens(
          request,
          reply,
          { error: `The token was not created: ${error.message}.`, values: { name: form.name, expiry } },
          400,
        );
      }
    },
  );

  app.post(
    '/settings/tokens/:id/revoke',
    { preHandler: requireSignIn, schema: { params: TokenParams } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const token = await tokens.revokeById(user.id, Number(request.params.id));
      // Someone else's token reads exactly like one that does not exist.
      if (!token) throw notFound('RouteNotFound', 'You have no token with this number.');
      setFlash(reply, `Token "${token.name}" is revoked: programs using it get 401 from now on.`, settings);
      return reply.redirect('/settings/tokens', 303);
    },
  );

  app.get('/settings/tokens/revoke-all', { preHandler: requireSignIn }, async (request, reply) => {
    const { user } = currentUser(request);
    const active = (await tokens.list(user.id)).filter((token) => token.state === 'active').length;
    return render(request, reply, 'tokens-revoke-all', { title: 'Revoke all tokens?', active });
  });

  app.post('/settings/tokens/revoke-all', { preHandler: requireSignIn }, async (request, reply) => {
    const { user } = currentUser(request);
    const revoked = await tokens.revokeAll(user.id);
    setFlash(
      reply,
      revoked === 0
        ? 'You had no active tokens: nothing changed.'
        : 'All your tokens are revoked: programs using them get 401 from now on.',
      settings,
    );
    return reply.redirect('/settings/tokens', 303);
  });
}
