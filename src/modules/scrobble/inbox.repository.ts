import type { Kysely } from 'kysely';
import type { Database, NewWebhookEvent, WebhookOutcome } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import type { MediaServer } from './scrobble.types.js';

type Db = Kysely<Database>;

export async function insertEvent(db: Db, event: NewWebhookEvent): Promise<void> {
  await db.insertInto('webhook_events').values(event).execute();
}

/** Forgets a user's reports received before `before`. */
export async function pruneEvents(db: Db, userId: number, before: string): Promise<void> {
  await db
    .deleteFrom('webhook_events')
    .where('user_id', '=', userId)
    .where('received_at', '<', before)
    .execute();
}

/** True if a play of this movie was counted for the user from a report whose event time is in [from, to]. */
export async function countedWithin(db: Db, userId: number, movieId: number, from: string, to: string) {
  const row = await db
    .selectFrom('webhook_events')
    .select('id')
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .where('outcome', '=', 'counted')
    .where('event_at', '>=', from)
    .where('event_at', '<=', to)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function listEvents(
  db: Db,
  userId: number,
  filter: { server?: MediaServer | undefined; outcome?: WebhookOutcome | undefined },
  page: PageRequest,
) {
  let base = db.selectFrom('webhook_events').where('user_id', '=', userId);
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
