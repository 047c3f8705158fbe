import type { Kysely } from 'kysely';
import type { Database, FeedRow } from '../../db/schema.js';

type Db = Kysely<Database>;
export type FeedKind = FeedRow['kind'];

/** The owner of the feed of this kind at this UUID: every read of a feed looks it up. */
export async function findFeedOwner(db: Db, kind: FeedKind, uuid: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('feeds')
    .select('user_id')
    .where('uuid', '=', uuid)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.user_id;
}

export function listFeeds(db: Db, userId: number): Promise<FeedRow[]> {
  return db.selectFrom('feeds').selectAll().where('user_id', '=', userId).orderBy('kind').execute();
}

/** Creates the user's feed of this kind, or gives the existing one a new UUID (the old one dies). */
export function upsertFeedUuid(
  db: Db,
  feed: { userId: number; kind: FeedKind; uuid: string; now: string },
): Promise<FeedRow> {
  return db
    .insertInto('feeds')
    .values({
      user_id: feed.userId,
      kind: feed.kind,
      uuid: feed.uuid,
      created_at: feed.now,
      updated_at: feed.now,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'kind']).doUpdateSet({ uuid: feed.uuid, updated_at: feed.now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteFeed(db: Db, userId: number, kind: FeedKind): Promise<boolean> {
  const result = await db
    .deleteFrom('feeds')
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
