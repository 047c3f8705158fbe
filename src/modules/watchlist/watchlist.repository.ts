import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database>;

export async function removeFromWatchlist(
  db: Db,
  userId: number,
  movieIds: readonly number[],
): Promise<void> {
  if (movieIds.length === 0) return;
  await db
    .deleteFrom('watchlist')
    .where('user_id', '=', userId)
    .where('movie_id', 'in', [...new Set(movieIds)])
    .execute();
}
