import { type Kysely, sql } from 'kysely';
import { precompiledQuery } from '../../db/precompiled.js';
import type { Database } from '../../db/schema.js';
import { untagEntries } from './diary.repository.js';
import { MAX_PLAYS } from './library.rules.js';

type Db = Kysely<Database>;

/** One (movie, date) entry of a user's plays; `watchedAt` null is a play with an unknown date. */
export interface WatchDateWrite {
  movieId: number;
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  /**
   * Absent (played writes, which know no position): a new entry gets 1, an existing one keeps its own.
   * `after-last` (scrobbles, dated entries only): a new entry goes after the movies already on its date.
   */
  position?: number | 'after-last';
}

type Mode = 'add' | 'replace';

/**
 * The upsert of one (user, movie, date) entry, compiled once per mode and per kind of date (the null
 * date has its own partial unique index, so its conflict target differs). `position` null keeps the
 * stored position (a new entry gets 1, or with `afterLast` one more than the whole part of the highest
 * position on its date). The row is selected from `movies`, so an unknown movie writes nothing (0 rows)
 * instead of costing a separate existence check on every write. The casts type the selected
 * parameters for PostgreSQL.
 */
function upsertEntry(mode: Mode, dated: boolean, afterLast = false) {
  return precompiledQuery(
    (
      db,
      userId: number,
      movieId: number,
      watchedAt: string | null,
      plays: number,
      comment: string | null,
      position: number | null,
      now: string,
    ) =>
      db
        .insertInto('watch_dates')
        .columns([
          'user_id',
          'movie_id',
          'watched_at',
          'plays',
          'comment',
          'position',
          'created_at',
          'updated_at',
        ])
        .expression(
          db
            .selectFrom('movies')
            .select([
              sql<number>`cast(${userId} as integer)`.as('user_id'),
              'movies.id as movie_id',
              sql<string | null>`cast(${watchedAt} as text)`.as('watched_at'),
              sql<number>`cast(${plays} as integer)`.as('plays'),
              sql<string | null>`cast(${comment} as text)`.as('comment'),
              (afterLast
                ? sql<number>`coalesce(floor((${db
                    .selectFrom('watch_dates as same_day')
                    .select((eb) => eb.fn.max('same_day.position').as('max'))
                    .where('same_day.user_id', '=', sql<number>`cast(${userId} as integer)`)
                    .where('same_day.watched_at', '=', sql<string>`cast(${watchedAt} as text)`)})), 0) + 1`
                : sql<number>`coalesce(cast(${position} as double precision), 1)`
              ).as('position'),
              sql<string>`cast(${now} as text)`.as('created_at'),
              sql<string>`cast(${now} as text)`.as('updated_at'),
            ])
            .where('movies.id', '=', movieId),
        )
        .onConflict((oc) => {
          const update = (
            dated
              ? oc.columns(['user_id', 'movie_id', 'watched_at'])
              : oc.columns(['user_id', 'movie_id']).where('watched_at', 'is', null)
          ).doUpdateSet((eb) => ({
            plays:
              mode === 'add'
                ? eb('watch_dates.plays', '+', eb.ref('excluded.plays'))
                : eb.ref('excluded.plays'),
            comment:
              mode === 'add'
                ? eb.fn.coalesce('excluded.comment', 'watch_dates.comment')
                : eb.ref('excluded.comment'),
            // Not assigned where it never changes (after-last keeps an existing entry's place): SQLite
            // rewrites the history index entry of a row whenever an UPDATE assigns one of its columns,
            // even to the value it had.
            ...(afterLast
              ? {}
              : {
                  position: sql<number>`coalesce(cast(${position} as double precision), ${sql.ref('watch_dates.position')})`,
                }),
            updated_at: now,
          }));
          // Adding past the cap writes nothing (the writer then says why): no RETURNING to read the sum,
          // which cost SQLite a third more per one-play insert (issue 28). A replacement's plays are
          // within the cap already (the rules).
          return mode === 'add'
            ? update.where((eb) =>
                eb(eb('watch_dates.plays', '+', eb.ref('excluded.plays')), '<=', sql.lit(MAX_PLAYS)),
              )
            : update;
        }),
    7,
  );
}

