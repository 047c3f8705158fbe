import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Bumped by every write to a user's lists, so any instance can tell a cached list page is stale.
  await db.schema
    .alterTable('users')
    .addColumn('data_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The newest movie refresh: a cached page that shows movies is stale once it moves.
  await db.schema.createIndex('movies_updated_idx').on('movies').column('updated_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('movies_updated_idx').execute();
  await db.schema.alterTable('users').dropColumn('data_version').execute();
}
