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
 * A movie's data beyond the spec's Movie: cast and crew, countries, languages, companies and its
 * collection, from TMDB. People, companies, collections, countries and languages are stored once and
 * linked; a movie's links are replaced whole when it is refreshed.
 */
export async function up(db: Db): Promise<void> {
  // A saga (TMDB's belongs_to_collection).
  await db.schema
    .createTable('collections')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('tmdb_id', 'integer', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('poster_path', 'text')
    .addColumn('backdrop_path', 'text')
    .execute();

  await db.schema.alterTable('movies').addColumn('backdrop_path', 'text').execute();
  await db.schema
    .alterTable('movies')
    .addColumn('collection_id', 'integer', (c) => c.references('collections.id').onDelete('set null'))
    .execute();
  // When TMDB was last asked for the movie's details; null: never (movies stored before this migration).
  await db.schema.alterTable('movies').addColumn('details_fetched_at', 'text').execute();
  // The other movies of a saga.
  await db.schema.createIndex('movies_collection_idx').on('movies').column('collection_id').execute();
  // The refresh picks the movies fetched longest ago.
  await db.schema
    .createIndex('movies_details_fetched_idx')
    .on('movies')
    .column('details_fetched_at')
    .execute();
  // A genre's movies (movie_genres' key starts with the movie).
  await db.schema.createIndex('movie_genres_genre_idx').on('movie_genres').column('genre_id').execute();

  // One row per TMDB person, however many movies they are in.
  await db.schema
    .createTable('people')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('tmdb_id', 'integer', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('profile_path', 'text')
    .addColumn('known_for_department', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Billing order: cast_order 0 is the top of the bill. A person may hold several places (several roles).
  await db.schema
    .createTable('movie_cast')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('character', 'text')
    .addColumn('cast_order', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_cast_pk', ['movie_id', 'cast_order'])
    .execute();
  // A person's movies as cast.
  await db.schema
    .createIndex('movie_cast_person_idx')
    .on('movie_cast')
    .columns(['person_id', 'movie_id'])
    .execute();

  // One row per person and job in a movie; position keeps the crew in the order it is shown.
  await db.schema
    .createTable('movie_crew')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('person_id', 'integer', (c) => c.notNull().references('people.id').onDelete('cascade'))
    .addColumn('department', 'text', (c) => c.notNull())
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_crew_pk', ['movie_id', 'person_id', 'job'])
    .execute();
  // A person's movies as crew.
  await db.schema
    .createIndex('movie_crew_person_idx')
    .on('movie_crew')
    .columns(['person_id', 'movie_id'])
    .execute();

  await db.schema
    .createTable('companies')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('tmdb_id', 'integer', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('logo_path', 'text')
    .addColumn('origin_country', 'text')
    .execute();
  await db.schema
    .createTable('movie_companies')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_companies_pk', ['movie_id', 'company_id'])
    .execute();
  await db.schema
    .createIndex('movie_companies_company_idx')
    .on('movie_companies')
    .column('company_id')
    .execute();

  // ISO 3166-1 codes and TMDB's (English) names.
  await db.schema
    .createTable('countries')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('movie_countries')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('country_code', 'text', (c) => c.notNull().references('countries.code').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_countries_pk', ['movie_id', 'country_code'])
    .execute();
  await db.schema
    .createIndex('movie_countries_country_idx')
    .on('movie_countries')
    .column('country_code')
    .execute();

  // ISO 639-1 codes with the English and the native name (movies.original_language holds a code too).
  await db.schema
    .createTable('languages')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('english_name', 'text')
    .addColumn('name', 'text')
    .execute();
  await db.schema
    .createTable('movie_languages')
    .addColumn('movie_id', 'integer', (c) => c.notNull().references('movies.id').onDelete('cascade'))
    .addColumn('language_code', 'text', (c) => c.notNull().references('languages.code').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('movie_languages_pk', ['movie_id', 'language_code'])
    .execute();
  await db.schema
    .createIndex('movie_languages_language_idx')
    .on('movie_languages')
    .column('language_code')
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'movie_languages',
    'languages',
    'movie_countries',
    'countries',
    'movie_companies',
    'companies',
    'movie_crew',
    'movie_cast',
    'people',
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex('movie_genres_genre_idx').execute();
  await db.schema.dropIndex('movies_details_fetched_idx').execute();
  await db.schema.dropIndex('movies_collection_idx').execute();
  for (const column of ['details_fetched_at', 'collection_id', 'backdrop_path']) {
    await db.schema.alterTable('movies').dropColumn(column).execute();
  }
  await db.schema.dropTable('collections').execute();
}