const upserts = {
  add: {
    dated: upsertEntry('add', true),
    undated: upsertEntry('add', false),
    afterLast: upsertEntry('add', true, true),
  },
  replace: {
    dated: upsertEntry('replace', true),
    undated: upsertEntry('replace', false),
    afterLast: upsertEntry('replace', true, true),
  },
};

async function writeEntry(
  mode: Mode,
  db: Db,
  userId: number,
  entry: WatchDateWrite,
  now: string,
): Promise<boolean> {
  const { position } = entry;
  const afterLast = position === 'after-last';
  if (afterLast && entry.watchedAt === null)
    throw new Error('an entry without a date has no place after others');
  const upsert = upserts[mode][afterLast ? 'afterLast' : entry.watchedAt === null ? 'undated' : 'dated'];
  const result = await upsert(
    db,
    userId,
    entry.movieId,
    entry.watchedAt,
    entry.plays,
    entry.comment,
    position === 'after-last' ? null : (position ?? null),
    now,
  );
  return Number(result.numAffectedRows ?? 0) > 0;
}

/**
 * Adds plays to the (user, movie, date) entry, creating it if needed. A null comment keeps the stored
 * one; the position is set as given (an absent one keeps the stored position). False: nothing written
 * (no such movie, or the entry would pass `MAX_PLAYS`).
 */
export function addPlays(db: Db, userId: number, entry: WatchDateWrite, now: string): Promise<boolean> {
  return writeEntry('add', db, userId, entry, now);
}

/**
 * Sets plays, comment and position of the (user, movie, date) entry, creating it if needed (an absent
 * position keeps the stored one). False: no such movie, nothing written.
 */
export function replacePlays(db: Db, userId: number, entry: WatchDateWrite, now: string): Promise<boolean> {
  return writeEntry('replace', db, userId, entry, now);
}

/**
 * Deletes the given dates of a movie (null: the unknown-date entry), or all of them when `dates` is
 * undefined; returns the dates of the entries deleted.
 */
export async function deleteWatchDates(
  db: Db,
  userId: number,
  movieId: number,
  dates?: readonly (string | null)[],
): Promise<(string | null)[]> {
  let query = db
    .selectFrom('watch_dates')
    .select('id')
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId);
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
  const ids = (await query.execute()).map((row) => row.id);
  return deleteEntries(db, userId, ids);
}

/** Deletes the user's entries of these ids, with their tags; returns the dates of the entries deleted. */
export async function deleteEntries(
  db: Db,
  userId: number,
  ids: readonly number[],
): Promise<(string | null)[]> {
  if (ids.length === 0) return [];
  await untagEntries(db, userId, ids);
  const deleted = await db
    .deleteFrom('watch_dates')
    .where('user_id', '=', userId)
    .where('id', 'in', ids)
    .returning('watched_at')
    .execute();
  return deleted.map((row) => row.watched_at);
}

/** Of `dates` (null: the unknown date), those on which the user has an entry of the movie. */
export async function findEntries(
  db: Db,
  userId: number,
  movieId: number,
  dates: readonly (string | null)[],
): Promise<(string | null)[]> {
  const known = [...new Set(dates.filter((d): d is string => d !== null))];
  const includesNull = dates.includes(null);
  const rows = await db
    .selectFrom('watch_dates')
    .select('watched_at')
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .where((eb) => {
      const conditions = [];
      if (known.length > 0) conditions.push(eb('watched_at', 'in', known));
      if (includesNull) conditions.push(eb('watched_at', 'is', null));
      return conditions.length > 0 ? eb.or(conditions) : eb.val(false);
    })
    .execute();
  return rows.map((row) => row.watched_at);
}
