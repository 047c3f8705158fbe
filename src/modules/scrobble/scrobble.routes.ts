import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { HitCounter } from '../../db/rate-limit-store.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { DEFAULT_LIMIT, DEFAULT_PAGE } from '../../shared/pagination.js';
import { errorResponses, UsernameParams } from '../../shared/schemas.js';
import { WindowCounter } from '../../shared/window-counter.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS, type MediaServer } from './media-servers.js';
import { multipartFieldsParser } from './multipart-fields.js';
import { InboxPage, InboxQuery, WebhookParams, webhookResponses } from './scrobble.schemas.js';
import type { ScrobbleService, Webhook } from './scrobble.service.js';
import type { WebhookInput } from './scrobble.types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The webhook a report's URL names, found before its body is read. */
    webhook: Webhook | null;
  }
}

/** Plex attaches a thumbnail JPEG to some events; room for it, and for chatty servers. */
const WEBHOOK_BODY_LIMIT = 8 * 1024 * 1024;
/** Reports per minute to one webhook URL. A media server sends a few per play. */
const WEBHOOK_RATE_PER_MINUTE = 120;
/**
 * Reports per minute one client address may send to webhook URLs that do not exist. Past it, every
 * report from that address is refused until the minute is over. Counted in memory: no row per attempt.
 */
const UNKNOWN_URLS_PER_MINUTE = 60;

/**
 * The four webhooks. Each server sends its own body format (multipart, urlencoded, JSON with any
 * content type), so this scope reads every body as text or form fields and leaves the rest to the drivers.
 * The URL is checked before the body is read: an unknown one is answered at once, unread.
 */
export async function webhookRoutes(
  app: App,
  deps: { scrobble: ScrobbleService; clock: Clock; hits: HitCounter },
) {
  const { scrobble, clock, hits } = deps;
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
  app.decorateRequest('webhook', null);
  const unknownUrls = new WindowCounter(UNKNOWN_URLS_PER_MINUTE, 60_000, clock);

  /** onRequest of a server's webhook: runs before the body is read. */
  const refuseAddress = (reply: FastifyReply, seconds: number) => {
    unread(reply).header('retry-after', String(seconds));
    return tooMany(
      `more than ${UNKNOWN_URLS_PER_MINUTE} reports a minute to unknown webhook URLs from this address; retry in ${seconds} s`,
    );
  };

  const findWebhook =
    (server: MediaServer): onRequestAsyncHookHandler =>
    async (request, reply) => {
      const blockedFor = unknownUrls.retryAfter(request.ip);
      if (blockedFor > 0) throw refuseAddress(reply, blockedFor);
      const { uuid } = request.params as { uuid: string };
      const webhook = await scrobble.findWebhook(server, uuid);
      if (!webhook) {
        unknownUrls.count(request.ip);
        const nowBlockedFor = unknownUrls.retryAfter(request.ip);
        if (nowBlockedFor > 0) throw refuseAddress(reply, nowBlockedFor);
        unread(reply);
        throw notFound('WebhookNotFound', 'no webhook at this URL');
      }
      // Counted in the database, so that N instances share one limit per URL; only real URLs have rows.
      const { current, ttl } = await hits(`webhook:${uuid}`, 60_000);
      if (current > WEBHOOK_RATE_PER_MINUTE) {
        const seconds = Math.ceil(ttl / 1000);
        // Media servers read none of the x-ratelimit-* headers: sent with a 429 only, with Retry-After.
        unread(reply).headers({
          'retry-after': String(seconds),
          'x-ratelimit-limit': String(WEBHOOK_RATE_PER_MINUTE),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(seconds),
        });
        throw tooMany(
          `more than ${WEBHOOK_RATE_PER_MINUTE} reports a minute to this URL; retry in ${seconds} s`,
        );
      }
      request.webhook = webhook;
    };

  for (const server of MEDIA_SERVER_KEYS) {
    const { name, segment } = MEDIA_SERVERS[server];
    app.post(
      `/webhook/${segment}/:uuid`,
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        onRequest: findWebhook(server),
        schema: {
          tags: ['webhooks'],
          summary: `Scrobble endpoint for ${name} (${segment})`,
          description:
            'No credential: the random UUID in the path is the secret. A report that is not a finished movie watch is acknowledged with 200 and changes nothing.',
          params: WebhookParams,
          response: webhookResponses,
        },
      },
      async (request) => scrobble.handle(server, request.webhook!, inputOf(request, clock.now())),
    );
  }
}

/** A refusal before the body is read: the connection closes after the answer, so the body never is. */
const unread = (reply: FastifyReply) => reply.header('connection', 'close');

const tooMany = (message: string) => new AppError(429, 'TooManyRequests', message);

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
      const { page = DEFAULT_PAGE, limit = DEFAULT_LIMIT, server, outcome } = request.query;
      const result = await scrobble.inbox(
        request.owner!.id,
        { server: server as MediaServer | undefined, outcome },
        { page, limit },
      );
      return { events: result.items, currentPage: result.currentPage, maxPage: result.maxPage };
    },
  );
}
