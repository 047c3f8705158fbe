import type { Kysely } from 'kysely';
import type { Database, NewWebhookEvent, WebhookOutcome } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { addDays, calendarDateIn, isoString } from '../../shared/dates.js';
import { AppError, badRequest } from '../../shared/errors.js';
import { type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import type { Library } from '../library/library.service.js';
import type { MoviesService } from '../movies/movies.service.js';
import { countedWithin, insertEvent, listEvents, pruneEvents } from './inbox.repository.js';
import { MEDIA_SERVERS, type MediaServer } from './media-servers.js';
import type { MovieRef, WebhookInput } from './scrobble.types.js';
import { findWebhookByUuid, keptWebhooksByUuid } from './webhooks.repository.js';
import { parseAccountFilter } from './webhooks.service.js';

/** Reports are kept this long in the inbox. */
export const INBOX_RETENTION_DAYS = 30;
/** A user's reports past retention are deleted at most this often (by each process); never listed. */
const PRUNE_EVERY_MS = 3_600_000;
/** The stored copy of a report's body is cut here. */
export const MAX_STORED_PAYLOAD = 16 * 1024;

export interface ScrobbleResult {
  outcome: WebhookOutcome;
  reason: string | null;
  /** The movie the report was about, when it was matched. */
  serviceId: number | null;
  /** The calendar date a counted watch went on. */
  watchDate: string | null;
}

export interface InboxEntry {
  receivedAt: string;
  server: MediaServer;
  event: string | null;
  account: string | null;
  outcome: WebhookOutcome;
  reason: string | null;
  movie: { serviceId: number | null; title: string | null } | null;
  watchDate: string | null;
  payload: string | null;
}

export interface ScrobbleService {
  /**
   * The webhook at this server's URL with this UUID; null for an unknown UUID or anything that is not
   * a UUID at all. From memory between writes (SQLite): checked before a report's body is read.
   */
  findWebhook(server: MediaServer, uuid: string): Promise<Webhook | null>;
  /** Handles one report sent to a webhook's URL; 400 for a body that is no report. */
  handle(server: MediaServer, webhook: Webhook, input: WebhookInput): Promise<ScrobbleResult>;
  /** A page of the user's inbox, newest first. */
  inbox(
    userId: number,
    filter: { server?: MediaServer | undefined; outcome?: WebhookOutcome | undefined },
    page: PageRequest,
  ): Promise<Page<InboxEntry>>;
}

/** What a report needs of its webhook: owner, settings, the owner's time zone and watchlist setting. */
export type Webhook = NonNullable<Awaited<ReturnType<typeof findWebhookByUuid>>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createScrobbleService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  movies: MoviesService;
  library: Library;
  dedupeHours: number;
}): ScrobbleService {
  const { db, clock, movies, library } = deps;
  const dedupeMs = deps.dedupeHours * 3_600_000;
  // Every report looks its webhook up; between writes to webhooks or users it reads the same.
  const webhooks = keptWebhooksByUuid<Webhook | undefined>(db);

  const retentionStart = (now: Date) => addDays(now, -INBOX_RETENTION_DAYS).toISOString();
  /** When this process last deleted each user's reports past retention. */
  const prunedAt = new Map<number, number>();

  /** Writes the inbox entry (and, once an hour, forgets entries past retention) in the report's transaction. */
  const record = async (trx: Kysely<Database>, event: NewWebhookEvent) => {
    const now = clock.now();
    const last = prunedAt.get(event.user_id);
    if (last === undefined || Math.abs(now.getTime() - last) >= PRUNE_EVERY_MS) {
      await pruneEvents(trx, event.user_id, retentionStart(now));
      prunedAt.set(event.user_id, now.getTime());
    }
    await insertEvent(trx, withoutNul(event));
  };

  /** The service id of the reported movie, creating it through TMDB if needed, or why there is none. */
  const resolveMovie = async (ref: MovieRef): Promise<{ movieId: number } | { unmatched: string }> => {
    try {
      if (ref.tmdbId !== undefined) return { movieId: await movies.findOrAdd(ref.tmdbId) };
      if (ref.imdbId !== undefined) {
        const movieId = await movies.findOrAddByImdbId(ref.imdbId);
        return movieId === null
          ? { unmatched: `TMDB knows no movie with IMDb id ${ref.imdbId}` }
          : { movieId };
      }
      return { unmatched: 'the report carries no TMDB or IMDb id' };
    } catch (error) {
      // Unknown TMDB id, TMDB not configured or unreachable: the report is kept as unmatched.
      if (error instanceof AppError) return { unmatched: error.message };
      throw error;
    }
  };

  const countWatch = (hook: Webhook, movieId: number, watchedAt: Date, base: NewWebhookEvent) =>
    // The dedupe check reads before it writes: the library write holds the owner's lock.
    library.write(hook.user_id, async (lib): Promise<ScrobbleResult> => {
      // The day in the owner's time zone as it stands under the write's lock.
      const watchDate = calendarDateIn(watchedAt, (await lib.policy()).timezone);
      const eventAt = isoString(watchedAt.getTime());
      const window = (offset: number) => isoString(watchedAt.getTime() + offset);
      if (
        dedupeMs > 0 &&
        (await lib.alongside((trx) =>
          countedWithin(trx, hook.user_id, movieId, window(-dedupeMs), window(dedupeMs)),
        ))
      ) {
        const reason = `already counted within ${deps.dedupeHours} h`;
        await lib.alongside((trx) =>
          record(trx, {
            ...base,
            outcome: 'duplicate',
            reason,
            movie_id: movieId,
            event_at: eventAt,
            watch_date: watchDate,
          }),
        );
        return { outcome: 'duplicate', reason, serviceId: movieId, watchDate };
      }
      // A movie new on that date goes after the ones already watched that day.
      await lib.addPlays([
        { movieId, watchedAt: watchDate, plays: 1, comment: null, position: 'after-last' },
      ]);
      await lib.alongside((trx) =>
        record(trx, {
          ...base,
          outcome: 'counted',
          reason: null,
          movie_id: movieId,
          event_at: eventAt,
          watch_date: watchDate,
        }),
      );
      return { outcome: 'counted', reason: null, serviceId: movieId, watchDate };
    });

  const rate = (hook: Webhook, movieId: number, rating: number | null, base: NewWebhookEvent) =>
    library.write(hook.user_id, async (lib): Promise<ScrobbleResult> => {
      // The driver gives the rating on cinelog's 1-10 scale (src/modules/scrobble/drivers/plex.driver.ts).
      if (rating === null) await lib.clearRatings([movieId]);
      else await lib.setRatings([{ movieId, rating }]);
      const reason = rating === null ? 'rating cleared' : `rating set to ${rating}`;
      await lib.alongside((trx) => record(trx, { ...base, outcome: 'counted', reason, movie_id: movieId }));
      return { outcome: 'counted', reason, serviceId: movieId, watchDate: null };
    });

  const ignore = async (
    base: NewWebhookEvent,
    outcome: WebhookOutcome,
    reason: string,
  ): Promise<ScrobbleResult> => {
    await inTransaction(db, (trx) => record(trx, { ...base, outcome, reason }));
    return { outcome, reason, serviceId: null, watchDate: null };
  };

  return {
    async inbox(userId, filter, page) {
      const { rows, total } = await listEvents(db, userId, filter, page, retentionStart(clock.now()));
      const items = rows.map((row) => ({
        receivedAt: row.received_at,
        server: row.server,
        event: row.event,
        account: row.account,
        outcome: row.outcome,
        reason: row.reason,
        movie:
          row.movie_id === null && row.movie_title === null
            ? null
            : { serviceId: row.movie_id, title: row.movie_title },
        watchDate: row.watch_date,
        payload: row.payload,
      }));
      return pageOf(items, total, page);
    },

    async findWebhook(server, uuid) {
      if (!UUID.test(uuid)) return null;
      return (await webhooks.get(`${server}/${uuid}`, () => findWebhookByUuid(db, server, uuid))) ?? null;
    },

    async handle(server, hook, input) {
      const report = MEDIA_SERVERS[server].driver.parse(input);
      const base: NewWebhookEvent = {
        user_id: hook.user_id,
        server,
        received_at: isoString(input.receivedAt.getTime()),
        event: report.kind === 'rejected' ? null : report.event,
        account: report.kind === 'rejected' ? null : report.account,
        outcome: 'ignored',
        payload: storedPayload(input),
      };
      if (report.kind === 'rejected') {
        await ignore(base, 'rejected', report.reason);
        throw badRequest('InvalidWebhookPayload', report.reason);
      }
      if (report.kind === 'ignored') return ignore(base, 'ignored', report.reason);

      // A filter stored for a server whose reports name no user (set before this was refused) is not applied.
      const filter = MEDIA_SERVERS[server].supports.userFilter ? parseAccountFilter(hook.account_filter) : [];
      const account = report.account?.toLowerCase();
      if (filter.length > 0 && !filter.some((name) => name.toLowerCase() === account)) {
        return ignore(
          base,
          'ignored',
          `reported for ${report.account ?? 'no user'}, not in this webhook's user filter`,
        );
      }
      if (report.kind === 'watch' && hook.scrobble_watches !== 1) {
        return ignore(base, 'ignored', 'watch scrobbles are turned off for this webhook');
      }
      if (report.kind === 'rate' && hook.scrobble_ratings !== 1) {
        return ignore(base, 'ignored', 'rating scrobbles are turned off for this webhook');
      }

      const titled = { ...base, movie_title: report.movie.title ?? null };
      const resolved = await resolveMovie(report.movie);
      if ('unmatched' in resolved) return ignore(titled, 'unmatched', resolved.unmatched);
      return report.kind === 'watch'
        ? countWatch(hook, resolved.movieId, report.watchedAt, titled)
        : rate(hook, resolved.movieId, report.rating, titled);
    },
  };
}

/** Reports are foreign text: drop NUL characters, which PostgreSQL cannot store. */
function withoutNul(event: NewWebhookEvent): NewWebhookEvent {
  const texts = [event.event, event.account, event.reason, event.movie_title, event.payload];
  if (!texts.some((value) => typeof value === 'string' && value.includes('\u0000'))) return event;
  const clean = (value: string | null | undefined) =>
    typeof value === 'string' ? value.replaceAll('\u0000', '') : value;
  return {
    ...event,
    event: clean(event.event),
    account: clean(event.account),
    reason: clean(event.reason),
    movie_title: clean(event.movie_title),
    payload: clean(event.payload),
  };
}

function storedPayload(input: WebhookInput): string | null {
  const text = input.fields
    ? (input.fields.payload ?? input.fields.data ?? JSON.stringify(input.fields))
    : input.raw;
  if (text === null || text === undefined) return null;
  return text.length > MAX_STORED_PAYLOAD ? `${text.slice(0, MAX_STORED_PAYLOAD)}…[truncated]` : text;
}
