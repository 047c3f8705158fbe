import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // The ids an import's file gives a movie on another site (a Trakt id, a Letterboxd slug), kept for
  // the importing user alone: a file's claim never changes a movie every user shares (issue 27).
  await db.schema
    .createTable('user_external_ids')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_external_ids_pk', ['user_id', 'source', 'external_id'])
    .addUniqueConstraint('user_external_ids_movie_unique', ['user_id', 'source', 'movie_id'])
    .execute();
  await db.schema
    .createIndex('user_external_ids_movie_idx')
    .on('user_external_ids')
    .column('movie_id')
    .execute();

  // Whose job it is (imports): a user's pending imports are counted, and their latest ones listed,
  // without reading every job's payload.
  await db.schema.alterTable('jobs').addColumn('user_id', 'integer').execute();
  await db.schema.createIndex('jobs_kind_user_idx').on('jobs').columns(['kind', 'user_id', 'id']).execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('jobs_kind_user_idx').execute();
  await db.schema.alterTable('jobs').dropColumn('user_id').execute();
  await db.schema.dropTable('user_external_ids').execute();
}
