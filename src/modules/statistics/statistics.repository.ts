import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

// The statistics' SQL: aggregates of one user's watch dates, optionally those dated in one year. Every
// query is plain SQL both engines run alike (CTEs, window functions, substr); counts and sums come back
// as numbers on SQLite and as strings on PostgreSQL, hence the Number() of every figure.

/** The plays counted: every one of the user (undated too), or those dated in `year`. */
export interface Scope {
  userId: number;
  year?: number | undefined;
}

const yearRange = (year: number) => [`${year}-01-01`, `${year + 1}-01-01`] as const;

/** The watch dates of the scope, as a WHERE condition on the alias `w`. */
function inScope(scope: Scope): Expression<SqlBool> {
  if (scope.year === undefined) return sql<SqlBool>`w.user_id = ${scope.userId}`;
  const [from, to] = yearRange(scope.year);
  return sql<SqlBool>`w.user_id = ${scope.userId} and w.watched_at >= ${from} and w.watched_at < ${to}`;
}

/** `played`: each movie of the scope with its plays, for the CTE every movie-level series starts from. */
const played = (scope: Scope) =>
  sql`played as (select w.movie_id, sum(w.plays) as plays from watch_dates w where ${inScope(scope)} group by w.movie_id)`;

const num = (value: unknown) => Number(value ?? 0);

/** The plays of each day of the scope that has a dated play, oldest first. */
export async function playsPerDay(db: Db, scope: Scope) {
  const { rows } = await sql<{ date: string; plays: unknown }>`
    select w.watched_at as date, sum(w.plays) as plays from watch_dates w
    where ${inScope(scope)} and w.watched_at is not null
    group by w.watched_at order by w.watched_at`.execute(db);
  return rows.map((row) => ({ date: row.date, plays: num(row.plays) }));
}

/** Plays, distinct movies and minutes of each year of the scope that has a dated play, oldest first. */
export async function totalsPerYear(db: Db, scope: Scope) {
  const { rows } = await sql<{ year: string; plays: unknown; movies: unknown; minutes: unknown }>`
    select substr(w.watched_at, 1, 4) as year, sum(w.plays) as plays, count(distinct w.movie_id) as movies,
      coalesce(sum(w.plays * coalesce(m.runtime, 0)), 0) as minutes
    from watch_dates w join movies m on m.id = w.movie_id
    where ${inScope(scope)} and w.watched_at is not null
    group by substr(w.watched_at, 1, 4) order by year`.execute(db);
  return rows.map((row) => ({
    year: Number(row.year),
    plays: num(row.plays),
    movies: num(row.movies),
    minutes: num(row.minutes),
  }));
}

/** What one movie-level figure is: a ranked list, the ratings, the rewatched movies or the totals. */
export type FigureKind = 'total' | 'rating' | 'genre' | 'language' | 'country' | 'decade' | 'rewatched';

export interface FigureRow {
  kind: FigureKind;
  /** The genre's TMDB id, the country or language code, the decade's first three digits, the rating, the movie id. */
  key: string | null;
  name: string | null;
  movies: number;
  plays: number;
  /** The totals' minutes; null for the others. */
  minutes: number | null;
}

/**
 * Every movie-level figure of the scope in one statement, so that its movies and their plays (`played`)
 * are gathered once (both engines materialise a CTE used more than once): the totals; how many of the
 * movies the user rated each rating; the top genres, original languages (with their English name when
 * a stored movie speaks them) and production countries, most movies first, then most plays, then key;
 * every release decade; the movies played more than once, most plays first, then by id.
 */
