import { type Kysely, type RawBuilder, sql } from 'kysely';
import { precompiledQuery } from '../../db/precompiled.js';
import type { Database, StatisticsGroupsTable } from '../../db/schema.js';
import { inTransaction, isPostgres } from '../../db/transaction.js';
import type { CatalogChanges } from '../movies/catalog-changes.js';
import { derivedRewatch } from './diary.repository.js';

type Db = Kysely<Database>;

// The statistics' aggregates (migration 0017, issue 28): what the statistics read instead of grouping a
// user's plays and every credit of their movies on each request (200 ms at 100,000 plays).
//
// - `statistics_movies`: each movie's entries and plays per user and scope (0: all time, undated
//   plays included; a year: the plays dated in it);
// - `statistics_groups`: per user, scope and group (the scope's totals, each genre, language, country,
//   decade, director and billed actor), the movies counted in it and their plays;
// - `statistics_days`: entries and plays per user and day (months, weekdays, first and last, streaks);
// - `statistics_pending`: the entries (movie, date) the user's writes changed since the three above
//   were brought up to date, keyed by when each write noted them (a write's rows go at the end of the
//   user's, so the writes of a commit group share a page; the same entry may be noted more than once);
// - `statistics_counting`: the entries a catch-up is counting again, moved there from
//   `statistics_pending`, once each, keyed by movie (migration 0018).
//
// Every library write notes, in its transaction, the entries it changed (`notePending`: one row, one
// statement for a play). The first read after it brings the aggregates up to date
// (`catchUpStatistics`): the pending movies and days are counted again from `watch_dates`, and what
// changed is added to the groups, a few movies per transaction (`STEP_MOVIES`). Exact by construction:
// what is pending is counted from the source, with the movies' groups as they are then; the rest is
// unchanged since it was counted. Counting in the write itself cost too much: the movie's two rows and the day's alone
// (three more pages at each commit) took a third more CPU per one-play POST, before the 45 or so group
// rows a play changes (docs/performance.md, "Statistics"); noting the entry is one row.
//
// A movie's refresh changes what its plays count for: in the refresh's transaction, every user's counted
// plays of the movie move from the groups it left to the groups it joined (`movieStatisticsBefore`,
// `movieStatisticsAfter`). What is still pending is counted later, in the new groups.
//
// Locks (PostgreSQL; SQLite has one writer): a write and a catch-up hold the user's row, so they run one
// at a time per user; a catch-up also holds the rows of the movies it counts (FOR SHARE), and a refresh
// its movie's row (FOR NO KEY UPDATE) before anything else, so a catch-up never counts a movie in the
// groups a refresh is replacing, and a refresh finds the counted plays of its movie settled. Each
// statement writes its group rows in key order, so transactions that wait for each other's rows never
// wait in a circle.

/** The places of a movie's bill that count an actor in it: the first 15 (TMDB's `order` 0 to 14). */
export const BILLED_CAST = 15;

type Kind = StatisticsGroupsTable['kind'];

/**
 * What each kind of group counts a movie in: the tables it is read from, how they meet `movie` (an
 * expression naming the movie's id), its item there (TMDB ids and codes as the API shows them), a
 * condition, and for the totals the movie's runtime (minutes are runtime × plays). Tables are joined
 * with CROSS JOIN and WHERE: SQLite then reads them in the order written (from the few movies asked
 * about, not from every credit), and PostgreSQL plans it as any inner join.
 */
