import { type Kysely, sql } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

/**
 * The statistics of the diary entry (issue 30): `statistics_movies` keeps, per user, movie and scope,
 * the movie's entries that are rewatches (`rewatches`) and the own rating of its latest entry that has
 * one (`rating`, null: none).
 *
 * Not filled here (the rule is the app's): every user's every counted movie is noted pending, and the
 * first read of their statistics counts them again (or, past 2,500 movies, counts the user again from
 * scratch), as after any write.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('statistics_movies')
    .addColumn('rewatches', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('statistics_movies').addColumn('rating', 'integer').execute();
  const now = new Date().toISOString();
  await sql`insert into statistics_pending (user_id, noted_at, movie_id, watched_at)
    select user_id, ${now}, movie_id, '' from statistics_movies where scope = 0
    on conflict do nothing`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('statistics_movies').dropColumn('rating').execute();
  await db.schema.alterTable('statistics_movies').dropColumn('rewatches').execute();
}
