import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

/**
 * The statistics' aggregates (issue 28): computing a user's statistics from their plays grouped 150,000
 * credit rows by person on every first request after a change (200 ms at 100,000 plays). A scope is a
 * user's plays of all time (0, the undated ones included) or those dated in one year (the year).
 *
 * - `statistics_movies`: each movie's entries and plays per user and scope.
 * - `statistics_groups`: movies and plays per user, scope and group (`kind`, `item`): the scope's
 *   totals (`total`, with its minutes), each genre (TMDB id), original language, production country,
 *   release decade (first three digits), director and billed actor (TMDB id).
 * - `statistics_days`: entries and plays per user and calendar day (months, weekdays, streaks).
 * - `statistics_pending`: the entries (movie, date; '' the unknown date) a user's writes changed since
 *   the three tables above were last brought up to date with them, with when that was noted.
 *
 * Filled here from the stored plays; nothing pending.
 */
export async function up(db: Db): Promise<void> {
  // SQLite: the rows in their key's b-tree, not beside it: fewer pages to write at each commit.
  const withoutRowid = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(table: T) =>
    db.getExecutor().adapter instanceof PostgresAdapter ? table : table.modifyEnd(sql`without rowid`);
  await db.schema
    .createTable('statistics_movies')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('scope', 'integer', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('plays', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_movies_pk', ['user_id', 'movie_id', 'scope'])
    .$call(withoutRowid)
    .execute();
  // The movies of a scope, most played first (with the key: the movie).
  await db.schema
    .createIndex('statistics_movies_scope_idx')
    .on('statistics_movies')
    .columns(['user_id', 'scope', 'plays', 'movie_id'])
    .execute();
  // A refresh changes what a movie counts for: every user who has it.
  await db.schema
    .createIndex('statistics_movies_movie_idx')
    .on('statistics_movies')
    .column('movie_id')
    .execute();

  await db.schema
    .createTable('statistics_groups')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('scope', 'integer', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('movies', 'integer', (c) => c.notNull())
    .addColumn('plays', 'bigint', (c) => c.notNull())
    .addColumn('minutes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_groups_pk', ['user_id', 'kind', 'scope', 'item'])
    .$call(withoutRowid)
    .execute();
  // The first ten people (or genres...) of a scope by movies and by plays, read in order; then by TMDB
  // id, which a length and the text sort as the number.
  await sql`create index statistics_groups_movies_idx
    on statistics_groups (user_id, kind, scope, movies desc, plays desc, length(item), item)`.execute(db);
  await sql`create index statistics_groups_plays_idx
    on statistics_groups (user_id, kind, scope, plays desc, movies desc, length(item), item)`.execute(db);

  await db.schema
    .createTable('statistics_days')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('watched_at', 'text', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('plays', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_days_pk', ['user_id', 'watched_at'])
    .$call(withoutRowid)
    .execute();

  // Keyed by the time noted after the user: a write adds its rows at the end of the user's, so the
  // writes of one commit group share a page.
  await db.schema
    .createTable('statistics_pending')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('noted_at', 'text', (c) => c.notNull())
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('watched_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_pending_pk', ['user_id', 'noted_at', 'movie_id', 'watched_at'])
    .$call(withoutRowid)
    .execute();

  await sql`insert into statistics_movies (user_id, movie_id, scope, entries, plays)
    select user_id, movie_id, scope, entries, plays from (
      select user_id, 0 as scope, movie_id, count(*) as entries, sum(plays) as plays
      from watch_dates group by user_id, movie_id
      union all
      select user_id, cast(substr(watched_at, 1, 4) as integer), movie_id, count(*), sum(plays)
      from watch_dates where watched_at is not null
      group by user_id, substr(watched_at, 1, 4), movie_id
    ) as counted`.execute(db);

  await sql`insert into statistics_days (user_id, watched_at, entries, plays)
    select user_id, watched_at, count(*), sum(plays) from watch_dates where watched_at is not null
    group by user_id, watched_at`.execute(db);

  await sql`insert into statistics_groups (user_id, kind, scope, item, movies, plays, minutes)
    select user_id, kind, scope, item, count(*), sum(plays), sum(minutes) from (
      select s.user_id, 'total' as kind, s.scope, '' as item, s.plays, s.plays * coalesce(m.runtime, 0) as minutes
      from statistics_movies s join movies m on m.id = s.movie_id
      union all
      select s.user_id, 'genre', s.scope, cast(g.tmdb_id as text), s.plays, 0
      from statistics_movies s join movie_genres mg on mg.movie_id = s.movie_id join genres g on g.id = mg.genre_id
      union all
      select s.user_id, 'language', s.scope, m.original_language, s.plays, 0
      from statistics_movies s join movies m on m.id = s.movie_id where m.original_language is not null
      union all
      select s.user_id, 'country', s.scope, mc.country_code, s.plays, 0
      from statistics_movies s join movie_countries mc on mc.movie_id = s.movie_id
      union all
      select s.user_id, 'decade', s.scope, substr(m.release_date, 1, 3), s.plays, 0
      from statistics_movies s join movies m on m.id = s.movie_id where m.release_date is not null
      union all
      select s.user_id, 'director', s.scope, cast(p.tmdb_id as text), s.plays, 0
      from statistics_movies s join movie_crew c on c.movie_id = s.movie_id join people p on p.id = c.person_id
      where c.job = 'Director'
      union all
      select s.user_id, 'actor', s.scope, cast(p.tmdb_id as text), s.plays, 0
      from statistics_movies s join movie_cast c on c.movie_id = s.movie_id join people p on p.id = c.person_id
      where c.cast_order < 15 and c.first_place = 1
    ) as contributions
    group by user_id, kind, scope, item`.execute(db);

  // The statistics no longer group the plays on a request: 0014's covering index of every play (one
  // more index written by each play) goes. The aggregates are counted from the unique index of
  // (user, movie, date) and the rows.
  await db.schema.dropIndex('watch_dates_user_movie_plays_idx').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema
    .createIndex('watch_dates_user_movie_plays_idx')
    .on('watch_dates')
    .columns(['user_id', 'movie_id', 'watched_at', 'plays'])
    .execute();
  await db.schema.dropTable('statistics_pending').execute();
  await db.schema.dropTable('statistics_days').execute();
  await db.schema.dropTable('statistics_groups').execute();
  await db.schema.dropTable('statistics_movies').execute();
}
