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
 * OpenID Connect sign-in (issue 32). An account is linked to an issuer's `sub`, never to an e-mail
 * address: one identity per (issuer, subject), and one per user and issuer.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    // The issuer's e-mail at the last sign-in: shown on Settings → Account, never used to sign in.
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addUniqueConstraint('user_identities_subject_key', ['issuer', 'subject'])
    .addUniqueConstraint('user_identities_user_key', ['user_id', 'issuer'])
    .execute();

  // A sign-in sent to the issuer and not back yet: short-lived, single use. The browser's cookie holds
  // the secret, the table its SHA-256 hash and what the callback checks (state, nonce, PKCE verifier).
  await db.schema
    .createTable('oidc_logins')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    // Set for a link from Settings → Account: the identity goes to this user, no new session.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('oidc_logins').execute();
  await db.schema.dropTable('user_identities').execute();
}
