import type { Kysely } from 'kysely';
import type { Database, UserExternalIdsTable } from '../../db/schema.js';

type Db = Kysely<Database>;
export type ExternalSource = UserExternalIdsTable['source'];

/** At most this many ids in one `in (...)` list. */
const CHUNK = 1000;

/** The movie the user's own earlier import gave this id (a Trakt id, a Letterboxd slug); undefined if none. */
export async function movieOfExternalId(
  db: Db,
  userId: number,
  source: ExternalSource,
  externalId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('user_external_ids')
    .select('movie_id')
    .where('user_id', '=', userId)
    .where('source', '=', source)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.movie_id;
}

/**
 * Keeps ids a user's import gave their movies. The first one holds: an id the user gave another of
 * their movies already, or a second id for the same movie, is left out (no error).
 */
export async function keepExternalIds(
  db: Db,
  userId: number,
  items: readonly { source: ExternalSource; externalId: string; movieId: number }[],
  now: string,
): Promise<void> {
  for (let i = 0; i < items.length; i += CHUNK) {
    await db
      .insertInto('user_external_ids')
      .values(
        items.slice(i, i + CHUNK).map((item) => ({
          user_id: userId,
          source: item.source,
          external_id: item.externalId,
          movie_id: item.movieId,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** The ids the user's imports gave these movies, by movie. */
export async function externalIdsOf(
  db: Db,
  userId: number,
  movieIds: readonly number[],
): Promise<Map<number, { trakt?: string; letterboxd?: string }>> {
  const found = new Map<number, { trakt?: string; letterboxd?: string }>();
  const unique = [...new Set(movieIds)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .selectFrom('user_external_ids')
      .select(['movie_id', 'source', 'external_id'])
      .where('user_id', '=', userId)
      .where('movie_id', 'in', unique.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) {
      const ids = found.get(row.movie_id) ?? {};
      ids[row.source] = row.external_id;
      found.set(row.movie_id, ids);
    }
  }
  return found;
}
