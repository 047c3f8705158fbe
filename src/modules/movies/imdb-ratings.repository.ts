import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** A stored movie's IMDb rating, as the ratings import compares and writes it. */
export interface StoredImdbRating {
  movieId: number;
  average: number | null;
  count: number | null;
}

/** Every movie with an IMDb id and its current rating, by IMDb id (several movies may share one). */
export async function moviesByImdbId(db: Db): Promise<Map<string, StoredImdbRating[]>> {
  const rows = await db
    .selectFrom('movies')
    .select(['id', 'imdb_id', 'imdb_rating_average', 'imdb_rating_count'])
    .where('imdb_id', 'is not', null)
    .execute();
  const byImdbId = new Map<string, StoredImdbRating[]>();
  for (const row of rows) {
    const movie = { movieId: row.id, average: row.imdb_rating_average, count: row.imdb_rating_count };
    const shared = byImdbId.get(row.imdb_id!);
    if (shared) shared.push(movie);
    else byImdbId.set(row.imdb_id!, [movie]);
  }
  return byImdbId;
}

/** The newest `imdb_rating_updated_at` (null: no rating was ever imported). */
export async function newestImdbRatingChange(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('movies')
    .select((eb) => eb.fn.max('imdb_rating_updated_at').as('at'))
    .executeTakeFirst();
  return row?.at ?? null;
}

/**
 * Sets the ratings of these movies (ids unique) and stamps them changed `at`, in one statement: a
 * CASE per column keyed by id. Portable: the casts type the bound values for PostgreSQL, and SQLite
 * reads them as its REAL and INTEGER. At most 500 movies, well under either engine's parameter limit.
 */
export async function setImdbRatings(
  db: Db,
  ratings: readonly { movieId: number; average: number; count: number }[],
  at: string,
): Promise<void> {
  if (ratings.length === 0) return;
  if (ratings.length > 500) throw new Error('setImdbRatings takes at most 500 movies at once');
  const byId = (value: (rating: (typeof ratings)[number]) => RawBuilder<number>) =>
    sql<number>`case ${sql.ref('id')} ${sql.join(
      ratings.map((rating) => sql`when ${rating.movieId} then ${value(rating)}`),
      sql` `,
    )} end`;
  await db
    .updateTable('movies')
    .set({
      imdb_rating_average: byId((r) => sql<number>`cast(${r.average} as double precision)`),
      imdb_rating_count: byId((r) => sql<number>`cast(${r.count} as integer)`),
      imdb_rating_updated_at: at,
    })
    .where(
      'id',
      'in',
      ratings.map((r) => r.movieId),
    )
    .execute();
}
