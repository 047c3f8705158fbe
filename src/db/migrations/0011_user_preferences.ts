import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // How the web app shows a 1-10 rating: 'stars' (0.5-5 half stars) or 'points' (8/10).
  await db.schema
    .alterTable('users')
    .addColumn('rating_scale', 'text', (c) => c.notNull().defaultTo('stars'))
    .execute();
  // A read-only page of the user's history anyone with its link may open (off unless turned on).
  await db.schema
    .alterTable('users')
    .addColumn('public_profile', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('users').dropColumn('public_profile').execute();
  await db.schema.alterTable('users').dropColumn('rating_scale').execute();
}
