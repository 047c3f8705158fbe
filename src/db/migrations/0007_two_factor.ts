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
  // Two-factor sign-in (TOTP), one row per user who has it on or is setting it up. The secrets are
  // encrypted with a server key that is not in the database; never stored in plaintext.
  await db.schema
    .createTable('two_factor')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // The secret in use; null while setting up.
    .addColumn('secret', 'text')
    .addColumn('enabled_at', 'text')
    // The last time step (unix time / 30 s) whose code was accepted: no code works twice.
    .addColumn('last_step', 'integer')
    // The secret being set up, until a code from it is confirmed.
    .addColumn('pending_secret', 'text')
    .addColumn('pending_at', 'text')
    .execute();

  // Single-use recovery codes: high-entropy, so a SHA-256 hash is all that is kept; used ones are deleted.
  await db.schema
    .createTable('two_factor_recovery_codes')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('two_factor_recovery_codes_user_idx')
    .on('two_factor_recovery_codes')
    .column('user_id')
    .execute();

  // A sign-in whose password was right and whose code is awaited: short-lived, single use; the cookie
  // holds the secret, the table its SHA-256 hash.
  await db.schema
    .createTable('two_factor_challenges')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('persistent', 'integer', (c) => c.notNull())
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('two_factor_challenges_user_idx')
    .on('two_factor_challenges')
    .column('user_id')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('two_factor_challenges').execute();
  await db.schema.dropTable('two_factor_recovery_codes').execute();
  await db.schema.dropTable('two_factor').execute();
}
