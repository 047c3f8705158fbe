import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type pino from 'pino';
import { Type } from 'typebox';
import type { Config } from './config.js';
import { databaseHitCounter, databaseRateLimitStore } from './db/rate-limit-store.js';
import type { Database } from './db/schema.js';
import { createMailer, type Mailer } from './integrations/mail/mailer.js';
import type { TmdbClient } from './integrations/tmdb/tmdb.types.js';
import { createApiTokensService } from './modules/auth/api-tokens.service.js';
import { createAuthGuards } from './modules/auth/auth.guards.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { createPasswordResetsService } from './modules/auth/password-resets.service.js';
import { secretKeySource } from './modules/auth/secret-box.js';
import { createSessionsService } from './modules/auth/sessions.service.js';
import { createTwoFactorService } from './modules/auth/two-factor.service.js';
import { historyRoutes } from './modules/history/history.routes.js';
import { createHistoryService } from './modules/history/history.service.js';
import { ListPageCache } from './modules/movies/list-cache.js';
import { moviesRoutes } from './modules/movies/movies.routes.js';
import { createMoviesService } from './modules/movies/movies.service.js';
import { playedRoutes } from './modules/played/played.routes.js';
import { createPlayedService } from './modules/played/played.service.js';
import { scrobbleDrivers } from './modules/scrobble/drivers/index.js';
import { inboxRoutes, webhookRoutes } from './modules/scrobble/scrobble.routes.js';
import { createScrobbleService } from './modules/scrobble/scrobble.service.js';
import { createWebhooksService } from './modules/scrobble/webhooks.service.js';
import { createUsersService } from './modules/users/users.service.js';
import { watchlistRoutes } from './modules/watchlist/watchlist.routes.js';
import { createWatchlistService } from './modules/watchlist/watchlist.service.js';
import { notFoundPage, webApp, webAssets } from './modules/web/web.plugin.js';
import { type Clock, systemClock } from './shared/clock.js';
import { registerErrorHandling } from './shared/error-handler.js';
import { standardOutput } from './shared/log-destination.js';
import { lazyChildLogger, requestCompletedLogger, requestFields } from './shared/request-log.js';
import { createValidatorCompiler } from './shared/validation.js';

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
}

const BODY_LIMIT = 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;

  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    childLoggerFactory: lazyChildLogger,
    // One line per request, written when it completes (below), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandling(app, { htmlNotFound: notFoundPage });
  app.decorateRequest('caller', null);
  app.decorateRequest('owner', null);
  // Callback hooks, not async ones: no promise per request for two lines of work.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  const requestCompleted = requestCompletedLogger(app.log);
  app.addHook('onResponse', (request, reply, done) => {
    requestCompleted(request, reply);
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'cinelog API',
        version: '1',
        description:
          'Personal movie tracking: history, watchlist, played movies, movie search and add, token check. ' +
          'Authenticate with a personal API token as `Authorization: Bearer <token>` or `X-Service-Token: <token>` (never both).',
      },
      servers: [{ url: `${config.appUrl}/api` }],
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
    transform: ({ schema, url }) => ({ schema, url: url.startsWith('/api/') ? url.slice(4) : url }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs/api', uiConfig: { deepLinking: true } });

  const users = createUsersService({ db, clock, defaultTimezone: config.timezone });
  const tokens = createApiTokensService({ db, clock });
  const sessions = createSessionsService({ db, clock });
  const guards = createAuthGuards({ tokens, users });
  const imageBaseUrl = config.tmdb.imageBaseUrl;
  const history = createHistoryService({ db, clock, imageBaseUrl });
  const watchlist = createWatchlistService({ db, clock, imageBaseUrl });
  const played = createPlayedService({ db, clock, imageBaseUrl });
  const movies = createMoviesService({ db, clock, tmdb: deps.tmdb });
  const pages = new ListPageCache(db);
  const scrobble = createScrobbleService({
    db,
    clock,
    movies,
    drivers: scrobbleDrivers,
    dedupeHours: config.scrobbleDedupeHours,
  });
  const mailer =
    deps.mailer !== undefined
      ? deps.mailer
      : config.smtpUrl
        ? createMailer(config.smtpUrl, config.mailFrom)
        : null;
  const passwordResets = createPasswordResetsService({
    db,
    clock,
    mailer,
    appUrl: config.appUrl,
    log: app.log,
  });
  app.addHook('onClose', async () => {
    // Reset mails on their way are sent first; a mailer given by the caller is the caller's to close.
    await passwordResets.idle();
    if (deps.mailer === undefined) mailer?.close();
  });

  await app.register(
    async (instance) => {
      const api = instance.withTypeProvider<TypeBoxTypeProvider>();
      // The API speaks JSON only: anything else is a 415, not a string that fails validation.
      api.removeContentTypeParser('text/plain');
      authRoutes(api, { guards });
      historyRoutes(api, { guards, history, pages });
      watchlistRoutes(api, { guards, watchlist, pages });
      playedRoutes(api, { guards, played, pages });
      moviesRoutes(api, { guards, movies });
      inboxRoutes(api, { guards, scrobble });
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
        rateLimitStore: databaseRateLimitStore(db, clock),
      }),
    { prefix: '/api' },
  );

  const hits = databaseHitCounter(db, clock);
  const twoFactor = createTwoFactorService({
    db,
    clock,
    keys: secretKeySource({ secretKey: config.secretKey, databaseUrl: config.databaseUrl }),
    hits,
  });

  // The web app: its own scope, so cookies, sessions and CSRF checks never touch the API.
  await app.register(async (instance) =>
    webApp(instance, {
      appUrl: config.appUrl,
      imageBaseUrl: config.tmdb.imageBaseUrl,
      registrationOpen: config.enableRegistration,
      defaultTimezone: config.timezone,
      users,
      sessions,
      tokens,
      webhooks: createWebhooksService({ db, clock, appUrl: config.appUrl }),
      scrobble,
      mailer,
      passwordResets,
      twoFactor,
      hits,
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
    serializers: { req: requestFields },
  };
}
