import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type pino from 'pino';
import { Type } from 'typebox';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';
import type { Mailer } from './integrations/mail/mailer.js';
import type { TmdbClient } from './integrations/tmdb/tmdb.types.js';
import type { BackgroundJobs } from './jobs/background-jobs.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { discoverOidcProvider } from './modules/auth/oidc-provider.js';
import type { MediaServerClientFactory } from './modules/backfill/backfill.service.js';
import { diaryRoutes } from './modules/diary/diary.routes.js';
import { exportRoutes } from './modules/exports/exports.routes.js';
import { feedRoutes } from './modules/feeds/feeds.routes.js';
import { historyRoutes } from './modules/history/history.routes.js';
import { imageRoutes } from './modules/images/images.routes.js';
import { importRoutes } from './modules/imports/imports.routes.js';
import { likesRoutes } from './modules/likes/likes.routes.js';
import { listsRoutes } from './modules/lists/lists.routes.js';
import { moviesRoutes } from './modules/movies/movies.routes.js';
import { playedRoutes } from './modules/played/played.routes.js';
import { ratingsRoutes } from './modules/ratings/ratings.routes.js';
import { inboxRoutes, webhookRoutes } from './modules/scrobble/scrobble.routes.js';
import { statisticsRoutes } from './modules/statistics/statistics.routes.js';
import { watchlistRoutes } from './modules/watchlist/watchlist.routes.js';
import { notFoundPage, webApp, webAssets } from './modules/web/web.plugin.js';
import { createServices } from './services.js';
import { type Clock, systemClock } from './shared/clock.js';
import { limitConnectionsPerClient } from './shared/connection-limits.js';
import { answerExpectations, earlyErrorOptions, registerErrorHandling } from './shared/error-handler.js';
import { standardOutput } from './shared/log-destination.js';
import { errorFields } from './shared/mapped-stack.js';
import { lazyChildLogger, requestCompletedLogger, requestFields } from './shared/request-log.js';
import { createSerializerBuilder } from './shared/serialization.js';
import { createValidatorCompiler } from './shared/validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The background job queue and this process's runner (src/jobs). */
    jobs: BackgroundJobs;
    /**
     * Compiles the request validators not used yet (they compile on first use otherwise; the server
     * leaves them so: test/app.test.ts proves each schema compiles). Answers how many it compiled.
     */
    compileValidators(): number;
    /** The same for the response serializers (fast-json-stringify): they too compile on first use. */
    compileSerializers(): number;
  }
}

export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  /** The movie data provider; null when TMDB_API_KEY is not set. */
  tmdb: TmdbClient | null;
  clock?: Clock;
  /** Sends the forgot-password mails; none when SMTP_URL is not set. */
  mailer?: Mailer | null;
  /** pino options, or false for no logging (tests). */
  logger?: FastifyServerOptions['logger'];
  /** SERVER_TIMEOUTS, but shorter in tests. */
  timeouts?: ServerTimeouts;
  /** The backfill's Plex, Jellyfin and Emby clients; absent: the real ones (tests page them smaller). */
  mediaServers?: MediaServerClientFactory;
}

const BODY_LIMIT = 1024 * 1024;

/**
 * The API documentation's policy: its own files only. The hash allows the one <style> element that
 * swagger-ui-bundle.js inserts (test/browser/api-docs.test.ts fails when an update changes it).
 */
const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; " +
  "frame-ancestors 'none'; form-action 'self'; img-src 'self' data:; object-src 'none'; " +
  "script-src 'self'; script-src-attr 'none'; " +
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

const DOCS_BACK_LINK_JS = `
const bar = document.createElement('nav');
bar.className = 'cinelog-back';
bar.setAttribute('aria-label', 'cinelog');
const link = document.createElement('a');
link.href = '/';
link.textContent = '← Back to cinelog';
bar.append(link);
document.body.prepend(bar);
`;
const DOCS_BACK_LINK_CSS =
  '.cinelog-back{padding:.6rem 1rem;background:#1b1f24;font:600 15px/1.4 system-ui,sans-serif}' +
  '.cinelog-back a{color:#fff;text-decoration:none}.cinelog-back a:hover,.cinelog-back a:focus-visible{text-decoration:underline}';

