import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { handleError } from '../../shared/error-handler.js';
import { AppError } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { InboxPage, InboxQuery, WebhookParams, webhookResponses } from './scrobble.schemas.js';
import type { ScrobbleService } from './scrobble.service.js';
import { MEDIA_SERVERS, type MediaServer, type WebhookInput } from './scrobble.types.js';

/** Plex attaches a thumbnail JPEG to some events; room for it, and for chatty servers. */
const WEBHOOK_BODY_LIMIT = 8 * 1024 * 1024;
/** Reports per minute to one webhook URL. A media server sends a few per play. */
const WEBHOOK_RATE_PER_MINUTE = 120;

const SERVER_NAMES: Record<MediaServer, string> = {
  plex: 'Plex',
  jellyfin: 'Jellyfin',
  emby: 'Emby',
  kodi: 'Kodi',
};

/**
 * The four webhooks. Each server sends its own body format (multipart, urlencoded, JSON with any
 * content type), so this scope reads every body as text or form fields and leaves the rest to the drivers.
 */
export async function webhookRoutes(
  app: App,
  deps: { scrobble: ScrobbleService; clock: Clock; rateLimitStore: unknown },
) {
  const { scrobble, clock, rateLimitStore } = deps;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: WEBHOOK_BODY_LIMIT, files: 4, fields: 100, fieldSize: WEBHOOK_BODY_LIMIT },
  });
  // A multipart body that breaks off or is mangled fails inside the parser with a plain Error: that is
  // a malformed report (400), not a server fault. Errors once the handler runs keep their meaning.
  const handled = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', (request, _reply, done) => {
    handled.add(request);
    done();
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (!handled.has(request) && request.isMultipart() && error.statusCode === undefined) {
      return reply
        .code(400)
        .send({ error: 'InvalidWebhookPayload', message: `malformed multipart body: ${error.message}` });
    }
    return handleError(error, request, reply);
  });
  await app.register(rateLimit, {
    max: WEBHOOK_RATE_PER_MINUTE,
    timeWindow: 60_000,
    // Counted in the database, so that N instances share one limit per URL.
    store: rateLimitStore as never,
    keyGenerator: (request) => `webhook:${(request.params as { uuid?: string }).uuid ?? request.ip}`,
    // Media servers read none of the x-ratelimit-* headers: sent with a 429 only, with Retry-After.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    // The body is the API's envelope.
    errorResponseBuilder: (_request, context) =>
      new AppError(
        429,
        'TooManyRequests',
        `more than ${WEBHOOK_RATE_PER_MINUTE} reports a minute to this URL; retry in ${context.after}`,
      ),
  });

  for (const [server, segment] of Object.entries(MEDIA_SERVERS) as [MediaServer, string][]) {
    app.post(
      `/webhook/${segment}/:uuid`,
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags: ['webhooks'],
          summary: `Scrobble endpoint for ${SERVER_NAMES[server]} (${segment})`,
          description:
            'No credential: the random UUID in the path is the secret. A report that is not a finished movie watch is acknowledged with 200 and changes nothing.',
          params: WebhookParams,
          response: webhookResponses,
        },
      },
      async (request) => scrobble.handle(server, request.params.uuid, inputOf(request, clock.now())),
    );
  }
}

function inputOf(request: FastifyRequest, receivedAt: Date): WebhookInput {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const body = request.body as unknown;
  if (request.isMultipart() && body && typeof body === 'object') {
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) {
      // Files (Plex's thumb) arrive as Buffers and are dropped; a part sent as application/json
      // arrives parsed, and goes back to text so every body form reaches the drivers alike.
      if (typeof value === 'string') fields[name] = value;
      else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value))
        fields[name] = JSON.stringify(value);
    }
    return { contentType, fields, raw: null, receivedAt };
  }
  return { contentType, fields: null, raw: typeof body === 'string' ? body : null, receivedAt };
}

/** The webhook inbox: the reports a user's media servers sent, and what became of each. Owner only. */
export function inboxRoutes(
  app: App,
  { guards, scrobble }: { guards: AuthGuards; scrobble: ScrobbleService },
) {
  app.get(
    '/users/:username/webhook-events',
    {
      // Raw payloads name devices and addresses: the owner alone reads them, whatever the privacy setting.
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        tags: ['webhooks'],
        summary: "The user's webhook inbox: every report of the last 30 days, newest first, with its outcome",
        security: tokenSecurity,
        params: UsernameParams,
        querystring: InboxQuery,
        response: { 200: InboxPage, ...errorResponses },
      },
    },
    async (request) => {
      const { page = 1, limit = 24, server, outcome } = request.query;
      const result = await scrobble.inbox(
        request.owner!.id,
        { server: server as MediaServer | undefined, outcome },
        { page, limit },
      );
      return { events: result.items, currentPage: result.currentPage, maxPage: result.maxPage };
    },
  );
}
