import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
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

/** Plays, distinct movies and minutes (runtime × plays, a movie without a runtime counts 0) of the scope. */
export async function totalsOf(db: Db, scope: Scope) {
  const { rows } = await sql<{ plays: unknown; movies: unknown; minutes: unknown }>`
    select coalesce(sum(w.plays), 0) as plays, count(distinct w.movie_id) as movies,
      coalesce(sum(w.plays * coalesce(m.runtime, 0)), 0) as minutes
    from watch_dates w join movies m on m.id = w.movie_id
    where ${inScope(scope)}`.execute(db);
  const row = rows[0];
  return { plays: num(row?.plays), movies: num(row?.movies), minutes: num(row?.minutes) };
}

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

/** How many of the scope's movies the user rated each rating (1-10); ratings nobody gave are absent. */
export async function ratingCounts(db: Db, scope: Scope) {
  const { rows } = await sql<{ rating: number; movies: unknown }>`
    with ${played(scope)}
    select r.rating, count(*) as movies from played p
    join ratings r on r.movie_id = p.movie_id and r.user_id = ${scope.userId}
    group by r.rating`.execute(db);
  return rows.map((row) => ({ rating: Number(row.rating), movies: num(row.movies) }));
}

export interface Ranked<K> {
  key: K;
  name: string | null;
  movies: number;
  plays: number;
}

/** The scope's genres: movies of each and their plays, most movies first, then most plays, then TMDB id. */
export async function topGenres(db: Db, scope: Scope, limit: number): Promise<Ranked<number>[]> {
  const { rows } = await sql<{ key: number; name: string; movies: unknown; plays: unknown }>`
    with ${played(scope)}
    select g.tmdb_id as key, g.name, count(*) as movies, sum(p.plays) as plays
    from played p join movie_genres mg on mg.movie_id = p.movie_id join genres g on g.id = mg.genre_id
    group by g.tmdb_id, g.name
    order by movies desc, plays desc, g.tmdb_id limit ${limit}`.execute(db);
  return rows.map(ranked);
}

/** The scope's production countries (ISO 3166-1), ranked as the genres. */
export async function topCountries(db: Db, scope: Scope, limit: number): Promise<Ranked<string>[]> {
  const { rows } = await sql<{ key: string; name: string; movies: unknown; plays: unknown }>`
    with ${played(scope)}
    select c.code as key, c.name, count(*) as movies, sum(p.plays) as plays
    from played p join movie_countries mc on mc.movie_id = p.movie_id join countries c on c.code = mc.country_code
    group by c.code, c.name
    order by movies desc, plays desc, c.code limit ${limit}`.execute(db);
  return rows.map(ranked);
}

/** The scope's original languages (ISO 639-1), with their English name when a movie speaks it; ranked. */
export async function topLanguages(db: Db, scope: Scope, limit: number): Promise<Ranked<string>[]> {
  const { rows } = await sql<{ key: string; name: string | null; movies: unknown; plays: unknown }>`
    with ${played(scope)}
    select m.original_language as key, l.english_name as name, count(*) as movies, sum(p.plays) as plays
    from played p join movies m on m.id = p.movie_id left join languages l on l.code = m.original_language
    where m.original_language is not null
    group by m.original_language, l.english_name
    order by movies desc, plays desc, m.original_language limit ${limit}`.execute(db);
  return rows.map(ranked);
}

/** The scope's release decades (1990 for 1990-1999), ranked as the genres; every decade, no limit. */
export async function topDecades(db: Db, scope: Scope): Promise<Ranked<number>[]> {
  const { rows } = await sql<{ prefix: string; movies: unknown; plays: unknown }>`
    with ${played(scope)}
    select substr(m.release_date, 1, 3) as prefix, count(*) as movies, sum(p.plays) as plays
    from played p join movies m on m.id = p.movie_id
    where m.release_date is not null
    group by substr(m.release_date, 1, 3)
    order by movies desc, plays desc, prefix`.execute(db);
  return rows.map((row) => ({
    key: Number(row.prefix) * 10,
    name: null,
    movies: num(row.movies),
    plays: num(row.plays),
  }));
}

export interface RankedPerson {
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
 * The people credited in the scope's movies, as directors (crew job "Director") or as cast (any place
 * on the bill, a person in several roles of one movie once): the first `limit` by movies and the first
 * `limit` by plays, in one aggregation.
 */
export async function topPeople(
  db: Db,
  scope: Scope,
  credit: 'director' | 'actor',
  limit: number,
): Promise<RankedPerson[]> {
  const credits =
    credit === 'director'
      ? sql`select c.movie_id, c.person_id from movie_crew c join played p on p.movie_id = c.movie_id where c.job = 'Director'`
      : sql`select distinct c.movie_id, c.person_id from movie_cast c join played p on p.movie_id = c.movie_id`;
  const { rows } = await sql<{
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
    credits as (${credits}),
    totals as (
      select cr.person_id, count(*) as movies, sum(p.plays) as plays
      from credits cr join played p on p.movie_id = cr.movie_id group by cr.person_id
    ),
    ranked as (
      select t.person_id, t.movies, t.plays,
        row_number() over (order by t.movies desc, t.plays desc, pe.tmdb_id) as by_movies,
        row_number() over (order by t.plays desc, t.movies desc, pe.tmdb_id) as by_plays
      from totals t join people pe on pe.id = t.person_id
    )
    select pe.id, pe.tmdb_id, pe.name, pe.profile_path, r.movies, r.plays, r.by_movies, r.by_plays
    from ranked r join people pe on pe.id = r.person_id
    where r.by_movies <= ${limit} or r.by_plays <= ${limit}`.execute(db);
  return rows.map((row) => ({
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

/** The scope's movies played more than once: most plays first, then by service id. */
export async function mostPlayedMovies(db: Db, scope: Scope, limit: number) {
  const { rows } = await sql<{ movie_id: number; plays: unknown }>`
    with ${played(scope)}
    select p.movie_id, p.plays from played p where p.plays > 1
    order by p.plays desc, p.movie_id limit ${limit}`.execute(db);
  return rows.map((row) => ({ movieId: row.movie_id, plays: num(row.plays) }));
}

function ranked<K>(row: { key: K; name: string | null; movies: unknown; plays: unknown }): Ranked<K> {
  return { key: row.key, name: row.name, movies: num(row.movies), plays: num(row.plays) };
}