/** How long the HTTP server waits for a client (docs/configuration.md, "Connections"). */
export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this; a slower one gets 408. */
  requestMs: number;
  /** Its request line and headers must arrive within this (slowloris). */
  headersMs: number;
  /** An idle keep-alive connection is closed after this; longer than a reverse proxy's usual 60 s. */
  keepAliveMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = { requestMs: 60_000, headersMs: 20_000, keepAliveMs: 65_000 };

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;

  const timeouts = deps.timeouts ?? SERVER_TIMEOUTS;
  const serializers = createSerializerBuilder();
  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config),
    bodyLimit: BODY_LIMIT,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      // How often Node looks for requests past those timeouts (its default is every 30 s).
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(timeouts.headersMs / 4)),
    },
    ...earlyErrorOptions,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLogger,
    // One line per request, written when it completes (below), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // Response serializers compile on their first use, not at start (shared/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.maxConnections = config.maxConnections;
  // Up to half of MAX_CONNECTIONS may be held: the other half stays for everyone else.
  const connectionLimits = limitConnectionsPerClient(app.server, config.maxConnectionsPerClient, {
    maxHeld: Math.floor(config.maxConnections / 2),
  });
  // Held connections (past a client's limit) would keep the server from closing until they time out.
  app.addHook('preClose', (done) => {
    connectionLimits.releaseHeld();
    done();
  });
  answerExpectations(app.server);
  const validators = createValidatorCompiler();
  app.setValidatorCompiler(validators);
  app.decorate('compileValidators', () => validators.compileWaiting());
  app.decorate('compileSerializers', () => serializers.compileWaiting());
  app.decorateRequest('caller', null);
  app.decorateRequest('owner', null);
  // Callback hooks, not async ones: no promise per request for two lines of work.
  app.addHook('onRequest', (request, reply, done) => {
    // Every answer, JSON included, is read as the type it declares and never sniffed as another.
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    done();
  });
  registerErrorHandling(app, { htmlNotFound: notFoundPage });
  // METRICS=true: one more onResponse hook and GET /metrics; otherwise the module is not even loaded.
  const metrics = config.metrics
    ? (await import('./modules/metrics/metrics.js')).registerMetrics(app, { db, token: config.metricsToken })
    : null;
  const requestCompleted = requestCompletedLogger(app.log);
  app.addHook('onResponse', (request, reply, done) => {
    requestCompleted(request, reply);
    done();
  });

  /** Documented routes whose path is not under /api. */
  const outsideApi = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'cinelog API',
        version: '1',
        description:
          'Personal movie tracking: history, watchlist, played movies, ratings, the diary and its tags, likes, lists, statistics, movie search and add, token check. ' +
          'Authenticate with a personal API token as `Authorization: Bearer <token>` or `X-Service-Token: <token>` (never both).',
      },
      // Relative: "Try it out" on /docs/api then calls the host the page was opened under.
      servers: [{ url: '/api' }],
      components: {
        securitySchemes: {
          bearerToken: { type: 'http', scheme: 'bearer', description: 'personal API token' },
          serviceToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-Token',
            description: 'personal API token',
          },
        },
      },
    },
    transform: ({ schema, url }) => {
      if (url.startsWith('/api/')) return { schema, url: url.slice(4) };
      outsideApi.add(url);
      return { schema, url };
    },
    // The routes outside /api (the health check) say so: their own server, the site's root.
    transformObject: (documentObject) => {
      const { openapiObject } = documentObject as { openapiObject: { paths?: Record<string, object> } };
      for (const [path, item] of Object.entries(openapiObject.paths ?? {})) {
        if (outsideApi.has(path)) (item as { servers?: { url: string }[] }).servers = [{ url: '/' }];
      }
      return openapiObject as never;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs/api',
    uiConfig: { deepLinking: true },
    // A way back to the app above Swagger's own top bar (its files, so the CSP stays 'self').
    theme: {
      title: 'cinelog API',
      js: [{ filename: 'back-to-app.js', content: DOCS_BACK_LINK_JS }],
      css: [{ filename: 'back-to-app.css', content: DOCS_BACK_LINK_CSS }],
    },
    // The documentation page loads only its own scripts and styles, and is never framed or kept.
    staticCSP: DOCS_CSP,
    uiHooks: {
      onRequest: (_request, reply, done) => {
        reply.header('x-frame-options', 'DENY').header('cache-control', 'no-store');
        done();
      },
    },
  });

  // Every service, built once (services.ts): the same wiring as the command line's.
  const services = createServices({
    config,
    db,
    tmdb: deps.tmdb,
    clock,
    mailer: deps.mailer,
    log: app.log,
    jobsConcurrency: config.jobsConcurrency,
    mediaServers: deps.mediaServers,
    // OIDC_ISSUER_URL: its discovery document is read now; a wrong issuer stops the start (ConfigError).
    oidcProvider: config.oidc ? await discoverOidcProvider(config.oidc) : null,
  });
  const { guards, library, statistics, movies, jobs, imageBaseUrl, hits } = services;
  const scrobble = metrics ? metrics.observeScrobbles(services.scrobble) : services.scrobble;
  metrics?.observeJobs(jobs.queue);
  if (services.images) imageRoutes(app, { images: services.images });
  // Started by main.ts once the server listens (tests start it themselves when they need it).
  app.decorate('jobs', jobs);
  // Running jobs stop or go back to the queue; mails on their way are sent.
  app.addHook('onClose', () => services.close());

  await app.register(
    async (instance) => {
      const api = instance.withTypeProvider<TypeBoxTypeProvider>();
      // The API speaks JSON only: anything else is a 415, not a string that fails validation.
      api.removeContentTypeParser('text/plain');
      authRoutes(api, { guards });
      historyRoutes(api, { guards, library });
      watchlistRoutes(api, { guards, library });
      playedRoutes(api, { guards, library });
      ratingsRoutes(api, { guards, library });
      diaryRoutes(api, { guards, library });
      likesRoutes(api, { guards, library });
      listsRoutes(api, { guards, library });
      statisticsRoutes(api, { guards, statistics });
      moviesRoutes(api, { guards, movies, imageBaseUrl });
      inboxRoutes(api, { guards, scrobble });
      exportRoutes(api, { guards, exports: services.exports });
      // No credential but the UUID in the path, as the webhooks; no body to read.
      feedRoutes(api, { feeds: services.feeds, clock, hits });
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: '/api' },
  );
  // A scope of their own: the webhooks read bodies the JSON API refuses.
  await app.register(
    async (instance) =>
      webhookRoutes(instance.withTypeProvider<TypeBoxTypeProvider>(), {
        scrobble,
        clock,
        hits,
      }),
    { prefix: '/api' },
  );

  await app.register(
    async (instance) =>
      importRoutes(instance.withTypeProvider<TypeBoxTypeProvider>(), { guards, uploads: services.uploads }),
    { prefix: '/api' },
  );

  // The web app: its own scope, so cookies, sessions and CSRF checks never touch the API.
  await app.register(async (instance) =>
    webApp(instance, {
      appUrl: config.appUrl,
      imageBaseUrl: config.tmdb.imageBaseUrl,
      publicImageBaseUrl: imageBaseUrl,
      // OIDC_ONLY: no password sign-up either (an account made there could not sign in).
      registrationOpen: config.enableRegistration && !config.oidc?.only,
      defaultTimezone: config.timezone,
      users: services.users,
      sessions: services.sessions,
      tokens: services.tokens,
      webhooks: services.webhooks,
      feeds: services.feeds,
      scrobble,
      mailer: services.mailer,
      passwordResets: services.passwordResets,
      twoFactor: services.twoFactor,
      oidc: services.oidc,
      hits,
      signIn: services.signIn,
      forwardAuth:
        config.authProxy && services.forwardAuth
          ? { config: config.authProxy, service: services.forwardAuth }
          : null,
      status: services.status,
      library,
      movies,
      clock,
      statistics,
      yearReview: services.yearReview,
      uploads: services.uploads,
      exports: services.exports,
      backfill: services.backfill,
    }),
  );
  webAssets(app);

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness and database check',
        response: {
          200: Type.Object({ status: Type.Literal('ok') }),
          503: Type.Object({ status: Type.Literal('unavailable') }),
        },
      },
    },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(db);
        return { status: 'ok' as const };
      } catch (error) {
        app.log.error({ err: error }, 'health check: database unreachable');
        return reply.code(503).send({ status: 'unavailable' as const });
      }
    },
  );

  return app;
}

export function loggerOptions(
  config: Config,
  stream: pino.DestinationStream = standardOutput(),
): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    stream,
    // A request is logged as these three fields only, never its headers (tokens, cookies): nothing to
    // redact, and no redaction pass over every line (test/request-log.test.ts).
    serializers: { req: requestFields, err: errorFields },
  };
}
