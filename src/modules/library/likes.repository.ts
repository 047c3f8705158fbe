import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { offsetOf, type PageRequest } from '../../shared/pagination.js';

type Db = Kysely<Database>;

/** Likes the movies for the user; one liked already keeps the time it was first liked. */
export async function likeMovies(db: Db, userId: number, movieIds: readonly number[], now: string) {
  // Sorted: concurrent writers lock rows in one order. Chunked: SQLite binds at most 32766 parameters.
  const unique = [...new Set(movieIds)].sort((a, b) => a - b);
  for (let i = 0; i < unique.length; i += 1000) {
    await db
      .insertInto('likes')
      .values(
        unique.slice(i, i + 1000).map((movieId) => ({ user_id: userId, movie_id: movieId, liked_at: now })),
      )
      .onConflict((oc) => oc.columns(['user_id', 'movie_id']).doNothing())
      .execute();
  }
}

/** Takes the user's likes of these movies back; a movie not liked is no error. */
/** Deletes the user's likes of these movies; how many there were. */
export async function unlikeMovies(db: Db, userId: number, movieIds: readonly number[]): Promise<number> {
  const unique = [...new Set(movieIds)];
  let deleted = 0;
  for (let i = 0; i < unique.length; i += 1000) {
    const result = await db
      .deleteFrom('likes')
      .where('user_id', '=', userId)
      .where('movie_id', 'in', unique.slice(i, i + 1000))
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

/**
 * One page of the movies the user likes, newest like first (likes of one request share a time: the
 * higher movie id first), and the total.
 */
export async function listLikes(db: Db, userId: number, query: PageRequest) {
  const base = db.selectFrom('likes').where('user_id', '=', userId);
  const [rows, count] = await Promise.all([
    base
      .select(['movie_id', 'liked_at'])
      .orderBy('liked_at', 'desc')
      .orderBy('movie_id', 'desc')
      .limit(query.limit)
      .offset(offsetOf(query))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** When the user first liked the movie (ISO timestamp), or undefined when they do not like it. */
export async function likedAtOf(db: Db, userId: number, movieId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('likes')
    .select('liked_at')
    .where('user_id', '=', userId)
    .where('movie_id', '=', movieId)
    .executeTakeFirst();
  return row?.liked_at;
}