const GROUPS: {
  kind: Kind;
  from: RawBuilder<unknown>;
  on: (movie: RawBuilder<unknown>) => RawBuilder<unknown>;
  item: RawBuilder<unknown>;
  where?: RawBuilder<unknown>;
  runtime?: RawBuilder<unknown>;
}[] = [
  {
    kind: 'total',
    from: sql`movies m`,
    on: (movie) => sql`m.id = ${movie}`,
    item: sql`''`,
    runtime: sql`coalesce(m.runtime, 0)`,
  },
  {
    kind: 'genre',
    from: sql`movie_genres mg cross join genres g`,
    on: (movie) => sql`mg.movie_id = ${movie} and g.id = mg.genre_id`,
    item: sql`cast(g.tmdb_id as text)`,
  },
  {
    kind: 'language',
    from: sql`movies m`,
    on: (movie) => sql`m.id = ${movie}`,
    item: sql`m.original_language`,
    where: sql`m.original_language is not null`,
  },
  {
    kind: 'country',
    from: sql`movie_countries mc`,
    on: (movie) => sql`mc.movie_id = ${movie}`,
    item: sql`mc.country_code`,
  },
  {
    kind: 'decade',
    from: sql`movies m`,
    on: (movie) => sql`m.id = ${movie}`,
    item: sql`substr(m.release_date, 1, 3)`,
    where: sql`m.release_date is not null`,
  },
  {
    kind: 'director',
    from: sql`movie_crew c cross join people p`,
    on: (movie) => sql`c.movie_id = ${movie} and p.id = c.person_id`,
    item: sql`cast(p.tmdb_id as text)`,
    where: sql`c.job = 'Director'`,
  },
  {
    // A person in several of the first places once: `first_place` marks their first.
    kind: 'actor',
    from: sql`movie_cast c cross join people p`,
    on: (movie) => sql`c.movie_id = ${movie} and p.id = c.person_id`,
    item: sql`cast(p.tmdb_id as text)`,
    where: sql`c.cast_order < ${sql.lit(BILLED_CAST)} and c.first_place = 1`,
  },
];

/**
 * What the rows of `d` (user_id, scope, movie_id, dm, dp: movies and plays to add; rt and ro: the
 * movie's rating in the scope now and as counted before, null: none; drw: rewatches to add) add to
 * each group: one row per group of each movie, as (user_id, kind, scope, item, movies, plays, minutes).
 * The `rating` groups count the movies of each rating (issue 30: the own rating of the movie's latest
 * entry in scope that has one, else the movie's), `rewatches` (item '') the scope's rewatches, as its
 * `movies` and `plays`.
 */
function contributions(d: string): RawBuilder<unknown> {
  const rows = sql.table(d);
  return sql.join(
    [
      ...GROUPS.map(
        ({ kind, from, on, item, where, runtime }) =>
          sql`select ${rows}.user_id, ${sql.lit(kind)} as kind, ${rows}.scope, ${item} as item,
          ${rows}.dm as movies, ${rows}.dp as plays, ${rows}.dp * ${runtime ?? sql`0`} as minutes
        from ${rows} cross join ${from} where ${on(sql`${rows}.movie_id`)} and ${where ?? sql`1 = 1`}`,
      ),
      sql`select user_id, 'rating', scope, cast(rt as text), 1, 0, 0 from ${rows} where rt is not null`,
      sql`select user_id, 'rating', scope, cast(ro as text), -1, 0, 0 from ${rows} where ro is not null`,
      sql`select user_id, 'rewatches', scope, '', drw, drw, 0 from ${rows} where drw <> 0`,
    ],
    sql` union all `,
  );
}

/** A group row an upsert changed (UPSERT_GROUPS returns them): those left with no movie go after. */
interface GroupKey {
  user_id: number;
  kind: string;
  scope: number;
  item: string;
  movies: unknown;
}

const UPSERT_GROUPS = sql`on conflict (user_id, kind, scope, item) do update set
    movies = statistics_groups.movies + excluded.movies,
    plays = statistics_groups.plays + excluded.plays,
    minutes = statistics_groups.minutes + excluded.minutes
  returning user_id, kind, scope, item, movies`;

/** Adds to the groups what the rows of the CTE `d` (declared by `withD`) add, in key order. */
function addToGroups(withD: RawBuilder<unknown>) {
  return sql<GroupKey>`${withD}
    insert into statistics_groups (user_id, kind, scope, item, movies, plays, minutes)
    select user_id, kind, scope, item, sum(movies), sum(plays), sum(minutes) from (${contributions('d')}) as c
    where 1 = 1
    group by user_id, kind, scope, item
    having sum(movies) <> 0 or sum(plays) <> 0 or sum(minutes) <> 0
    order by user_id, kind, scope, item
    ${UPSERT_GROUPS}`;
}

