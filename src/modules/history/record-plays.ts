import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { bumpDataVersion } from '../users/users.repository.js';
import type { User } from '../users/users.service.js';
import { removeFromWatchlist } from '../watchlist/watchlist.repository.js';
import { addPlays, replacePlays, type WatchDateWrite } from './watch-dates.repository.js';

/**
 * The one rule for recording plays, whoever reports them: inside the caller's transaction, reject
 * the whole batch if any movie is unknown, write each (movie, date) entry, then take the played
 * movies off the owner's watchlist (a user setting, on by default).
 */
export async function recordPlays(
  trx: Kysely<Database>,
  owner: Pick<User, 'id' | 'watchlistAutoRemove'>,
  batch: {
    movieIds: readonly number[];
    entries: readonly WatchDateWrite[];
    mode: 'add' | 'replace';
    now: string;
  },
): Promise<void> {
  // First: on PostgreSQL this locks the user's row, so writers of one user's plays queue up here.
  await bumpDataVersion(trx, owner.id);
  // Movies named without any entry (a played item with no dates) are checked here; the others by
  // their writes below.
  const withEntries = new Set(batch.entries.map((e) => e.movieId));
  const withoutEntries = batch.movieIds.filter((id) => !withEntries.has(id));
  if (withoutEntries.length > 0) await assertMoviesExist(trx, batch.movieIds);
  const write = batch.mode === 'add' ? addPlays : replacePlays;
  // One order for every writer (movie, then date), so concurrent batches never lock rows in a cycle.
  const ordered = [...batch.entries].sort(
    (a, b) => a.movieId - b.movieId || String(a.watchedAt).localeCompare(String(b.watchedAt)),
  );
  for (const entry of ordered) {
    // An entry of an unknown movie writes nothing: the 404 names every unknown id of the batch, and
    // the caller's transaction takes back what was written before it.
    if (!(await write(trx, owner.id, entry, batch.now))) {
      await assertMoviesExist(trx, batch.movieIds);
      throw new Error(`the watch date of movie ${entry.movieId} was not written`);
    }
  }
  if (owner.watchlistAutoRemove) {
    await removeFromWatchlist(
      trx,
      owner.id,
      batch.entries.map((e) => e.movieId),
    );
  }
}
