import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { HitCounter } from '../../db/rate-limit-store.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { App } from '../../shared/http.js';
import { WindowCounter } from '../../shared/window-counter.js';
import { FeedParams, radarrFeedResponses } from './feeds.schemas.js';
import type { FeedsService } from './feeds.service.js';

/** Reads per minute of one feed URL. Radarr reads a list every few hours; a person tries it a few times. */
export const FEED_RATE_PER_MINUTE = 30;
/**
 * Reads per minute one client address may make of feed URLs that do not exist. Past it, every read
 * from that address is refused until the minute is over (as the webhooks do). Counted in memory.
 */
export const UNKNOWN_FEEDS_PER_MINUTE = 60;

const tooMany = (message: string) => new AppError(429, 'TooManyRequests', message);

/**
 * The feeds: no credential but the random UUID in the path, as a webhook's. An unknown, removed or
 * malformed UUID gets the same 404, and the same limits apply as to the webhooks.
 */
export function feedRoutes(app: App, deps: { feeds: FeedsService; clock: Clock; hits: HitCounter }) {
  const { feeds, clock, hits } = deps;
  const unknownUrls = new WindowCounter(UNKNOWN_FEEDS_PER_MINUTE, 60_000, clock);

  const refuse = (reply: FastifyReply, seconds: number, message: string) => {
    reply.header('retry-after', String(seconds));
    return tooMany(message);
  };

  app.get(
    '/feed/radarr/:uuid',
    {
      schema: {
        tags: ['feeds'],
        summary: "A user's watchlist as a Radarr list (Custom Lists or StevenLu Custom)",
        description:
          'No credential: the random UUID in the path is the secret (Settings → Integrations, or `cinelog feed create --kind radarr`). ' +
          'Every movie on the watchlist that has a TMDB id, in one JSON array, in the order they were added.',
        params: FeedParams,
        response: radarrFeedResponses,
      },
    },
    async (request, reply) => {
      const blockedFor = unknownUrls.retryAfter(request.ip);
      const unknownMessage = (seconds: number) =>
        `more than ${UNKNOWN_FEEDS_PER_MINUTE} reads a minute of unknown feed URLs from this address; retry in ${seconds} s`;
      if (blockedFor > 0) throw refuse(reply, blockedFor, unknownMessage(blockedFor));
      const owner = await feeds.ownerOf('radarr', request.params.uuid);
      if (!owner) {
        unknownUrls.count(request.ip);
        const nowBlockedFor = unknownUrls.retryAfter(request.ip);
        if (nowBlockedFor > 0) throw refuse(reply, nowBlockedFor, unknownMessage(nowBlockedFor));
        throw notFound('FeedNotFound', 'no feed at this URL');
      }
      // Counted in the database, as the webhooks' are: N instances share one limit per URL.
      const { current, ttl } = await hits(`feed:${request.params.uuid}`, 60_000);
      if (current > FEED_RATE_PER_MINUTE) {
        const seconds = Math.ceil(ttl / 1000);
        reply.headers({
          'x-ratelimit-limit': String(FEED_RATE_PER_MINUTE),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(seconds),
        });
        throw refuse(
          reply,
          seconds,
          `more than ${FEED_RATE_PER_MINUTE} reads a minute of this URL; retry in ${seconds} s`,
        );
      }
      // Streamed page by page: a watchlist of thousands is never one string in memory.
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(Readable.from(feeds.radarrList(owner)) as never);
    },
  );
}
