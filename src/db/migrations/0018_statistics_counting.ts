import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

/**
 * `statistics_counting` (issue 28): the entries (movie, date; '' the unknown date) a catch-up of a
 * user's statistics is counting again, once each, keyed by movie. A catch-up moves the user's
 * `statistics_pending` rows here (the same entry noted by many writes becomes one row), then counts a
 * few movies per transaction, in key order, and deletes their rows.
 */
export async function up(db: Db): Promise<void> {
  const withoutRowid = <T extends { modifyEnd(modifier: ReturnType<typeof sql>): T }>(table: T) =>
    db.getExecutor().adapter instanceof PostgresAdapter ? table : table.modifyEnd(sql`without rowid`);
  await db.schema
    .createTable('statistics_counting')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('watched_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('statistics_counting_pk', ['user_id', 'movie_id', 'watched_at'])
    .$call(withoutRowid)
    .execute();
}

export async function down(db: Db): Promise<void> {
  // What was being counted is pending again.
  await sql`insert into statistics_pending (user_id, noted_at, movie_id, watched_at)
    select user_id, '', movie_id, watched_at from statistics_counting`.execute(db);
  await db.schema.dropTable('statistics_counting').execute();
}
