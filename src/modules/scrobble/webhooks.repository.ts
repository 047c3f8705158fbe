import type { Kysely } from 'kysely';
import { keptBetweenWrites } from '../../db/generation.js';
import { precompiled } from '../../db/precompiled.js';
import type { Database, WebhookRow } from '../../db/schema.js';
import type { MediaServer } from './media-servers.js';

type Db = Kysely<Database>;

/**
 * What a report needs of the webhook with this UUID on this server: its owner and settings (only these
 * columns: every report reads them). The owner's time zone and watchlist setting are the library
 * write's to read, under its lock.
 */
const webhookByUuid = precompiled(
  (db, server: MediaServer, uuid: string) =>
    db
      .selectFrom('webhooks as h')
      .select(['h.user_id', 'h.scrobble_watches', 'h.scrobble_ratings', 'h.account_filter'])
      .where('h.uuid', '=', uuid)
      .where('h.server', '=', server),
  2,
);

/**
 * A webhook by server and UUID, kept between writes to webhooks and users (`findWebhookByUuid`; a
 * deleted user takes their webhooks along).
 */
export const keptWebhooksByUuid = keptBetweenWrites<string>(['webhooks', 'users']);

/** Every report looks its webhook up: compiled once. */
export async function findWebhookByUuid(db: Db, server: MediaServer, uuid: string) {
  return (await webhookByUuid(db, server, uuid))[0];
}

export function findWebhook(db: Db, userId: number, server: MediaServer): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('user_id', '=', userId)
    .where('server', '=', server)
    .executeTakeFirst();
}

export function listWebhooks(db: Db, userId: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('user_id', '=', userId).orderBy('server').execute();
}

/** Creates the user's webhook for the server, or gives the existing one a new UUID (the old one dies). */
export async function upsertWebhookUuid(
  db: Db,
  webhook: {
    userId: number;
    server: MediaServer;
    uuid: string;
    scrobbleRatings: boolean | undefined;
    now: string;
  },
): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({
      user_id: webhook.userId,
      server: webhook.server,
      uuid: webhook.uuid,
      scrobble_watches: 1,
      scrobble_ratings: webhook.scrobbleRatings ? 1 : 0,
      account_filter: null,
      created_at: webhook.now,
      updated_at: webhook.now,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'server']).doUpdateSet({
        uuid: webhook.uuid,
        updated_at: webhook.now,
        ...(webhook.scrobbleRatings !== undefined && { scrobble_ratings: webhook.scrobbleRatings ? 1 : 0 }),
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateWebhookSettings(
  db: Db,
  id: number,
  changes: {
    scrobble_watches?: number;
    scrobble_ratings?: number;
    account_filter?: string | null;
    updated_at: string;
  },
): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Db, userId: number, server: MediaServer): Promise<boolean> {
  const result = await db
    .deleteFrom('webhooks')
    .where('user_id', '=', userId)
    .where('server', '=', server)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
