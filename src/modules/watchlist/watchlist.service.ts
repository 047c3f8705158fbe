import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { calendarDateIn } from '../../shared/dates.js';
import { type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { toMovie } from '../movies/movies.presenter.js';
import { findMoviesWithRating } from '../movies/movies.repository.js';
import type { Movie } from '../movies/movies.schemas.js';
import { bumpDataVersion } from '../users/users.repository.js';
import type { User } from '../users/users.service.js';
import type { MovieListQuery } from './movie-list.repository.js';
import { addToWatchlist, listWatchlist, removeFromWatchlist } from './watchlist.repository.js';

export interface WatchlistEntry {
  movie: Movie;
  addedAt: string;
}

export interface WatchlistService {
  list(owner: User, query: MovieListQuery & PageRequest): Promise<Page<WatchlistEntry>>;
  add(owner: User, movieIds: number[]): Promise<void>;
  remove(owner: User, movieIds: number[]): Promise<void>;
}

export function createWatchlistService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  imageBaseUrl: string;
}): WatchlistService {
  const { db, clock, imageBaseUrl } = deps;

  return {
    async list(owner, query) {
      const { rows, total } = await listWatchlist(db, owner.id, query);
      const movies = await findMoviesWithRating(
        db,
        rows.map((r) => r.movie_id),
        owner.id,
      );
      const items = rows.map((row) => ({
        movie: toMovie(movies.get(row.movie_id)!, imageBaseUrl),
        addedAt: calendarDateIn(new Date(row.added_at), owner.timezone),
      }));
      return pageOf(items, total, query);
    },

    add: (owner, movieIds) =>
      inTransaction(db, async (trx) => {
        await bumpDataVersion(trx, owner.id);
        await assertMoviesExist(trx, movieIds);
        await addToWatchlist(trx, owner.id, movieIds, clock.now().toISOString());
      }),

    remove: (owner, movieIds) =>
      inTransaction(db, async (trx) => {
        await bumpDataVersion(trx, owner.id);
        await assertMoviesExist(trx, movieIds);
        await removeFromWatchlist(trx, owner.id, movieIds);
      }),
  };
}