/** Deletes the groups, among those just changed (`changed`), that count no movie any more. */
async function dropEmptyGroups(trx: Db, changed: readonly GroupKey[]): Promise<void> {
  const empty = changed.filter((row) => Number(row.movies) === 0);
  for (let i = 0; i < empty.length; i += CHUNK) {
    const keys = empty
      .slice(i, i + CHUNK)
      .map(
        (row) =>
          sql`(cast(${row.user_id} as integer), cast(${row.kind} as text), cast(${row.scope} as integer), cast(${row.item} as text))`,
      );
    await sql`delete from statistics_groups where movies = 0
      and (user_id, kind, scope, item) in (values ${sql.join(keys)})`.execute(trx);
  }
}

/**
 * A movie's rating in a scope, as an aggregate over its entries `w` there (issue 30): the own rating of
 * its latest entry (by date; the undated one oldest) that has one, else the movie's rating (null:
 * none). The latest own rating is the greatest of date and rating + 10 (always two digits) written one
 * after the other, its last two digits read back.
 */
const SCOPE_RATING = (() => {
  const keyed = sql`max(case when w.rating is not null then coalesce(w.watched_at, '') || cast(w.rating + 10 as text) end)`;
  return sql`coalesce(cast(substr(${keyed}, length(${keyed}) - 1) as integer) - 10,
    (select r.rating from ratings r where r.user_id = w.user_id and r.movie_id = w.movie_id))`;
})();

/**
 * Each movie's entries and plays per user and scope, counted from `watch_dates` where `where`, with its
 * rewatches (entries that are one by the diary's rule, `derivedRewatch`) and its rating in the scope
 * (`SCOPE_RATING`; issue 30). `where` takes whole movies: a movie's entries of every
 * scope decide which of them are rewatches.
 */
function counted(where: RawBuilder<unknown>) {
  const rewatches = sql`sum(${derivedRewatch(sql`w.user_id`)})`;
  return sql`select user_id, movie_id, 0 as scope, count(*) as entries, sum(plays) as plays,
      ${rewatches} as rewatches, ${SCOPE_RATING} as rating
    from watch_dates w
    where ${where} group by user_id, movie_id
    union all
    select user_id, movie_id, cast(substr(watched_at, 1, 4) as integer), count(*), sum(plays),
      ${rewatches}, ${SCOPE_RATING}
    from watch_dates w
    where ${where} and watched_at is not null
    group by user_id, movie_id, substr(watched_at, 1, 4)`;
}

// ---- The write path -----------------------------------------------------------------------------------

/** The entries one library write changed, as `Library.write` hands them to `notePending`. */
export class PlayChanges {
  /** Per movie, the dates of its entries written or deleted (null: the unknown date). */
  readonly dates = new Map<number, Set<string | null>>();

  touch(movieId: number, date: string | null): void {
    let dates = this.dates.get(movieId);
    if (dates === undefined) {
      dates = new Set();
      this.dates.set(movieId, dates);
    }
    dates.add(date);
  }
}

/** A statement compiled once per database (`precompiledQuery`). */
function precompiledSql<Args extends readonly unknown[]>(
  build: (...args: Args) => RawBuilder<unknown>,
  arity: Args['length'],
) {
  return precompiledQuery((db, ...args: Args) => ({ compile: () => build(...args).compile(db) }), arity);
}

// Built with Kysely, not as raw SQL: the SQLite driver then sees the one table it writes, and the
// caches of every other table (tokens, webhooks, movies: src/db/generation.ts) outlive the write. As
// raw SQL it counted as a change to any table, and every one-play POST emptied them (issue 28).
const noteOne = precompiledQuery(
  (db, userId: number, now: string, movieId: number, date: string) =>
    db
      .insertInto('statistics_pending')
      .values({ user_id: userId, noted_at: now, movie_id: movieId, watched_at: date })
      .onConflict((oc) => oc.doNothing()),
  4,
);

/** Rows per statement when a write touched many entries, or a catch-up many movies (parameter limits). */
const CHUNK = 500;

/**
 * The end of every library write, in its transaction (which holds the user's lock): notes the entries
 * it changed, for the next read of the user's statistics (`catchUpStatistics`).
 */
