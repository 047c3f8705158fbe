import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The diary entry (issue 30): a watch date gets its own rating and rewatch flag, and tags.
 *
 * - `watch_dates.rating`: the entry's own 1-10 rating, or null (the movie's rating stays in `ratings`).
 * - `watch_dates.rewatch`: 1 or 0 as the user (or a file) said; null: derived when read (an earlier
 *   dated entry of the same movie exists). A partial index holds the entries where it is set.
 * - `tags`: a user's tags; `name` as first written, `key` its case-folded form, unique per user.
 * - `entry_tags`: which entry has which tag, keyed by (tag, entry) so that a tag's entries are read
 *   from the key alone; the second index serves an entry's tags and the cascade of a deleted entry.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('watch_dates')
    .addColumn('rating', 'integer', (c) => c.check(sql`rating between 1 and 10`))
    .execute();
  await db.schema
    .alterTable('watch_dates')
    .addColumn('rewatch', 'integer', (c) => c.check(sql`rewatch in (0, 1)`))
    .execute();
  // The entries whose rewatch flag was set (few): the diary's rewatch filter reads them from here.
  await db.schema
    .createIndex('watch_dates_rewatch_idx')
    .on('watch_dates')
    .columns(['user_id', 'rewatch'])
    .where(sql.ref('rewatch'), 'is not', null)
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('id', 'integer', (col: ColumnDefinitionBuilder) =>
      isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tags_user_key_unique', ['user_id', 'key'])
    .execute();

  const withoutRowid = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(table: T) =>
    isPostgres(db) ? table : table.modifyEnd(sql`without rowid`);
  await db.schema
    .createTable('entry_tags')
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addColumn('watch_date_id', 'integer', (c) =>
      c.notNull().references('watch_dates.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('entry_tags_pk', ['tag_id', 'watch_date_id'])
    .$call(withoutRowid)
    .execute();
  await db.schema
    .createIndex('entry_tags_entry_idx')
    .on('entry_tags')
    .columns(['watch_date_id', 'tag_id'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('entry_tags').execute();
  await db.schema.dropTable('tags').execute();
  await db.schema.dropIndex('watch_dates_rewatch_idx').execute();
  await db.schema.alterTable('watch_dates').dropColumn('rewatch').execute();
  await db.schema.alterTable('watch_dates').dropColumn('rating').execute();
}
