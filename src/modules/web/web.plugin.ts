import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packageRoot } from '../../shared/paths.js';
import { listRoutes } from './history/lists.routes.js';
import { logRoutes } from './history/log.routes.js';
import { publicProfileRoutes } from './history/public-profile.routes.js';
import { homeRoutes } from './home/home.routes.js';
import { dataRoutes } from './imports/data.routes.js';
import { listsRoutes } from './lists/lists.routes.js';
import { browseRoutes } from './movies/browse.routes.js';
import { moviePageRoutes } from './movies/movie-page.routes.js';
import { searchRoutes } from './movies/search.routes.js';
import { accountRoutes } from './settings/account.routes.js';
import { integrationRoutes } from './settings/integrations.routes.js';
import { statusRoutes } from './settings/status.routes.js';
import { tokenRoutes } from './settings/tokens.routes.js';
import { twoFactorAdminRoutes, twoFactorRoutes } from './settings/two-factor.routes.js';
import { userAdminRoutes, userRoleRoutes } from './settings/users.routes.js';
import { redirectPostOnlyAddresses } from './shell/post-addresses.js';
import { registerShell } from './shell/shell.js';
import { loginRoutes } from './sign-in/login.routes.js';
import { loginTwoFactorRoutes } from './sign-in/login-two-factor.routes.js';
import { oidcRoutes } from './sign-in/oidc.routes.js';
import { passwordResetRoutes } from './sign-in/password-reset.routes.js';
import { setupRoutes } from './sign-in/setup.routes.js';
import { statisticsRoutes } from './statistics/statistics.routes.js';
import type { WebDeps } from './web.deps.js';

// Templates and assets stay in src/modules/web, whether this module runs from src/, dist/ or the bundle.
const WEB_DIR = join(packageRoot(import.meta.url), 'src', 'modules', 'web', '/');

/**
 * The web app at `/`: the shell (shell/: cookies, sessions, CSRF, security headers, templates, error
 * pages), then each area's pages, given the shell's page helpers and the services they use.
 */
export async function webApp(app: FastifyInstance, deps: WebDeps): Promise<void> {
  // Pages are not part of the API's OpenAPI document.
  const postUrls: string[] = [];
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    if (route.method === 'POST') postUrls.push(route.url);
  });
  const pages = await registerShell(app, deps, `${WEB_DIR}views`);

  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  setupRoutes(routes, pages, deps);
  loginRoutes(routes, pages, deps);
  loginTwoFactorRoutes(routes, pages, deps);
  oidcRoutes(routes, pages, deps);
  homeRoutes(routes, pages, deps);
  accountRoutes(routes, pages, deps);
  twoFactorRoutes(routes, pages, deps);
  tokenRoutes(routes, pages, deps);
  integrationRoutes(routes, pages, deps);
  dataRoutes(routes, pages, deps);
  userAdminRoutes(routes, pages, deps);
  userRoleRoutes(routes, pages, deps);
  twoFactorAdminRoutes(routes, pages, deps);
  passwordResetRoutes(routes, pages, deps);
  statusRoutes(routes, pages, deps);
  statisticsRoutes(routes, pages, deps);
  searchRoutes(routes, pages, deps);
  logRoutes(routes, pages, deps);
  moviePageRoutes(routes, pages, deps);
  listRoutes(routes, pages, deps);
  listsRoutes(routes, pages, deps);
  browseRoutes(routes, pages, deps);
  publicProfileRoutes(routes, pages, deps);
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