export async function notePending(trx: Db, userId: number, now: string, changes: PlayChanges): Promise<void> {
  const rows: { user_id: number; noted_at: string; movie_id: number; watched_at: string }[] = [];
  for (const [movieId, dates] of changes.dates) {
    for (const date of dates) {
      rows.push({ user_id: userId, noted_at: now, movie_id: movieId, watched_at: date ?? '' });
    }
  }
  if (rows.length === 1) {
    const [row] = rows;
    await noteOne(trx, userId, now, row!.movie_id, row!.watched_at);
    return;
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto('statistics_pending')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

// ---- The read path: catching up -------------------------------------------------------------------

// A catch-up first moves the user's pending rows to `statistics_counting` (migration 0018), where the
// same entry noted by many writes is one row, keyed by movie. Each step then counts the first movies
// there again (in key order), with the days of their entries, and deletes their rows. Each statement of
// a step names those movies by the same query: nothing else writes them meanwhile (SQLite has one
// writer; on PostgreSQL a write and a step both hold the user's row first).
const stepMovies = (userId: number, limit: number) =>
  sql`select distinct movie_id from statistics_counting where user_id = ${userId} order by movie_id limit ${limit}`;
const stepDays = (userId: number, limit: number) =>
  sql`select watched_at from statistics_counting
    where user_id = ${userId} and watched_at <> '' and movie_id in (${stepMovies(userId, limit)})`;

/**
 * A pending movie's change in one scope: its entries (`de`) and plays (`dp`), and whether the scope
 * gains or loses the movie (`dm`).
 */
interface Delta {
  user_id: number;
  scope: number;
  movie_id: number;
  de: unknown;
  dm: unknown;
  dp: unknown;
  /** The movie's rewatches and rating in the scope now (not a difference); its rating before; rewatches to add. */
  rw: unknown;
  rt: unknown;
  ro: unknown;
  drw: unknown;
}

/**
 * What changes, per scope, between the step's movies' rows in `statistics_movies` and what
 * `watch_dates` counts for them now.
 */
const stepDeltas = precompiledSql(
  (userId: number, limit: number) =>
    sql<Delta>`select user_id, scope, movie_id, sum(sign * entries) as de,
        sum(case when entries > 0 then sign else 0 end) as dm, sum(sign * plays) as dp,
        sum(case when sign = 1 then rewatches else 0 end) as rw, max(case when sign = 1 then rating end) as rt,
        max(case when sign = -1 then rating end) as ro, sum(sign * rewatches) as drw
      from (
        select user_id, scope, movie_id, entries, plays, rewatches, rating, 1 as sign
        from (${counted(sql`user_id = ${userId} and movie_id in (${stepMovies(userId, limit)})`)}) as recounted
        union all
        select user_id, scope, movie_id, entries, plays, rewatches, rating, -1 from statistics_movies
        where user_id = ${userId} and movie_id in (${stepMovies(userId, limit)})
      ) as both_counts
      group by user_id, scope, movie_id
      having sum(sign * entries) <> 0 or sum(sign * plays) <> 0 or sum(sign * rewatches) <> 0
        or coalesce(max(case when sign = 1 then rating end), 0) <> coalesce(max(case when sign = -1 then rating end), 0)`,
  2,
);

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * Adds the deltas to the movies' rows and to their groups. They are sent as values, not read in the
 * same statements: PostgreSQL then plans with their true count (a few rows), reading each movie's
 * groups by key instead of hashing every movie and credit.
 */
async function addDeltas(trx: Db, deltas: readonly Delta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += CHUNK) {
    const some = deltas.slice(i, i + CHUNK);
    const values = sql.join(
      some.map(
        (delta) =>
          sql`(cast(${delta.user_id} as integer), cast(${delta.scope} as integer), cast(${delta.movie_id} as integer), cast(${Number(delta.de)} as integer), cast(${Number(delta.dm)} as integer), cast(${Number(delta.dp)} as bigint), cast(${Number(delta.rw)} as integer), cast(${nullableNumber(delta.rt)} as integer), cast(${nullableNumber(delta.ro)} as integer), cast(${Number(delta.drw)} as integer))`,
      ),
    );
    const withD = sql`with d (user_id, scope, movie_id, de, dm, dp, rw, rt, ro, drw) as (values ${values})`;
    const addToMovies = sql`insert into statistics_movies (user_id, movie_id, scope, entries, plays, rewatches, rating)
      select user_id, movie_id, scope, de, dp, rw, rt from d where 1 = 1
      on conflict (user_id, movie_id, scope) do update set
        entries = statistics_movies.entries + excluded.entries, plays = statistics_movies.plays + excluded.plays,
        rewatches = excluded.rewatches, rating = excluded.rating`;
    let rows: GroupKey[];
    if (isPostgres(trx)) {
      // One statement (a round trip saved): the movies' rows in a WITH, the groups (which do not read
      // them) in the statement itself.
      ({ rows } = await addToGroups(sql`${withD}, added_to_movies as (${addToMovies})`).execute(trx));
    } else {
      await sql`${withD} ${addToMovies}`.execute(trx);
      ({ rows } = await addToGroups(withD).execute(trx));
    }
    if (some.some((delta) => Number(delta.dm) < 0)) {
      await sql`${withD} delete from statistics_movies where entries = 0
        and (user_id, movie_id, scope) in (select user_id, movie_id, scope from d where dm < 0)`.execute(trx);
    }
    await dropEmptyGroups(trx, rows);
  }
}

const hasPending = precompiledSql(
  (userId: number) =>
    sql`select 1 as pending from statistics_pending where user_id = ${userId}
      union all select 1 from statistics_counting where user_id = ${userId} limit 1`,
  1,
);

/** The user's pending rows moved to `statistics_counting`, once each (the first statements of each step). */
const MOVE_PENDING = [
  (userId: number) =>
    sql`insert into statistics_counting (user_id, movie_id, watched_at)
      select user_id, movie_id, watched_at from statistics_pending where user_id = ${userId}
      order by movie_id, watched_at
      on conflict do nothing`,
  (userId: number) => sql`delete from statistics_pending where user_id = ${userId}`,
].map((build) => precompiledSql(build, 1));

const countingMovies = precompiledSql(
  (userId: number) =>
    sql<{
      movies: unknown;
    }>`select count(distinct movie_id) as movies from statistics_counting where user_id = ${userId}`,
  1,
);

/**
 * PostgreSQL: the three above in one statement (two round trips saved). Its WITH deletes the pending
 * rows and adds them to `statistics_counting`; the statement cannot see that addition, so it counts the
 * movies of the rows there before and of those it moved.
 */
const MOVE_AND_COUNT_PENDING = precompiledSql(
  (userId: number) =>
    sql<{ movies: unknown }>`with moved as (
        delete from statistics_pending where user_id = ${userId} returning user_id, movie_id, watched_at
      ), added as (
        insert into statistics_counting (user_id, movie_id, watched_at)
        select user_id, movie_id, watched_at from moved order by movie_id, watched_at
        on conflict do nothing
      )
      select count(distinct movie_id) as movies from (
        select movie_id from statistics_counting where user_id = ${userId}
        union all select movie_id from moved
      ) as c`,
  1,
);

/** The rest of a step, in order, each compiled once (the user's id and the step's size are their arguments). */
const STEP_END_SQL = [
  // The days.
  (userId: number, limit: number) =>
    sql`insert into statistics_days (user_id, watched_at, entries, plays)
      select user_id, watched_at, count(*), sum(plays) from watch_dates
      where user_id = ${userId} and watched_at in (${stepDays(userId, limit)})
      group by user_id, watched_at
      on conflict (user_id, watched_at) do update set entries = excluded.entries, plays = excluded.plays`,
  (userId: number, limit: number) =>
    sql`delete from statistics_days where user_id = ${userId} and watched_at in (${stepDays(userId, limit)})
      and not exists (select 1 from watch_dates w
        where w.user_id = statistics_days.user_id and w.watched_at = statistics_days.watched_at)`,
  (userId: number, limit: number) =>
    sql`delete from statistics_counting where user_id = ${userId} and movie_id in (${stepMovies(userId, limit)})`,
] as const;
const STEP_END = STEP_END_SQL.map((build) => precompiledSql(build, 2));
/**
 * PostgreSQL: the same in one statement (two round trips saved). They touch different rows (the days
 * with entries, those without, the step's movies) and read nothing another of them writes.
 */
const STEP_END_PG = precompiledSql((userId: number, limit: number) => {
  const [countDays, dropDays, dropCounted] = STEP_END_SQL.map((build) => build(userId, limit));
  return sql`with days_counted as (${countDays}), days_dropped as (${dropDays}) ${dropCounted}`;
}, 2);

// PostgreSQL: the user's writes wait (their lock), and so do refreshes of the movies counted here. The
// commit need not wait for the disk: lost in a crash, the step is lost whole, pending rows included,
// and the next read does it again.
// (One statement: set_config(…, true) is SET LOCAL.)
const LOCK_USER = [
  (userId: number) =>
    sql`select set_config('synchronous_commit', 'off', true), id from users where id = ${userId} for no key update`,
].map((build) => precompiledSql(build, 1));
const LOCK_STEP_MOVIES = precompiledSql(
  (userId: number, limit: number) =>
    sql`select id from movies where id in (${stepMovies(userId, limit)}) order by id for share`,
  2,
);

/**
 * First in each transaction of a catch-up: the user's lock (PostgreSQL), then what is pending moved.
 * Returns how many movies are to be counted again.
 */
async function begin(trx: Db, userId: number): Promise<number> {
  let counting: { movies: unknown };
  if (isPostgres(trx)) {
    for (const statement of LOCK_USER) await statement(trx, userId);
    counting = (await MOVE_AND_COUNT_PENDING(trx, userId)).rows[0] as { movies: unknown };
  } else {
    for (const statement of MOVE_PENDING) await statement(trx, userId);
    counting = (await countingMovies(trx, userId)).rows[0] as { movies: unknown };
  }
  return Number(counting.movies);
}

/**
 * Movies counted again per step of a catch-up. A step is one short transaction (a few ms on SQLite),
 * and the event loop serves other requests between steps: on SQLite a statement holds the loop, and a
 * catch-up of 2,000 movies in one transaction held it 300 ms (issue 28: the one-play POST's p99, when
 * the background catch-up began in the middle of its load).
 */
export const STEP_MOVIES = 25;

/**
 * Past this many movies to count again (an import), a catch-up counts the user's aggregates again from
 * scratch, in one transaction: 100,000 plays imported into an empty library took 24 s on PostgreSQL
 * added change by change, 3.6 s counted again (SQLite: 2.9 s and 1.6 s).
 */
const REBUILD_OVER_MOVIES = 2_500;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Before a user's statistics are read: brings their aggregates up to date with the entries their writes
 * changed since (`statistics_pending`); nothing pending, nothing written. In steps of `STEP_MOVIES`
 * movies, each one transaction: after one play, one step (one movie and one day counted again, about
 * 45 group rows changed). Past `REBUILD_OVER_MOVIES`, one rebuild. Writes that go on meanwhile add to
 * what is pending: after as many steps as there were movies at the start, and two more, the last step
 * takes the rest, so that a stream of writes cannot keep a reader waiting.
 */
export async function catchUpStatistics(db: Db, userId: number): Promise<void> {
  if ((await hasPending(db, userId)).rows.length === 0) return;
  const { movies, more } = await inTransaction(db, async (trx) => {
    const count = await begin(trx, userId);
    // A step's worth (after a play, one movie): counted in this transaction, a second one saved (on
    // PostgreSQL its begin, lock, moves and commit were a quarter of a one-play catch-up's 20 ms). Then
    // nothing is left: every pending row was moved and counted, and no write of the user can land
    // before the commit (it waits for the user's lock; SQLite's transaction holds the one writer).
    if (count <= STEP_MOVIES) {
      await countStep(trx, userId, STEP_MOVIES);
      return { movies: count, more: false };
    }
    if (count <= REBUILD_OVER_MOVIES) return { movies: count, more: true };
    if (isPostgres(trx)) {
      // Every movie of the user is counted again: each is held as the pending ones are.
      await sql`select id from movies where id in (select movie_id from watch_dates where user_id = ${userId})
        order by id for share`.execute(trx);
    }
    await fillFromScratch(trx, [userId]);
    return { movies: 0, more: false };
  });
  if (!more) return;
  for (let steps = Math.ceil(movies / STEP_MOVIES) + 2; ; steps--) {
    const limit = steps > 1 ? STEP_MOVIES : 2 ** 31 - 1;
    const more = await inTransaction(db, (trx) => catchUpStep(trx, userId, limit));
    if (!more) return;
    await nextTurn();
  }
}

/** One step of a catch-up: the first `limit` movies being counted, counted again. True: more to count. */
async function catchUpStep(trx: Db, userId: number, limit: number): Promise<boolean> {
  await begin(trx, userId);
  return stepAfterBegin(trx, userId, limit);
}

/** A step's work once its transaction has begun (`begin`). True: more to count. */
async function stepAfterBegin(trx: Db, userId: number, limit: number): Promise<boolean> {
  await countStep(trx, userId, limit);
  return (await hasPending(trx, userId)).rows.length > 0;
}

/** Counts the first `limit` movies being counted again, and their days. */
async function countStep(trx: Db, userId: number, limit: number): Promise<void> {
  if (isPostgres(trx)) await LOCK_STEP_MOVIES(trx, userId, limit);
  const deltas = (await stepDeltas(trx, userId, limit)).rows as Delta[];
  await addDeltas(trx, deltas);
  if (isPostgres(trx)) await STEP_END_PG(trx, userId, limit);
  else for (const statement of STEP_END) await statement(trx, userId, limit);
}

// ---- A movie's refresh ----------------------------------------------------------------------------

/** The groups a movie counts in (`kind`/`item` keys) and its runtime, as its data says now. */
export interface MovieGroups {
  items: Set<string>;
  runtime: number;
}

const SEPARATOR = '\u0000';

async function groupsOfMovie(db: Db, movieId: number): Promise<MovieGroups> {
  const { rows } = await sql<{ kind: string; item: string; runtime: unknown }>`${sql.join(
    GROUPS.map(
      ({ kind, from, on, item, where, runtime }) =>
        sql`select ${sql.lit(kind)} as kind, ${item} as item, ${runtime ?? sql`0`} as runtime
          from (select cast(${movieId} as integer) as movie_id) x cross join ${from}
          where ${on(sql`x.movie_id`)} and ${where ?? sql`1 = 1`}`,
    ),
    sql` union all `,
  )}`.execute(db);
  return {
    items: new Set(rows.map((row) => `${row.kind}${SEPARATOR}${row.item}`)),
    runtime: Number(rows.find((row) => row.kind === 'total')?.runtime ?? 0),
  };
}

/**
 * The first step of storing a movie's data again (a refresh), in its transaction: holds the movie's
 * row (PostgreSQL) and reads what it counts for before the change. Null: no such movie stored.
 */
export async function movieStatisticsBefore(trx: Db, movieId: number): Promise<MovieGroups | null> {
  if (isPostgres(trx)) {
    const { rows } = await sql`select id from movies where id = ${movieId} for no key update`.execute(trx);
    if (rows.length === 0) return null;
  }
  return groupsOfMovie(trx, movieId);
}

/**
 * The last step of storing a movie's data (in the same transaction): the plays of every user who has
 * the movie counted move from the groups it left to the groups it joined, and the minutes follow a new
 * runtime. `before` null: the movie was not stored when the transaction began; then false if a
 * concurrent add stored it and a user's statistics count it since (the caller starts again).
 */
export async function movieStatisticsAfter(
  trx: Db,
  movieId: number,
  before: MovieGroups | null,
): Promise<boolean> {
  if (before === null) {
    const { rows } =
      await sql`select 1 as counted from statistics_movies where movie_id = ${movieId} limit 1`.execute(trx);
    return rows.length === 0;
  }
  const after = await groupsOfMovie(trx, movieId);
  const moves: { key: string; sign: number; runtime: number }[] = [];
  for (const key of before.items) if (!after.items.has(key)) moves.push({ key, sign: -1, runtime: 0 });
  for (const key of after.items) if (!before.items.has(key)) moves.push({ key, sign: 1, runtime: 0 });
  if (after.runtime !== before.runtime) {
    moves.push({ key: `total${SEPARATOR}`, sign: 0, runtime: after.runtime - before.runtime });
  }
  if (moves.length === 0) return true;
  // Each user's counted plays of the movie, per scope, times each move.
  const x = sql.join(
    moves.map(({ key, sign, runtime }) => {
      const [kind, item] = key.split(SEPARATOR);
      return sql`select cast(${kind} as text), cast(${item} as text), cast(${sign} as integer), cast(${runtime} as integer)`;
    }),
    sql` union all `,
  );
  const { rows } = await sql<GroupKey>`with x (kind, item, sign, runtime) as (${x})
    insert into statistics_groups (user_id, kind, scope, item, movies, plays, minutes)
    select s.user_id, x.kind, s.scope, x.item, x.sign, x.sign * s.plays, x.runtime * s.plays
    from statistics_movies s cross join x where s.movie_id = ${movieId}
    order by s.user_id, x.kind, s.scope, x.item
    ${UPSERT_GROUPS}`.execute(trx);
  await dropEmptyGroups(trx, rows);
  return true;
}

// ---- From scratch ---------------------------------------------------------------------------------

const ofUsers = (userIds: readonly number[] | undefined) =>
  userIds === undefined ? sql`1 = 1` : sql`user_id in (${sql.join(userIds)})`;

/**
 * What the aggregates of these users (all: absent) hold once up to date, computed from `watch_dates`
 * and the movies' data alone. `rebuildStatistics` writes it; the tests compare with it.
 */
export function statisticsFromScratch(userIds?: readonly number[]) {
  const movies = counted(ofUsers(userIds));
  return {
    movies: sql<{
      user_id: number;
      movie_id: number;
      scope: number;
      entries: number;
      plays: number;
      rewatches: number;
      rating: number | null;
    }>`
      select * from (${movies}) as m`,
    days: sql<{ user_id: number; watched_at: string; entries: number; plays: number }>`
      select user_id, watched_at, count(*) as entries, sum(plays) as plays from watch_dates
      where ${ofUsers(userIds)} and watched_at is not null group by user_id, watched_at`,
    groups: sql<{
      user_id: number;
      kind: Kind;
      scope: number;
      item: string;
      movies: number;
      plays: number;
      minutes: number;
    }>`with d as materialized (select user_id, scope, movie_id, 1 as dm, plays as dp, rating as rt,
        cast(null as integer) as ro, rewatches as drw from (${movies}) as m)
      select user_id, kind, scope, item, sum(movies) as movies, sum(plays) as plays, sum(minutes) as minutes
      from (${contributions('d')}) as c group by user_id, kind, scope, item`,
  };
}

/**
 * Fills the aggregates of these users (all: absent) from scratch, replacing what they held: after rows
 * were written behind the library's back (the benchmarks' bulk seeding). Migration 0017 did the same
 * for the data stored before it.
 */
export async function rebuildStatistics(db: Db, userIds?: readonly number[]): Promise<void> {
  await inTransaction(db, (trx) => fillFromScratch(trx, userIds));
}

async function fillFromScratch(trx: Db, userIds: readonly number[] | undefined): Promise<void> {
  const scratch = statisticsFromScratch(userIds);
  for (const table of [
    'statistics_groups',
    'statistics_movies',
    'statistics_days',
    'statistics_pending',
    'statistics_counting',
  ] as const) {
    await sql`delete from ${sql.table(table)} where ${ofUsers(userIds)}`.execute(trx);
  }
  await sql`insert into statistics_movies (user_id, movie_id, scope, entries, plays, rewatches, rating)
    select user_id, movie_id, scope, entries, plays, rewatches, rating from (${scratch.movies}) as m`.execute(
    trx,
  );
  await sql`insert into statistics_days (user_id, watched_at, entries, plays)
    select user_id, watched_at, entries, plays from (${scratch.days}) as d`.execute(trx);
  await sql`insert into statistics_groups (user_id, kind, scope, item, movies, plays, minutes)
    select user_id, kind, scope, item, movies, plays, minutes from (${scratch.groups}) as g`.execute(trx);
}

/** The users' statistics follow a change of a stored movie's data: movies.service tells it (services.ts). */
export const statisticsFollowCatalog: CatalogChanges<MovieGroups> = {
  before: movieStatisticsBefore,
  after: movieStatisticsAfter,
};
