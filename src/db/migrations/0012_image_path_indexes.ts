import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

// The image cache serves and fetches only images cinelog knows of: a poster, a backdrop or a person's
// picture. These indexes answer "is this one of ours?" for an image not cached yet.
export async function up(db: Db): Promise<void> {
  await db.schema.createIndex('movies_poster_path_idx').on('movies').column('poster_path').execute();
  await db.schema.createIndex('movies_backdrop_path_idx').on('movies').column('backdrop_path').execute();
  await db.schema.createIndex('people_profile_path_idx').on('people').column('profile_path').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('people_profile_path_idx').execute();
  await db.schema.dropIndex('movies_backdrop_path_idx').execute();
  await db.schema.dropIndex('movies_poster_path_idx').execute();
}
