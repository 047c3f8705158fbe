import { type Kysely, sql } from 'kysely';
import { precompiled } from '../../db/precompiled.js';
import type { Database, NewWebhookEvent, WebhookOutcome } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import type { MediaServer } from './media-servers.js';

type Db = Kysely<Database>;

// Every report runs these, compiled once; the insert always names every column.
const EVENT_COLUMNS = [
  'user_id',
  'server',
  'received_at',
  'event',
  'account',
  'outcome',
  'reason',
  'movie_id',
  'movie_title',
  'event_at',
  'watch_date',
  'payload',
] as const;
const insertRow = precompiled(
  (db, ...values: unknown[]) =>
    db
      .insertInto('webhook_events')
      .values(Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]])) as unknown as NewWebhookEvent),
  EVENT_COLUMNS.length,
);

export async function insertEvent(db: Db, event: NewWebhookEvent): Promise<void> {
  await insertRow(db, ...EVENT_COLUMNS.map((column) => event[column] ?? null));
}

const prune = precompiled(
  (db, userId: number, before: string) =>
    db.deleteFrom('webhook_events').where('user_id', '=', userId).where('received_at', '<', before),
  2,
);

/** Forgets a user's reports received before `before`. */
export async function pruneEvents(db: Db, userId: number, before: string): Promise<void> {
  await prune(db, userId, before);
}

const counted = precompiled(
  (db, userId: number, movieId: number, from: string, to: string) =>
    db
      .selectFrom('webhook_events')
      .select('id')
      .where('user_id', '=', userId)
      .where('movie_id', '=', movieId)
      .where('outcome', '=', 'counted')
      .where('event_at', '>=', from)
      .where('event_at', '<=', to)
      // A literal: SQLite prepares a statement again whenever a bound LIMIT is bound anew.
      .limit(sql.lit(1)),
  4,
);

/** True if a play of this movie was counted for the user from a report whose event time is in [from, to]. */
export async function countedWithin(db: Db, userId: number, movieId: number, from: string, to: string) {
  return (await counted(db, userId, movieId, from, to)).length > 0;
}

/** A page of the user's reports received from `since` on, newest first. */
export async function listEvents(
  db: Db,
  userId: number,
  filter: { server?: MediaServer | undefined; outcome?: WebhookOutcome | undefined },
  page: PageRequest,
  since: string,
) {
  let base = db.selectFrom('webhook_events').where('user_id', '=', userId).where('received_at', '>=', since);
  if (filter.server) base = base.where('server', '=', filter.server);
  if (filter.outcome) base = base.where('outcome', '=', filter.outcome);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(offsetOf(page))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