export async function movieFigures(db: Db, scope: Scope, limit: number): Promise<FigureRow[]> {
  const top = (kind: FigureKind, select: RawBuilder<unknown>, order: RawBuilder<unknown>, max?: number) =>
    sql`select * from (select ${sql.lit(kind)} as kind, ${select} order by ${order}${
      max === undefined ? sql`` : sql` limit ${max}`
    }) as ${sql.raw(`top_${kind}`)}`;
  const { rows } = await sql<{
    kind: FigureKind;
    item: string | null;
    name: string | null;
    movies: unknown;
    plays: unknown;
    minutes: unknown;
  }>`
    with ${played(scope)}
    select 'total' as kind, cast(null as text) as item, cast(null as text) as name, count(*) as movies,
      coalesce(sum(p.plays), 0) as plays, coalesce(sum(p.plays * coalesce(m.runtime, 0)), 0) as minutes
    from played p join movies m on m.id = p.movie_id
    union all
    select 'rating', cast(r.rating as text), null, count(*), sum(p.plays), null
    from played p join ratings r on r.movie_id = p.movie_id and r.user_id = ${scope.userId}
    group by r.rating
    union all
    ${top(
      'genre',
      sql`cast(g.tmdb_id as text) as item, g.name, count(*) as movies, sum(p.plays) as plays, cast(null as bigint) as minutes
      from played p join movie_genres mg on mg.movie_id = p.movie_id join genres g on g.id = mg.genre_id
      group by g.tmdb_id, g.name`,
      sql`movies desc, plays desc, g.tmdb_id`,
      limit,
    )}
    union all
    ${top(
      'language',
      sql`m.original_language as item, l.english_name as name, count(*) as movies, sum(p.plays) as plays,
        cast(null as bigint) as minutes
      from played p join movies m on m.id = p.movie_id left join languages l on l.code = m.original_language
      where m.original_language is not null
      group by m.original_language, l.english_name`,
      sql`movies desc, plays desc, m.original_language`,
      limit,
    )}
    union all
    ${top(
      'country',
      sql`c.code as item, c.name, count(*) as movies, sum(p.plays) as plays, cast(null as bigint) as minutes
      from played p join movie_countries mc on mc.movie_id = p.movie_id join countries c on c.code = mc.country_code
      group by c.code, c.name`,
      sql`movies desc, plays desc, c.code`,
      limit,
    )}
    union all
    ${top(
      'decade',
      sql`substr(m.release_date, 1, 3) as item, cast(null as text) as name, count(*) as movies,
        sum(p.plays) as plays, cast(null as bigint) as minutes
      from played p join movies m on m.id = p.movie_id
      where m.release_date is not null
      group by substr(m.release_date, 1, 3)`,
      sql`movies desc, plays desc, item`,
    )}
    union all
    ${top(
      'rewatched',
      sql`cast(p.movie_id as text) as item, cast(null as text) as name, 1 as movies, p.plays,
        cast(null as bigint) as minutes
      from played p where p.plays > 1`,
      sql`p.plays desc, p.movie_id`,
      limit,
    )}`.execute(db);
  return rows.map((row) => ({
    kind: row.kind,
    key: row.item,
    name: row.name,
    movies: num(row.movies),
    plays: num(row.plays),
    minutes: row.minutes === null ? null : num(row.minutes),
  }));
}

/** The places of a movie's bill that count an actor in it: the first 15 (TMDB's `order` 0 to 14). */
export const BILLED_CAST = 15;

export interface RankedPerson {
  credit: 'director' | 'actor';
  id: number;
  tmdbId: number;
  name: string;
  profilePath: string | null;
  movies: number;
  plays: number;
  /** 1-based rank by movies (then plays, then TMDB id) and by plays (then movies, then TMDB id). */
  byMovies: number;
  byPlays: number;
}

/**
 * The people credited in the scope's movies, as directors (crew job "Director") and as actors (the
 * first BILLED_CAST places of the bill; a person in several of them once): of each, the first `limit`
 * by movies and the first `limit` by plays, in one statement.
 */
export async function topPeople(db: Db, scope: Scope, limit: number): Promise<RankedPerson[]> {
  const { rows } = await sql<{
    credit: 'director' | 'actor';
    id: number;
    tmdb_id: number;
    name: string;
    profile_path: string | null;
    movies: unknown;
    plays: unknown;
    by_movies: unknown;
    by_plays: unknown;
  }>`
    with ${played(scope)},
    credits as (
      select 'director' as credit, c.person_id, p.plays
      from movie_crew c join played p on p.movie_id = c.movie_id where c.job = 'Director'
      union all
      select 'actor', c.person_id, p.plays
      from movie_cast c join played p on p.movie_id = c.movie_id
      where c.cast_order < ${BILLED_CAST} and c.first_place = 1
    ),
    totals as (
      select credit, person_id, count(*) as movies, sum(plays) as plays from credits group by credit, person_id
    ),
    ranked as (
      select t.credit, t.person_id, t.movies, t.plays,
        row_number() over (partition by t.credit order by t.movies desc, t.plays desc, pe.tmdb_id) as by_movies,
        row_number() over (partition by t.credit order by t.plays desc, t.movies desc, pe.tmdb_id) as by_plays
      from totals t join people pe on pe.id = t.person_id
    )
    select r.credit, pe.id, pe.tmdb_id, pe.name, pe.profile_path, r.movies, r.plays, r.by_movies, r.by_plays
    from ranked r join people pe on pe.id = r.person_id
    where r.by_movies <= ${limit} or r.by_plays <= ${limit}`.execute(db);
  return rows.map((row) => ({
    credit: row.credit,
    id: row.id,
    tmdbId: row.tmdb_id,
    name: row.name,
    profilePath: row.profile_path,
    movies: num(row.movies),
    plays: num(row.plays),
    byMovies: num(row.by_movies),
    byPlays: num(row.by_plays),
  }));
}
