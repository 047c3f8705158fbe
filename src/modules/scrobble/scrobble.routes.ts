import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { multipartFieldsParser } from './multipart-fields.js';
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
  app.addContentTypeParser(
    'multipart/form-data',
    multipartFieldsParser({ bodyBytes: WEBHOOK_BODY_LIMIT, fields: 100, files: 4 }),
  );
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
  // multipart/form-data: its text fields (multipartFieldsParser); every other type: the text.
  if (body !== null && typeof body === 'object')
    return { contentType, fields: body as Record<string, string>, raw: null, receivedAt };
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
