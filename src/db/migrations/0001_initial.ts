import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/** An auto-incrementing integer primary key in either engine. */
function idColumn(db: Db) {
  return (col: ColumnDefinitionBuilder) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('privacy', 'text', (c) => c.notNull().defaultTo('users'))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('watchlist_auto_remove', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('api_tokens_user_idx')
    .on('api_tokens')
    .columns(['user_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('movies')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('original_title', 'text')
    .addColumn('release_date', 'text')
    .addColumn('tagline', 'text')
    .addColumn('overview', 'text')
    .addColumn('original_language', 'text')
    .addColumn('runtime', 'integer')
    .addColumn('poster_path', 'text')
    .addColumn('tmdb_id', 'integer', (c) => c.unique())
    .addColumn('trakt_id', 'integer', (c) => c.unique())
    .addColumn('imdb_id', 'text')
    .addColumn('letterboxd_id', 'text')
    .addColumn('tmdb_vote_average', 'double precision')
    .addColumn('tmdb_vote_count', 'integer')
    .addColumn('imdb_rating_average', 'double precision')
    .addColumn('imdb_rating_count', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text')
    .execute();
  await db.schema.createIndex('movies_imdb_idx').on('movies').column('imdb_id').execute();

  await db.schema
    .createTable('genres')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('tmdb_id', 'integer', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('movie_genres')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('genre_id', 'integer', (c) => c.notNull().references('genres.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_genres_pk', ['movie_id', 'genre_id'])
    .execute();

  await db.schema
    .createTable('watch_dates')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('watched_at', 'text')
    .addColumn('plays', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One row per (user, movie, date). NULLs are distinct in a unique index, so the null date gets its own.
  await db.schema
    .createIndex('watch_dates_user_movie_date_uq')
    .on('watch_dates')
    .columns(['user_id', 'movie_id', 'watched_at'])
    .unique()
    .execute();
  await db.schema
    .createIndex('watch_dates_user_movie_null_date_uq')
    .on('watch_dates')
    .columns(['user_id', 'movie_id'])
    .unique()
    .where(sql.ref('watched_at'), 'is', null)
    .execute();
  // History: a user's dated rows by date, then position.
  await db.schema
    .createIndex('watch_dates_history_idx')
    .on('watch_dates')
    .columns(['user_id', 'watched_at', 'position'])
    .execute();
  await db.schema.createIndex('watch_dates_movie_idx').on('watch_dates').column('movie_id').execute();

  await db.schema
    .createTable('watchlist')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('watchlist_user_movie_uq', ['user_id', 'movie_id'])
    .execute();
  await db.schema
    .createIndex('watchlist_user_added_idx')
    .on('watchlist')
    .columns(['user_id', 'added_at'])
    .execute();
  await db.schema.createIndex('watchlist_movie_idx').on('watchlist').column('movie_id').execute();

  await db.schema
    .createTable('ratings')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('rating', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ratings_pk', ['user_id', 'movie_id'])
    .execute();
  await db.schema.createIndex('ratings_movie_idx').on('ratings').column('movie_id').execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'ratings',
    'watchlist',
    'watch_dates',
    'movie_genres',
    'genres',
    'movies',
    'api_tokens',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
