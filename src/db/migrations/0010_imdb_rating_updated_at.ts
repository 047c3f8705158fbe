import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // When a movie's IMDb rating last changed. Kept apart from updated_at, which says when its TMDB data
  // was refreshed: a daily ratings import must not make every movie look freshly refreshed.
  await db.schema.alterTable('movies').addColumn('imdb_rating_updated_at', 'text').execute();
  // The newest change: a cached page that shows movies is stale once it moves (read with max()).
  await db.schema
    .createIndex('movies_imdb_rating_updated_idx')
    .on('movies')
    .column('imdb_rating_updated_at')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('movies_imdb_rating_updated_idx').execute();
  await db.schema.alterTable('movies').dropColumn('imdb_rating_updated_at').execute();
}
