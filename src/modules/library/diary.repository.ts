import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';
import { tagKey, tagName } from './library.rules.js';

type Db = Kysely<Database>;

// The diary entry (issue 30): a watch date's own rating, rewatch flag and tags, and the diary's reads.

/** A watch date as the diary shows it; `rewatch` as stored (null: derived). */
export interface EntryRow {
  id: number;
  movie_id: number;
  watched_at: string | null;
  plays: number;
  comment: string | null;
  position: number;
  rating: number | null;
  rewatch: number | null;
}

const ENTRY_COLUMNS = [
  'w.id',
  'w.movie_id',
  'w.watched_at',
  'w.plays',
  'w.comment',
  'w.position',
  'w.rating',
  'w.rewatch',
] as const;

/** One of the user's entries by its id; undefined when they have none of that id. */
export function entryById(db: Db, userId: number, id: number): Promise<EntryRow | undefined> {
  return db
    .selectFrom('watch_dates as w')
    .select(ENTRY_COLUMNS)
    .where('w.id', '=', id)
    .where('w.user_id', '=', userId)
    .executeTakeFirst();
}

/** The id of the user's entry of `movieId` on `watchedAt` (null: the unknown date), if any. */
export async function entryIdOf(
  db: Db,
  userId: number,
  movieId: number,
  watchedAt: string | null,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('watch_dates')
    .select('id')
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .where('watched_at', watchedAt === null ? 'is' : '=', watchedAt)
    .executeTakeFirst();
  return row?.id;
}

/** What an entry's own values become; a field absent is kept. */
export interface EntryUpdate {
  watched_at?: string | null;
  plays?: number;
  comment?: string | null;
  position?: number;
  rating?: number | null;
  rewatch?: number | null;
}

/** Changes the user's entry `id` in place (it keeps its id and its tags). */
export async function updateEntry(db: Db, userId: number, id: number, values: EntryUpdate, now: string) {
  await db
    .updateTable('watch_dates')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Gives the entry `entryId` these tags (`add`: besides its own; `replace`: instead of them), creating
 * the user's tags not yet known, spelled as given. Returns how many tags the entry has now.
 */
export async function tagEntry(
  db: Db,
  userId: number,
  entryId: number,
  tags: readonly string[],
  mode: 'add' | 'replace',
  now: string,
): Promise<number> {
  // One spelling per key: the first given.
  const byKey = new Map<string, string>();
  for (const tag of tags) {
    const key = tagKey(tag);
    if (!byKey.has(key)) byKey.set(key, tagName(tag));
  }
  const keys = [...byKey.keys()];
  if (mode === 'replace') {
    let gone = db.deleteFrom('entry_tags').where('watch_date_id', '=', entryId);
    if (keys.length > 0) {
      gone = gone.where(
        'tag_id',
        'not in',
        db.selectFrom('tags').select('id').where('user_id', '=', userId).where('key', 'in', keys),
      );
    }
    const removed = await gone.returning('tag_id').execute();
    await dropUnusedTags(
      db,
      userId,
      removed.map((row) => row.tag_id),
    );
  }
  if (keys.length > 0) {
    await db
      .insertInto('tags')
      .values(keys.map((key) => ({ user_id: userId, name: byKey.get(key)!, key, created_at: now })))
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .execute();
    await db
      .insertInto('entry_tags')
      .columns(['tag_id', 'watch_date_id'])
      .expression(
        db
          .selectFrom('tags')
          .select(['id as tag_id', sql<number>`cast(${entryId} as integer)`.as('watch_date_id')])
          .where('user_id', '=', userId)
          .where('key', 'in', keys),
      )
      .onConflict((oc) => oc.columns(['tag_id', 'watch_date_id']).doNothing())
      .execute();
  }
  const count = await db
    .selectFrom('entry_tags')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('watch_date_id', '=', entryId)
    .executeTakeFirstOrThrow();
  return Number(count.count);
}

/**
 * Takes every tag off these entries (before they are deleted: the foreign key would cascade too, but
 * the tags no entry has any more go with them here).
 */
export async function untagEntries(db: Db, userId: number, entryIds: readonly number[]) {
  if (entryIds.length === 0) return;
  const removed = await db
    .deleteFrom('entry_tags')
    .where('watch_date_id', 'in', entryIds)
    .returning('tag_id')
    .execute();
  await dropUnusedTags(
    db,
    userId,
    removed.map((row) => row.tag_id),
  );
}

/** Of `tagIds`, deletes the user's tags no entry has any more. */
async function dropUnusedTags(db: Db, userId: number, tagIds: readonly number[]) {
  if (tagIds.length === 0) return;
  await db
    .deleteFrom('tags')
    .where('user_id', '=', userId)
    .where('id', 'in', [...new Set(tagIds)])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('entry_tags').select('tag_id').whereRef('entry_tags.tag_id', '=', 'tags.id'))),
    )
    .execute();
}

