import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { isoString } from '../../shared/dates.js';
import { type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import type { SortOrder } from '../../shared/schemas.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { toMovie } from '../movies/movies.presenter.js';
import { findMoviesWithRating } from '../movies/movies.repository.js';
import type { Movie } from '../movies/movies.schemas.js';
import { bumpDataVersion } from '../users/users.repository.js';
import type { User } from '../users/users.service.js';
import { listHistory } from './history.repository.js';
import { recordPlays } from './record-plays.js';
import { deleteWatchDates, type WatchDateWrite } from './watch-dates.repository.js';

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

  const writePlays = (owner: User, entries: WatchDateWrite[], mode: 'add' | 'replace') =>
    inTransaction(db, (trx) =>
      recordPlays(trx, owner, {
        movieIds: entries.map((e) => e.movieId),
        entries,
        mode,
        now: isoString(clock.now().getTime()),
      }),
    );

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

    add: (owner, entries) => writePlays(owner, entries, 'add'),

    replace: (owner, entries) => writePlays(owner, entries, 'replace'),

    remove: (owner, items) =>
      inTransaction(db, async (trx) => {
        await bumpDataVersion(trx, owner.id);
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
