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
 * Feeds (issue 31): a URL of the user's own that another program reads, the random UUID in its path
 * the only secret, as a webhook's. One per user and kind; `radarr` (the watchlist as a Radarr list) is
 * the first kind. Kept as the webhooks keep theirs: the owner is shown the URL again, and every read
 * looks the UUID up.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('feeds')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('feeds_user_kind_uq', ['user_id', 'kind'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('feeds').execute();
}
