import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Rate-limit windows live in the database so that every app instance counts the same requests.
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_reset_idx').on('rate_limits').column('reset_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
