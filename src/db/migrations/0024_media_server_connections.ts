import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

function idColumn(db: Db) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return (col: ColumnDefinitionBuilder) =>
    postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

/**
 * The backfill from Plex, Jellyfin and Emby (issue 31): a user's saved connection to each server, and
 * the pages a backfill job has fetched so far, so that a restart goes on from the last one.
 */
export async function up(db: Db): Promise<void> {
  // One connection per user and server. The token is sealed with the server key (as two-factor
  // secrets are): a copy of the database reveals none.
  await db.schema
    .createTable('media_server_connections')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    // The user on the server (an id or a name); null: the token's own (Plex) or the only one.
    .addColumn('server_user', 'text')
    // The periodic sync: every this many hours; null, off.
    .addColumn('sync_hours', 'integer')
    .addColumn('last_sync_at', 'text')
    // The last backfill's job (its progress) and its summary, as JSON.
    .addColumn('last_job_id', 'integer')
    .addColumn('last_result', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('media_server_connections_user_server_key', ['user_id', 'server'])
    .execute();

  // What a running backfill job has fetched: one row a page, in order, with the cursor after it.
  // Deleted once the job has written its plays, or failed for good.
  await db.schema
    .createTable('media_server_backfill_pages')
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('next_cursor', 'text')
    .addColumn('total', 'integer')
    .addColumn('movies', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_server_backfill_pages_pkey', ['job_id', 'seq'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('media_server_backfill_pages').execute();
  await db.schema.dropTable('media_server_connections').execute();
}
