import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/** An auto-incrementing integer primary key in either engine. */
function idColumn(db: Db) {
  return (col: ColumnDefinitionBuilder) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

/**
 * Likes and lists (issue 30). `likes`: a user's heart on a movie, apart from any rating, kept with the
 * time it was first given (newest first: `likes_user_liked_idx`). `lists`: a user's named lists, ranked
 * or not, each `private`, `users` or `public`. `list_movies`: the movies of a list, each once, at
 * positions 1..n without gaps (the library's writer keeps them so), with a note.
 * (0019 is the diary's; the migrator applies names in order and needs no gap filled.)
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('likes')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('liked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('likes_pk', ['user_id', 'movie_id'])
    .execute();
  await db.schema.createIndex('likes_user_liked_idx').on('likes').columns(['user_id', 'liked_at']).execute();
  await db.schema.createIndex('likes_movie_idx').on('likes').column('movie_id').execute();

  await db.schema
    .createTable('lists')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('ranked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('private'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lists_user_idx').on('lists').columns(['user_id', 'updated_at']).execute();

  await db.schema
    .createTable('list_movies')
    .addColumn('list_id', 'integer', (c) => c.notNull().references('lists.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_movies_pk', ['list_id', 'movie_id'])
    .execute();
  // Not unique: a move shifts the positions between two places in one UPDATE, and both engines check
  // a unique index row by row. The writer keeps them 1..n.
  await db.schema
    .createIndex('list_movies_position_idx')
    .on('list_movies')
    .columns(['list_id', 'position'])
    .execute();
  await db.schema.createIndex('list_movies_movie_idx').on('list_movies').column('movie_id').execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ['list_movies', 'lists', 'likes']) await db.schema.dropTable(table).execute();
}
