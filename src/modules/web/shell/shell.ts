import { IncomingMessage, ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { WebDeps } from '../web.deps.js';
import { webErrorHandler } from './error-page.js';
import { registerForwardAuth } from './forward-auth.js';
import { createPageParts, createRenderer, type PageSettings, type Pages } from './render.js';
import { SESSION_COOKIE } from './session.js';

/** What the shell needs of the web module's services. */
export type ShellDeps = Pick<
  WebDeps,
  'appUrl' | 'imageBaseUrl' | 'registrationOpen' | 'status' | 'sessions' | 'forwardAuth' | 'oidc'
>;

/**
 * The pages' shell, in the web app's scope: cookies, forms, the security headers, the CSRF check, the
 * templates (`viewsDir`), the signed-in user of each request and the error pages. Answers what every
 * area's routes are given to make their pages.
 */
export async function registerShell(app: FastifyInstance, deps: ShellDeps, viewsDir: string): Promise<Pages> {
  const settings: PageSettings = {
    secureCookies: deps.appUrl.startsWith('https:'),
    registrationOpen: deps.registrationOpen,
    tmdbConfigured: deps.status.tmdbConfigured,
    proxyLogoutUrl: deps.forwardAuth?.config.logoutUrl ?? null,
  };
  const render = createRenderer(settings);
  const partials = new Eta({ views: viewsDir, cache: true });

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // helmet's headers, made once and set as the reply's own (docs/performance.md, "The web pages").
  const securityHeaders = headersOf(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', new URL(deps.imageBaseUrl).origin],
          connectSrc: ["'self'"],
          fontSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          // Sign out may end at the sign-in proxy's logout (AUTH_PROXY_LOGOUT_URL), and the single sign-on
          // button's form is answered with a redirect to the issuer: browsers hold a form's redirect to
          // form-action too.
          formAction: [
            "'self'",
            ...(settings.proxyLogoutUrl ? [new URL(settings.proxyLogoutUrl).origin] : []),
            ...(deps.oidc ? [deps.oidc.authorizationOrigin] : []),
          ],
          frameAncestors: ["'none'"],
          ...(settings.secureCookies && { upgradeInsecureRequests: [] }),
        },
      },
      // HSTS only means something over https; on a plain-http home network it would lock people out.
      strictTransportSecurity: settings.secureCookies ? { maxAge: 15_552_000 } : false,
      referrerPolicy: { policy: 'same-origin' },
    }),
  );
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'cinelog_csrf',
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: settings.secureCookies },
  });
  await app.register(view, {
    engine: { eta: new Eta({ cache: true }) },
    templates: viewsDir,
    defaultContext: { appName: 'cinelog' },
    viewExt: 'eta',
    // Templates are read and compiled once. Without it @fastify/view turns Eta's cache off (outside
    // NODE_ENV=production) and every page read and compiled each template again: 8.6 ms of CPU for
    // the history page instead of about 0.5 (bench "HTML history page 1").
    production: true,
  });

  app.decorateRequest('signedIn', null);
  app.addHook('onRequest', async (request, reply) => {
    // Pages show personal data and one-time secrets: never kept by a browser or a proxy cache
    // (`cache-control: no-store`, with the security headers).
    reply.headers(securityHeaders);
    request.signedIn = await deps.sessions.resolve(request.cookies[SESSION_COOKIE]);
  });
  // AUTH_PROXY_HEADER: after the cookie's user is known; without it, not a hook more.
  if (deps.forwardAuth) registerForwardAuth(app, deps.forwardAuth, { sessions: deps.sessions, settings });
  // Every state-changing form carries the CSRF token; checked before anything reads the form.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    app.csrfProtection(request, reply, done);
  });
  app.setErrorHandler(webErrorHandler(render));

  return { settings, render, parts: createPageParts((template, data) => partials.render(template, data)) };
}

/**
 * The headers a helmet middleware sets, read once from a response of its own, with `cache-control:
 * no-store`. Set through the reply rather than by the middleware on each request: a header set on
 * Node's response (`setHeader`) sends every other header of the answer through Node's slow path too,
 * and the middleware's dozen functions ran for each page (3 % of a cached page's CPU).
 */
function headersOf(
  middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void,
): Readonly<Record<string, string>> {
  const request = new IncomingMessage(null as never);
  const response = new ServerResponse(request);
  middleware(request, response, (error) => {
    if (error) throw error;
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.getHeaders())) headers[name] = String(value);
  headers['cache-control'] = 'no-store';
  return Object.freeze(headers);
}