/** The tags of these entries, by entry, in the order of their keys. */
export async function tagsOfEntries(db: Db, entryIds: readonly number[]): Promise<Map<number, string[]>> {
  const tags = new Map<number, string[]>(entryIds.map((id) => [id, []]));
  if (entryIds.length === 0) return tags;
  const rows = await db
    .selectFrom('entry_tags as et')
    .innerJoin('tags as t', 't.id', 'et.tag_id')
    .select(['et.watch_date_id', 't.name'])
    .where('et.watch_date_id', 'in', entryIds)
    .orderBy('t.key')
    .execute();
  for (const row of rows) tags.get(row.watch_date_id)?.push(row.name);
  return tags;
}

/**
 * The user's tags with how many entries have each, most used first, then by name; with `year`, the
 * entries dated in it only (the statistics); with `limit`, the first so many.
 */
export async function tagCounts(
  db: Db,
  userId: number,
  options: { year?: number | undefined; limit?: number | undefined } = {},
): Promise<{ name: string; count: number }[]> {
  const range = dateRange(options);
  let ranked = range
    ? // A year from its range of the history index (user, date), each entry's links by the second
      // index (SQLite's CROSS JOIN keeps that order: led by the user's links, 300 ms at 100,000 entries).
      db
        .selectFrom(
          db
            .selectFrom('watch_dates as w')
            .crossJoin('entry_tags as et')
            .where('w.user_id', '=', userId)
            .where('w.watched_at', '>=', range.from)
            .where('w.watched_at', '<=', range.to)
            .whereRef('et.watch_date_id', '=', 'w.id')
            .select((eb) => ['et.tag_id', eb.fn.countAll<number | string>().as('count')])
            .groupBy('et.tag_id')
            .as('c'),
        )
        .innerJoin('tags as t', 't.id', 'c.tag_id')
        .select(['t.name', 'c.count'])
    : // All time, each of the user's tags counted along the links' key (tag, entry): an index-only
      // range per tag. Joined to the user's tags instead, PostgreSQL hashed every user's links (11 ms
      // at 30,000 links of one user, against 3 ms). A tag without entries counts 0, ranks last and is
      // left out below (filtered here, PostgreSQL counted each tag twice).
      db
        .selectFrom('tags as t')
        .where('t.user_id', '=', userId)
        .select((eb) => [
          't.name',
          eb
            .selectFrom('entry_tags as et')
            .whereRef('et.tag_id', '=', 't.id')
            .select(eb.fn.countAll<number | string>().as('n'))
            .as('count'),
        ]);
  ranked = ranked.orderBy('count', 'desc').orderBy('t.key');
  if (options.limit !== undefined) ranked = ranked.limit(options.limit);
  const rows = await ranked.execute();
  return rows.map((row) => ({ name: row.name, count: Number(row.count) })).filter((tag) => tag.count > 0);
}

export interface DiaryFilter {
  year?: number | undefined;
  /** 1-12, with `year`. */
  month?: number | undefined;
  /** 1-31, with `year` and `month` (the web diary's calendar links a day). */
  day?: number | undefined;
  tag?: string | undefined;
  rating?: number | undefined;
  rewatch?: boolean | undefined;
  /** Part of the movie's title or original title (the web diary's search). */
  search?: string | undefined;
  /** Newest first (the default; the API's only order) or oldest first (the web diary). */
  sortOrder?: 'asc' | 'desc' | undefined;
}

