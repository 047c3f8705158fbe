import type { Kysely } from 'kysely';

// Frozen in time: never import app code here, never edit after release; add a new migration instead.

// biome-ignore lint/suspicious/noExplicitAny: migrations are typed against no particular schema
type Db = Kysely<any>;

// Movie pages also show a collection's poster and backdrop and the companies' logos: the image cache
// asks "is this one of ours?" of them too.
export async function up(db: Db): Promise<void> {
  await db.schema
    .createIndex('collections_poster_path_idx')
    .on('collections')
    .column('poster_path')
    .execute();
  await db.schema
    .createIndex('collections_backdrop_path_idx')
    .on('collections')
    .column('backdrop_path')
    .execute();
  await db.schema.createIndex('companies_logo_path_idx').on('companies').column('logo_path').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('companies_logo_path_idx').execute();
  await db.schema.dropIndex('collections_backdrop_path_idx').execute();
  await db.schema.dropIndex('collections_poster_path_idx').execute();
}
