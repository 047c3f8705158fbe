import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import type { SortOrder } from '../../shared/schemas.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { toMovie } from '../movies/movies.presenter.js';
import { findMoviesWithRating } from '../movies/movies.repository.js';
import type { Movie } from '../movies/movies.schemas.js';
import type { User } from '../users/users.service.js';
import { removeFromWatchlist } from '../watchlist/watchlist.repository.js';
import { listHistory } from './history.repository.js';
import { addPlays, deleteWatchDates, replacePlays, type WatchDateWrite } from './watch-dates.repository.js';

export interface HistoryEntry {
  movie: Movie;
  watchedAt: string;
}

export interface HistoryService {
  list(
    owner: User,
    query: { search?: string | undefined; sortOrder: SortOrder } & PageRequest,
  ): Promise<Page<HistoryEntry>>;
  add(owner: User, entries: WatchDateWrite[]): Promise<void>;
  replace(owner: User, entries: WatchDateWrite[]): Promise<void>;
  remove(owner: User, items: { movieId: number; watchedAt?: string | undefined }[]): Promise<void>;
}

export function createHistoryService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  imageBaseUrl: string;
}): HistoryService {
  const { db, clock, imageBaseUrl } = deps;

  /** Writes a batch in one transaction: an unknown movie anywhere rejects all of it. */
  const writePlays = (owner: User, entries: WatchDateWrite[], write: typeof addPlays) =>
    db.transaction().execute(async (trx) => {
      await assertMoviesExist(
        trx,
        entries.map((e) => e.movieId),
      );
      const now = clock.now().toISOString();
      for (const entry of entries) await write(trx, owner.id, entry, now);
      if (owner.watchlistAutoRemove)
        await removeFromWatchlist(
          trx,
          owner.id,
          entries.map((e) => e.movieId),
        );
    });

  return {
    async list(owner, query) {
      const { rows, total } = await listHistory(db, owner.id, query, query);
      const movies = await findMoviesWithRating(
        db,
        rows.map((r) => r.movie_id),
        owner.id,
      );
      const items = rows.map((row) => ({
        movie: toMovie(movies.get(row.movie_id)!, imageBaseUrl),
        watchedAt: row.watched_at,
      }));
      return pageOf(items, total, query);
    },

    add: (owner, entries) => writePlays(owner, entries, addPlays),

    replace: (owner, entries) => writePlays(owner, entries, replacePlays),

    remove: (owner, items) =>
      db.transaction().execute(async (trx) => {
        await assertMoviesExist(
          trx,
          items.map((i) => i.movieId),
        );
        for (const item of items) {
          await deleteWatchDates(
            trx,
            owner.id,
            item.movieId,
            item.watchedAt === undefined ? undefined : [item.watchedAt],
          );
        }
      }),
  };
}
