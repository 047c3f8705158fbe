import type { Kysely, OnConflictBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** One (movie, date) entry of a user's plays; `watchedAt` null is a play with an unknown date. */
export interface WatchDateWrite {
  movieId: number;
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  /** Absent (played writes, which know no position): a new entry gets 1, an existing one keeps its own. */
  position?: number;
}

/**
 * Adds plays to the (user, movie, date) entry, creating it if needed. A null comment keeps the stored
 * one; the position is set as given (an absent one keeps the stored position).
 */
export async function addPlays(db: Db, userId: number, entry: WatchDateWrite, now: string): Promise<void> {
  await db
    .insertInto('watch_dates')
    .values(newRow(userId, entry, now))
    .onConflict((oc) =>
      conflictTarget(oc, entry).doUpdateSet((eb) => ({
        plays: eb('watch_dates.plays', '+', eb.ref('excluded.plays')),
        comment: eb.fn.coalesce('excluded.comment', 'watch_dates.comment'),
        ...(entry.position !== undefined && { position: eb.ref('excluded.position') }),
        updated_at: now,
      })),
    )
    .execute();
}

/**
 * Sets plays, comment and position of the (user, movie, date) entry, creating it if needed (an absent
 * position keeps the stored one).
 */
export async function replacePlays(
  db: Db,
  userId: number,
  entry: WatchDateWrite,
  now: string,
): Promise<void> {
  await db
    .insertInto('watch_dates')
    .values(newRow(userId, entry, now))
    .onConflict((oc) =>
      conflictTarget(oc, entry).doUpdateSet((eb) => ({
        plays: eb.ref('excluded.plays'),
        comment: eb.ref('excluded.comment'),
        ...(entry.position !== undefined && { position: eb.ref('excluded.position') }),
        updated_at: now,
      })),
    )
    .execute();
}

/** Deletes the given dates of a movie (null: the unknown-date entry), or all of them when `dates` is undefined. */
export async function deleteWatchDates(
  db: Db,
  userId: number,
  movieId: number,
  dates?: readonly (string | null)[],
): Promise<void> {
  let query = db.deleteFrom('watch_dates').where('user_id', '=', userId).where('movie_id', '=', movieId);
  if (dates !== undefined) {
    const known = dates.filter((d): d is string => d !== null);
    const includesNull = known.length !== dates.length;
    query = query.where((eb) => {
      const conditions = [];
      if (known.length > 0) conditions.push(eb('watched_at', 'in', known));
      if (includesNull) conditions.push(eb('watched_at', 'is', null));
      return conditions.length > 0 ? eb.or(conditions) : eb.val(false);
    });
  }
  await query.execute();
}

function newRow(userId: number, entry: WatchDateWrite, now: string) {
  return {
    user_id: userId,
    movie_id: entry.movieId,
    watched_at: entry.watchedAt,
    plays: entry.plays,
    comment: entry.comment,
    position: entry.position ?? 1,
    created_at: now,
    updated_at: now,
  };
}

// The null date has its own partial unique index, so its conflict target differs.
function conflictTarget(oc: OnConflictBuilder<Database, 'watch_dates'>, entry: WatchDateWrite) {
  return entry.watchedAt === null
    ? oc.columns(['user_id', 'movie_id']).where('watched_at', 'is', null)
    : oc.columns(['user_id', 'movie_id', 'watched_at']);
}

export function findWatchDate(db: Db, userId: number, movieId: number, watchedAt: string) {
  return db
    .selectFrom('watch_dates')
    .select(['id', 'plays', 'position'])
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .where('watched_at', '=', watchedAt)
    .executeTakeFirst();
}

/** One past the highest position among the user's entries on that date (1 on an empty date). */
export async function nextPositionOn(db: Db, userId: number, watchedAt: string): Promise<number> {
  const row = await db
    .selectFrom('watch_dates')
    .select((eb) => eb.fn.max('position').as('max'))
    .where('user_id', '=', userId)
    .where('watched_at', '=', watchedAt)
    .executeTakeFirst();
  return Math.floor(Number(row?.max ?? 0)) + 1;
}
