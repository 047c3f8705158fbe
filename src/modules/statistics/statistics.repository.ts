import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isPostgres } from '../../db/transaction.js';
import { catchUpStatistics } from '../library/statistics-aggregates.js';

type Db = Kysely<Database>;

// The statistics' reads: the aggregates the library keeps (migration 0017, library/statistics-
// aggregates.ts), never the plays themselves. A scope is 0 (all time, undated plays included) or a
// year (the plays dated in it). Counts and sums come back as numbers on SQLite and as strings on
// PostgreSQL, hence the Number() of every figure.

/** The plays counted: every one of the user (undated too), or those dated in `year`. */
export interface Scope {
  userId: number;
  year?: number | undefined;
}

const scopeOf = (scope: Scope) => scope.year ?? 0;
const num = (value: unknown) => Number(value ?? 0);

/**
 * Brings the user's aggregates up to date with their last writes (the groups follow the movies'
 * counts at the first read after a change); the reads below come after it.
 */
export const catchUp = (db: Db, userId: number) => catchUpStatistics(db, userId);

/** What one row of `movieFigures` is. */
export type FigureKind =
  | 'total'
  | 'genre'
  | 'language'
  | 'country'
  | 'decade'
  | 'rating'
  | 'rewatched'
  | 'rewatches';

export interface FigureRow {
  kind: FigureKind;
  /**
   * The totals' scope (0 all time, or a year); the genre's TMDB id, the language or country code, the
   * decade's first three digits; the rating; the rewatched movie's id; '' for the rewatches (their
   * count in `movies` and `plays`).
   */
  item: string;
  /** The genre's or country's name, the language's English name (null when no stored movie speaks it). */
  name: string | null;
  movies: number;
  plays: number;
  /** The totals' minutes; 0 for the others. */
  minutes: number;
}

/**
 * Every movie-level figure of the scope, in one statement (one round trip): its totals (all time,
 * those of every year too); every genre, original language, production country and release decade,
 * with their names; how many of its movies have each rating (the own rating of the movie's latest
 * entry in scope that has one, else the movie's rating: docs/api-notes.md); its first `limit` movies
 * played more than once, most plays first, then by id; its entries that are rewatches.
 */
export async function movieFigures(db: Db, scope: Scope, limit: number): Promise<FigureRow[]> {
  const { userId } = scope;
  const { rows } = await sql<FigureRow>`
    select 'total' as kind, cast(s.scope as text) as item, cast(null as text) as name, s.movies, s.plays, s.minutes
    from statistics_groups s
    where s.user_id = ${userId} and s.kind = 'total' and ${scope.year === undefined ? sql`1 = 1` : sql`s.scope = ${scopeOf(scope)}`}
    union all
    select s.kind, s.item, coalesce(g.name, l.english_name, c.name), s.movies, s.plays, s.minutes
    from statistics_groups s
    left join genres g on s.kind = 'genre' and cast(g.tmdb_id as text) = s.item
    left join languages l on s.kind = 'language' and l.code = s.item
    left join countries c on s.kind = 'country' and c.code = s.item
    where s.user_id = ${userId} and s.kind in ('genre', 'language', 'country', 'decade', 'rating', 'rewatches')
      and s.scope = ${scopeOf(scope)}
    union all
    select * from (
      select 'rewatched', cast(movie_id as text), null, 1, plays, 0 from statistics_movies
      where user_id = ${userId} and scope = ${scopeOf(scope)} and plays > 1
      order by plays desc, movie_id limit ${limit}
    ) as rewatched`.execute(db);
  return rows.map((row) => ({
    kind: row.kind,
    item: row.item,
    name: row.name,
    movies: num(row.movies),
    plays: num(row.plays),
    minutes: num(row.minutes),
  }));
}

export interface RankedPerson {
  credit: 'director' | 'actor';
  /** By movies (then plays, then TMDB id), or by plays (then movies, then TMDB id). */
  rank: 'movies' | 'plays';
  id: number;
  tmdbId: number;
  name: string;
  profilePath: string | null;
  movies: number;
  plays: number;
}

/**
 * The scope's first `limit` directors (crew job "Director") and actors (the first 15 places
 * of each bill), by movies and by plays, in one statement; each list in its order.
 */
