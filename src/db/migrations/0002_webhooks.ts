import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

function idColumn(db: Db) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return (col: ColumnDefinitionBuilder) =>
    postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

export async function up(db: Db): Promise<void> {
  // One webhook URL per user and media server; the random UUID in its path is the secret.
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server', 'text', (c) => c.notNull())
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('scrobble_watches', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('scrobble_ratings', 'integer', (c) => c.notNull().defaultTo(0))
    // JSON array of media-server user names whose reports count; null: everyone's.
    .addColumn('account_filter', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhooks_user_server_uq', ['user_id', 'server'])
    .execute();

  // The webhook inbox: every report received, kept 30 days, and the memory of counted plays for dedupe.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('server', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('event', 'text')
    .addColumn('account', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('movie_id', 'integer', (c) => c.references('movies.id').onDelete('set null'))
    .addColumn('movie_title', 'text')
    // The instant the report says the watch happened, and the calendar date it counted on.
    .addColumn('event_at', 'text')
    .addColumn('watch_date', 'text')
    .addColumn('payload', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_events_user_received_idx')
    .on('webhook_events')
    .columns(['user_id', 'received_at'])
    .execute();
  await db.schema
    .createIndex('webhook_events_dedupe_idx')
    .on('webhook_events')
    .columns(['user_id', 'movie_id', 'outcome', 'event_at'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhooks').execute();
}
