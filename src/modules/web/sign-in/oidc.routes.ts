import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { OIDC_CALLBACK_PATH, OIDC_LOGIN_MINUTES, OidcRefusal } from '../../auth/oidc.service.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import {
  type CookieSettings,
  SESSION_COOKIE,
  safeNext,
  setFlash,
  setSessionCookie,
} from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';

// Single sign-on (docs/sso.md): the sign-in page's button and Settings → Account's "Link" post here;
// the browser goes to the issuer and comes back to the callback. What the callback checks (state,
// nonce, PKCE verifier) waits in a table row whose secret only this browser holds, in a short-lived
// httpOnly, SameSite=Lax cookie sent to /auth/oidc only (not the session: there is none yet).

/** The cookie of a sign-in on its way to the issuer. */
export const OIDC_COOKIE = 'cinelog_oidc';
const OIDC_COOKIE_PATH = '/auth/oidc';
export const OIDC_START_PATH = '/auth/oidc';
export const OIDC_LINK_PATH = '/settings/account/sso/link';

const StartForm = Type.Object({ next: Type.Optional(Type.String({ maxLength: 1000 })) });
const UnlinkForm = Type.Object({ identity: Type.String({ maxLength: 20, pattern: '^[0-9]{1,15}$' }) });

const oidcCookie = (settings: CookieSettings) =>
  ({ path: OIDC_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: settings.secureCookies }) as const;

/** The services these pages use. */
export type OidcDeps = Pick<WebDeps, 'oidc' | 'sessions'>;

export function oidcRoutes(app: App, { render, settings }: Pages, { oidc, sessions }: OidcDeps): void {
  const sso = () => {
    if (!oidc) throw notFound('RouteNotFound', 'single sign-on is not set up on this installation');
    return oidc;
  };

  const toIssuer = async (reply: FastifyReply, linkUserId: number | null, next: string) => {
    const { handle, url } = await sso().begin({ linkUserId, next });
    reply.setCookie(OIDC_COOKIE, handle, { ...oidcCookie(settings), maxAge: OIDC_LOGIN_MINUTES * 60 });
    return reply.redirect(url, 303);
  };

  const refused = (request: FastifyRequest, reply: FastifyReply, refusal: OidcRefusal) => {
    // The reason only: never the code, the state or a token.
    request.log.warn({ reason: refusal.reason, status: refusal.statusCode }, 'single sign-on refused');
    return render(
      request,
      reply,
      'error',
      { title: 'Single sign-on did not work', message: refusal.message },
      refusal.statusCode,
    );
  };

  app.post(OIDC_START_PATH, { schema: { body: StartForm } }, async (request, reply) =>
    toIssuer(reply, null, safeNext(request.body.next)),
  );

  app.post(OIDC_LINK_PATH, { preHandler: requireSignIn }, async (request, reply) =>
    toIssuer(reply, currentUser(request).user.id, '/settings/account'),
  );

  app.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    const service = sso();
    const handle = request.cookies[OIDC_COOKIE];
    // Single use, whatever comes of it.
    reply.clearCookie(OIDC_COOKIE, oidcCookie(settings));
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    let outcome: Awaited<ReturnType<typeof service.finish>>;
    try {
      outcome = await service.finish(handle, query);
    } catch (error) {
      if (error instanceof OidcRefusal) return refused(request, reply, error);
      throw error;
    }
    if (outcome.kind === 'linked') {
      request.log.info({ userId: outcome.user.id }, 'single sign-on linked');
      setFlash(reply, 'Single sign-on is linked to your account.', settings);
      return reply.redirect('/settings/account', 303);
    }
    // As a password sign-in: a fresh session, the same cookie. A browser session (no "remember me":
    // signing in again is a click at the issuer). Two-factor is the issuer's to ask.
    const previous = request.cookies[SESSION_COOKIE];
    if (previous !== undefined) await sessions.end(previous);
    setSessionCookie(reply, await sessions.start(outcome.user.id, false), settings);
    request.log.info({ userId: outcome.user.id, created: outcome.created }, 'single sign-on');
    if (outcome.created) setFlash(reply, `Welcome, ${outcome.user.name}. Your account is ready.`, settings);
    return reply.redirect(outcome.next, 303);
  });

  app.post(
    '/settings/account/sso/unlink',
    { preHandler: requireSignIn, schema: { body: UnlinkForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      try {
        await sso().unlink(user.id, Number(request.body.identity));
      } catch (error) {
        if (error instanceof OidcRefusal) return refused(request, reply, error);
        throw error;
      }
      setFlash(reply, 'Single sign-on is unlinked from your account.', settings);
      return reply.redirect('/settings/account', 303);
    },
  );
}