export async function topPeople(db: Db, scope: Scope, limit: number): Promise<RankedPerson[]> {
  const first = (credit: 'director' | 'actor', rank: 'movies' | 'plays') => {
    const [a, b] = rank === 'movies' ? ['movies', 'plays'] : ['plays', 'movies'];
    return sql`select * from (
      select ${sql.lit(credit)} as credit, ${sql.lit(rank)} as rank, item, movies, plays from statistics_groups
      where user_id = ${scope.userId} and kind = ${sql.lit(credit)} and scope = ${scopeOf(scope)}
      order by ${sql.ref(a!)} desc, ${sql.ref(b!)} desc, length(item), item limit ${limit}
    ) as ${sql.raw(`top_${credit}_${rank}`)}`;
  };
  const { rows } = await sql<{
    credit: 'director' | 'actor';
    rank: 'movies' | 'plays';
    movies: unknown;
    plays: unknown;
    id: number;
    tmdb_id: number;
    name: string;
    profile_path: string | null;
  }>`select t.credit, t.rank, t.movies, t.plays, p.id, p.tmdb_id, p.name, p.profile_path
    from (${sql.join(
      [
        first('director', 'movies'),
        first('director', 'plays'),
        first('actor', 'movies'),
        first('actor', 'plays'),
      ],
      sql` union all `,
    )}) as t
    join people p on p.tmdb_id = cast(t.item as integer)`.execute(db);
  const people = rows.map((row) => ({
    credit: row.credit,
    rank: row.rank,
    id: row.id,
    tmdbId: row.tmdb_id,
    name: row.name,
    profilePath: row.profile_path,
    movies: num(row.movies),
    plays: num(row.plays),
  }));
  const counts = (p: RankedPerson) => (p.rank === 'movies' ? [p.movies, p.plays] : [p.plays, p.movies]);
  return people.sort((x, y) => {
    const [[x1, x2], [y1, y2]] = [counts(x), counts(y)] as [number[], number[]];
    return (
      x.credit.localeCompare(y.credit) ||
      x.rank.localeCompare(y.rank) ||
      y1! - x1! ||
      y2! - x2! ||
      x.tmdbId - y.tmdbId
    );
  });
}

/** A day of the scope with plays: its date, its plays, and its number (days since 1970-01-01). */
export interface DayPlays {
  date: string;
  plays: number;
  day: number;
}

/**
 * The plays of each day of the scope that has a dated play, oldest first. Read as one text (`date:plays`
 * joined by commas), not one row a day: 3,650 rows cost 5 ms of parsing on PostgreSQL, the text 1 ms.
 * The text is read by hand and each day numbered once (`dayNumberOf`): split, sorted and numbered with
 * `Date.UTC` three times a day by its readers, it was a third of the statistics' CPU at 3,650 days
 * (about 8 ms a computation). The days are joined in the order they are stored and sorted here by their
 * numbers, only if they came out of order: PostgreSQL's ordered `string_agg(… order by watched_at)`
 * sorted them in the aggregate, 3-6 ms of the statistics' longest query at 3,650 days against 1-1.5 ms
 * unordered (docs/performance.md, "Statistics"); SQLite reads them along the key, in order.
 */
export async function playsPerDay(db: Db, scope: Scope): Promise<DayPlays[]> {
  const pair = sql`watched_at || ':' || plays`;
  const joined = isPostgres(db) ? sql`string_agg(${pair}, ',')` : sql`group_concat(${pair}, ',')`;
  const year = scope.year === undefined ? null : String(scope.year).padStart(4, '0');
  const { rows } = await sql<{ days: string | null }>`select ${joined} as days from statistics_days
    where user_id = ${scope.userId}
      and ${year === null ? sql`1 = 1` : sql`watched_at >= ${`${year}-01-01`} and watched_at <= ${`${year}-12-31`}`}`.execute(
    db,
  );
  const text = rows[0]?.days;
  const days: DayPlays[] = [];
  if (!text) return days;
  let ordered = true;
  for (let at = 0; at < text.length; ) {
    const comma = text.indexOf(',', at);
    const end = comma === -1 ? text.length : comma;
    const date = text.slice(at, at + 10);
    const day = dayNumberOf(date);
    if (ordered && days.length > 0 && day < days[days.length - 1]!.day) ordered = false;
    days.push({ date, plays: Number(text.slice(at + 11, end)), day });
    at = end + 1;
  }
  return ordered ? days : days.sort((a, b) => a.day - b.day);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (the proleptic Gregorian calendar, as Date.UTC counts). */
export function dayNumberOf(date: string): number {
  const digit = (i: number) => date.charCodeAt(i) - 48;
  const y0 = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
  const m = digit(5) * 10 + digit(6);
  const d = digit(8) * 10 + digit(9);
  // Howard Hinnant's days_from_civil: the year taken from March, so that a leap day ends it.
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
