import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

function idColumn(db: Db) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return (col: ColumnDefinitionBuilder) =>
    postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

export async function up(db: Db): Promise<void> {
  // The background job queue: work that must not block a request, done by whichever instance claims it.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('kind', 'text', (c) => c.notNull())
    // At most one queued or running job per (kind, key): enqueueing it again is a no-op.
    .addColumn('key', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('progress_done', 'integer')
    .addColumn('progress_total', 'integer')
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  // What a claim looks for: due queued jobs, and running ones whose claimer stopped renewing its lease.
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['state', 'run_at']).execute();
  await db.schema
    .createIndex('jobs_pending_key_idx')
    .on('jobs')
    .columns(['kind', 'key'])
    .unique()
    .where(sql.ref('state'), 'in', sql`('queued', 'running')`)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('jobs').execute();
}