/**
 * An entry is a rewatch as the user said (`rewatch` 0 or 1), or else when the user has a dated entry
 * of the same movie on an earlier date (an undated entry never is): one probe of the
 * (user, movie, date) index per entry. The entry is `w`; `userId` its user (a number, or an
 * expression such as `w.user_id`: the statistics count it for every entry of a movie, the one rule).
 */
export const derivedRewatch = (userId: number | RawBuilder<unknown>) =>
  sql<number>`coalesce(w.rewatch, ${earlierEntry(userId)})`;

/** 1 when the user has a dated entry of the movie of entry `w` on an earlier date, else 0. */
const earlierEntry = (userId: number | RawBuilder<unknown>) =>
  sql<number>`case when exists (select 1 from watch_dates as earlier where earlier.user_id = ${userId} and earlier.movie_id = w.movie_id and earlier.watched_at < w.watched_at) then 1 else 0 end`;

/**
 * One page of the user's dated entries, newest first (date, then position, then id), and the total.
 * A tag is read from its own key (entry_tags), a year or month as a range of the history index
 * (user, date, position): neither reads the whole history.
 */
export async function listDiary(db: Db, userId: number, filter: DiaryFilter, page: PageRequest) {
  let tagId: number | undefined;
  if (filter.tag !== undefined) {
    const tag = await db
      .selectFrom('tags')
      .select('id')
      .where('user_id', '=', userId)
      .where('key', '=', tagKey(filter.tag))
      .executeTakeFirst();
    if (tag === undefined) return { rows: [] as (EntryRow & { derived_rewatch: number })[], total: 0 };
    tagId = tag.id;
  }
  const rewatch = derivedRewatch(userId);
  // With a tag, the tag's links lead: SQLite's CROSS JOIN keeps that order (PostgreSQL plans freely).
  let base =
    tagId === undefined
      ? db.selectFrom('watch_dates as w')
      : db
          .selectFrom('entry_tags as et')
          .crossJoin('watch_dates as w')
          .where('et.tag_id', '=', tagId)
          .whereRef('w.id', '=', 'et.watch_date_id');
  base = base.where('w.user_id', '=', userId).where('w.watched_at', 'is not', null);
  const range = dateRange(filter);
  if (range) base = base.where('w.watched_at', '>=', range.from).where('w.watched_at', '<=', range.to);
  if (filter.rating !== undefined) base = base.where('w.rating', '=', filter.rating);
  if (filter.search) {
    const search = filter.search;
    base = base.where('w.movie_id', 'in', (eb) =>
      eb
        .selectFrom('movies as m')
        .select('m.id')
        .where((e) => e.or([containsText('m.title', search), containsText('m.original_title', search)])),
    );
  }
  // The rewatch filter's total, when nothing else narrows the diary: worked out apart (below).
  let rewatchTotal: Promise<number> | undefined;
  if (filter.rewatch !== undefined) {
    // The page walks the history newest first and asks each entry (a probe of the (user, movie, date)
    // key), stopping at the page's end: 24 probes for a page of rewatches (most entries), a few
    // hundred for one of first watches (one a movie). Counted that way, the total would probe every
    // entry (230 ms at 100,000): unless a tag, date, rating or title narrows the diary first, it is worked
    // out instead (rewatchCount). A set of the first watches made once cost 150-300 ms a view.
    base = base.where(rewatch, '=', filter.rewatch ? 1 : 0);
    if (tagId === undefined && range === null && filter.rating === undefined && !filter.search) {
      rewatchTotal = rewatchCount(db, userId).then((counts) =>
        filter.rewatch ? counts.rewatches : counts.entries - counts.rewatches,
      );
    }
  }
  // With a tag, the date is sorted as a value, not read in the order of the history index: else
  // PostgreSQL walks the whole history newest first looking for a rare tag's few entries (300 ms).
  const byDate = tagId === undefined ? sql.ref('w.watched_at') : sql`w.watched_at || ''`;
  const order = filter.sortOrder ?? 'desc';
  const [page_, count] = await Promise.all([
    base
      .select(ENTRY_COLUMNS)
      .orderBy(byDate, order)
      .orderBy('w.position', order)
      .orderBy('w.id', order)
      .limit(page.limit)
      .offset(offsetOf(page))
      .execute(),
    rewatchTotal ??
      base
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.total)),
  ]);
  // The derived flag of the page's entries only (PostgreSQL would compute it for every row skipped
  // by the offset too: a second from page 2,000).
  const derived = new Map<number, number>();
  if (page_.length > 0) {
    const flags = await db
      .selectFrom('watch_dates as w')
      .select(['w.id', rewatch.as('derived_rewatch')])
      .where(
        'w.id',
        'in',
        page_.map((row) => row.id),
      )
      .execute();
    for (const flag of flags) derived.set(flag.id, Number(flag.derived_rewatch));
  }
  const rows = page_.map((row) => ({ ...row, derived_rewatch: derived.get(row.id) ?? 0 }));
  return { rows, total: count };
}

