import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

/** Sets the user's 1-10 rating of a movie. */
export async function setRating(
  db: Db,
  userId: number,
  movieId: number,
  rating: number,
  now: string,
): Promise<void> {
  await db
    .insertInto('ratings')
    .values({ user_id: userId, movie_id: movieId, rating, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doUpdateSet({ rating, updated_at: now }))
    .execute();
}

export async function clearRating(db: Db, userId: number, movieId: number): Promise<void> {
  await db.deleteFrom('ratings').where('user_id', '=', userId).where('movie_id', '=', movieId).execute();
}
