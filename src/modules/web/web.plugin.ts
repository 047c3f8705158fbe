import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';
import { packageRoot } from '../../shared/paths.js';
import { listRoutes } from './history/lists.routes.js';
import { logRoutes } from './history/log.routes.js';
import { publicProfileRoutes } from './history/public-profile.routes.js';
import { homeRoutes } from './home/home.routes.js';
import { dataRoutes } from './imports/data.routes.js';
import { browseRoutes } from './movies/browse.routes.js';
import { moviePageRoutes } from './movies/movie-page.routes.js';
import { accountRoutes } from './settings/account.routes.js';
import { integrationRoutes } from './settings/integrations.routes.js';
import { statusRoutes } from './settings/status.routes.js';
import { tokenRoutes } from './settings/tokens.routes.js';
import { twoFactorAdminRoutes, twoFactorRoutes } from './settings/two-factor.routes.js';
import { userAdminRoutes, userRoleRoutes } from './settings/users.routes.js';
import { redirectPostOnlyAddresses } from './shell/post-addresses.js';
import { createRenderer, type PageSettings, SESSION_COOKIE } from './shell/web.context.js';
import { webErrorHandler } from './shell/web.errors.js';
import { loginRoutes } from './sign-in/login.routes.js';
import { loginTwoFactorRoutes } from './sign-in/login-two-factor.routes.js';
import { passwordResetRoutes } from './sign-in/password-reset.routes.js';
import { setupRoutes } from './sign-in/setup.routes.js';
import { statisticsRoutes } from './statistics/statistics.routes.js';
import type { WebContext, WebDeps } from './web.deps.js';

// Templates and assets stay in src/modules/web, whether this module runs from src/, dist/ or the bundle.
const WEB_DIR = join(packageRoot(import.meta.url), 'src', 'modules', 'web', '/');

/** The web app at `/`: pages, forms, sign-in sessions. Its cookies and CSRF checks stay in this scope. */
export async function webApp(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const settings: PageSettings = {
    secureCookies: deps.appUrl.startsWith('https:'),
    registrationOpen: deps.registrationOpen,
    tmdbConfigured: deps.status.tmdbConfigured,
  };
  const render = createRenderer(settings);
  const fragments = new Eta({ views: `${WEB_DIR}views`, cache: true });
  const web: WebContext = {
    ...deps,
    settings,
    render,
    fragment: (template, data) => fragments.render(template, data),
  };

  // Pages are not part of the API's OpenAPI document.
  const postUrls: string[] = [];
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    if (route.method === 'POST') postUrls.push(route.url);
  });

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // helmet's middleware, made once: @fastify/helmet made it again from the options on every request
  // (about 4 % of a cached page's CPU, docs/performance.md).
  const securityHeaders = helmet({
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
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(settings.secureCookies && { upgradeInsecureRequests: [] }),
      },
    },
    // HSTS only means something over https; on a plain-http home network it would lock people out.
    strictTransportSecurity: settings.secureCookies ? { maxAge: 15_552_000 } : false,
    referrerPolicy: { policy: 'same-origin' },
  });
  app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, () => done()));
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'cinelog_csrf',
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: settings.secureCookies },
  });
  await app.register(view, {
    engine: { eta: new Eta({ cache: true }) },
    templates: `${WEB_DIR}views`,
    defaultContext: { appName: 'cinelog' },
    viewExt: 'eta',
    // Templates are read and compiled once. Without it @fastify/view turns Eta's cache off (outside
    // NODE_ENV=production) and every page read and compiled each template again: 8.6 ms of CPU for
    // the history page instead of about 0.5 (bench "HTML history page 1").
    production: true,
  });

  app.decorateRequest('signedIn', null);
  app.addHook('onRequest', async (request, reply) => {
    request.signedIn = await deps.sessions.resolve(request.cookies[SESSION_COOKIE]);
    // Pages show personal data and one-time secrets: never kept by a browser or a proxy cache.
    reply.header('cache-control', 'no-store');
  });
  // Every state-changing form carries the CSRF token; checked before anything reads the form.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'GET' || request.method === 'HEAD') return done();
    app.csrfProtection(request, reply, done);
  });
  app.setErrorHandler(webErrorHandler(render));

  const pages = app.withTypeProvider<TypeBoxTypeProvider>();
  setupRoutes(pages, web);
  loginRoutes(pages, web);
  loginTwoFactorRoutes(pages, web);
  homeRoutes(pages, web);
  accountRoutes(pages, web);
  twoFactorRoutes(pages, web);
  tokenRoutes(pages, web);
  integrationRoutes(pages, web);
  dataRoutes(pages, web);
  userAdminRoutes(pages, web);
  userRoleRoutes(pages, web);
  twoFactorAdminRoutes(pages, web);
  passwordResetRoutes(pages, web);
  statusRoutes(pages, web);
  statisticsRoutes(pages, web);
  logRoutes(pages, web);
  moviePageRoutes(pages, web);
  listRoutes(pages, web);
  browseRoutes(pages, web);
  publicProfileRoutes(pages, web);
  redirectPostOnlyAddresses(app, postUrls);
}

/**
 * The pages' stylesheet, script, logo, web app manifest and font: small, read once. Browsers keep them
 * a day; the font, which never changes under its name, a year.
 */
export function webAssets(app: FastifyInstance): void {
  const DAY = 'public, max-age=86400';
  const assets = [
    { path: '/assets/app.css', file: 'app.css', type: 'text/css; charset=utf-8', cache: DAY },
    { path: '/assets/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8', cache: DAY },
    { path: '/assets/logo.svg', file: 'logo.svg', type: 'image/svg+xml', cache: DAY },
    {
      path: '/assets/manifest.webmanifest',
      file: 'manifest.webmanifest',
      type: 'application/manifest+json',
      cache: DAY,
    },
    {
      path: '/assets/inter-latin-wght-normal.woff2',
      file: 'inter-latin-wght-normal.woff2',
      type: 'font/woff2',
      cache: 'public, max-age=31536000, immutable',
    },
  ];
  // htmx (npm `htmx.org`, a dependency): only enhances pages that work without it.
  const htmx = readFileSync(
    join(packageRoot(import.meta.url), 'node_modules', 'htmx.org', 'dist', 'htmx.min.js'),
  );
  app.get('/assets/htmx.min.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', DAY).send(htmx),
  );
  for (const asset of assets) {
    const body = readFileSync(`${WEB_DIR}assets/${asset.file}`);
    app.get(asset.path, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('content-type', asset.type).header('cache-control', asset.cache).send(body),
    );
  }
}

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Page not found · cinelog</title>' +
  '<link rel="stylesheet" href="/assets/app.css"></head><body><main id="main"><section class="card narrow">' +
  '<h1>Page not found</h1><p>There is no page at this address.</p><p><a href="/">Back to the start page</a></p>' +
  '</section></main></body></html>';

/**
 * The page a browser gets for an address that is not the API's and not a page's. It is answered
 * outside the web app's scope, so it carries the pages' protections itself.
 */
export const notFoundPage = (reply: FastifyReply) =>
  reply
    .code(404)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'self'; style-src 'self'; script-src 'none'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'referrer-policy': 'same-origin',
    })
    .send(NOT_FOUND_PAGE);