/**
 * How many of the user's dated entries there are, and how many are rewatches, without asking each
 * entry: every dated entry but each movie's first is a rewatch (derived), so the dated entries less
 * the movies with one, corrected by the entries marked otherwise than derived (a partial index holds
 * the marked ones). 20 ms at 100,000 entries on SQLite against 230 for a probe of each.
 */
async function rewatchCount(db: Db, userId: number): Promise<{ entries: number; rewatches: number }> {
  const dated = db
    .selectFrom('watch_dates')
    .where('user_id', '=', userId)
    .where('watched_at', 'is not', null);
  const [entries, marked] = await Promise.all([
    dated
      .select((eb) => [
        eb.fn.countAll<number | string>().as('entries'),
        eb.fn.count<number | string>('movie_id').distinct().as('movies'),
      ])
      .executeTakeFirstOrThrow(),
    // A marked entry counts as marked (w.rewatch) instead of as derived (earlierEntry).
    db
      .selectFrom('watch_dates as w')
      .select((eb) =>
        eb.fn
          .coalesce(eb.fn.sum<number | string>(sql`w.rewatch - ${earlierEntry(userId)}`), sql`0`)
          .as('shift'),
      )
      .where('w.user_id', '=', userId)
      .where('w.rewatch', 'is not', null)
      .where('w.watched_at', 'is not', null)
      .executeTakeFirstOrThrow(),
  ]);
  const total = Number(entries.entries);
  return { entries: total, rewatches: total - Number(entries.movies) + Number(marked.shift) };
}

/** The entry's derived rewatch (as `listDiary` gives it), for one entry. */
export async function rewatchOf(db: Db, userId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('watch_dates as w')
    .select(derivedRewatch(userId).as('rewatch'))
    .where('w.id', '=', id)
    .where('w.user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.rewatch ?? 0) === 1;
}

function dateRange(filter: DiaryFilter): { from: string; to: string } | null {
  if (filter.year === undefined) return null;
  const year = String(filter.year).padStart(4, '0');
  if (filter.month === undefined) return { from: `${year}-01-01`, to: `${year}-12-31` };
  const month = String(filter.month).padStart(2, '0');
  if (filter.day !== undefined) {
    const day = `${year}-${month}-${String(filter.day).padStart(2, '0')}`;
    return { from: day, to: day };
  }
  return { from: `${year}-${month}-01`, to: `${year}-${month}-31` };
}

/**
 * The tags the user gave any of their entries of one movie (the movie page), each once, in the order
 * of their keys. Along the entries' index (user, movie) and the links' (entry, tag).
 */
export async function tagsOfMovie(db: Db, userId: number, movieId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tags as t')
    .select(['t.name', 't.key'])
    .where('t.user_id', '=', userId)
    .where('t.id', 'in', (eb) =>
      eb
        .selectFrom('entry_tags as et')
        .innerJoin('watch_dates as w', 'w.id', 'et.watch_date_id')
        .select('et.tag_id')
        .where('w.user_id', '=', userId)
        .where('w.movie_id', '=', movieId),
    )
    .orderBy('t.key')
    .execute();
  return rows.map((row) => row.name);
}
