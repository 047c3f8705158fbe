import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { type Page, type PageRequest, pageOf } from '../../shared/pagination.js';
import { recordPlays } from '../history/record-plays.js';
import { deleteWatchDates } from '../history/watch-dates.repository.js';
import { assertMoviesExist } from '../movies/movies.guards.js';
import { toMovie } from '../movies/movies.presenter.js';
import { findMoviesWithRating } from '../movies/movies.repository.js';
import type { Movie } from '../movies/movies.schemas.js';
import { bumpDataVersion } from '../users/users.repository.js';
import type { User } from '../users/users.service.js';
import type { MovieListQuery } from '../watchlist/movie-list.repository.js';
import { findWatchDatesOf, listPlayed } from './played.repository.js';

export interface WatchedDate {
  date: string | null;
  plays: number;
  comment: string | null;
}

export interface PlayedEntry {
  movie: Movie;
  watchedDates: WatchedDate[];
}

/** The plays of one movie to write; `watchedAt` null is the entry of plays with an unknown date. */
export interface PlayedWrite {
  movieId: number;
  watchDates: { watchedAt: string | null; plays: number; comment: string | null }[];
}

export interface PlayedService {
  list(owner: User, query: MovieListQuery & PageRequest): Promise<Page<PlayedEntry>>;
  add(owner: User, items: PlayedWrite[]): Promise<void>;
  replace(owner: User, items: PlayedWrite[]): Promise<void>;
  /** `watchDates` undefined or empty deletes every watch date of the movie. */
  remove(
    owner: User,
    items: { movieId: number; watchDates?: (string | null)[] | undefined }[],
  ): Promise<void>;
}

export function createPlayedService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  imageBaseUrl: string;
}): PlayedService {
  const { db, clock, imageBaseUrl } = deps;

  // No position: played writes keep a stored entry's position (a new one gets 1).
  const writePlays = (owner: User, items: PlayedWrite[], mode: 'add' | 'replace') =>
    inTransaction(db, (trx) =>
      recordPlays(trx, owner, {
        movieIds: items.map((i) => i.movieId),
        entries: items.flatMap((item) => item.watchDates.map((date) => ({ movieId: item.movieId, ...date }))),
        mode,
        now: clock.now().toISOString(),
      }),
    );

  return {
    async list(owner, query) {
      const { movieIds, total } = await listPlayed(db, owner.id, query);
      const [movies, watchDates] = await Promise.all([
        findMoviesWithRating(db, movieIds, owner.id),
        findWatchDatesOf(db, owner.id, movieIds),
      ]);
      const datesByMovie = new Map<number, WatchedDate[]>(movieIds.map((id) => [id, []]));
      for (const row of watchDates) {
        datesByMovie
          .get(row.movie_id)
          ?.push({ date: row.watched_at, plays: row.plays, comment: row.comment });
      }
      const items = movieIds.map((id) => ({
        movie: toMovie(movies.get(id)!, imageBaseUrl),
        watchedDates: datesByMovie.get(id)!,
      }));
      return pageOf(items, total, query);
    },

    add: (owner, items) => writePlays(owner, items, 'add'),

    replace: (owner, items) => writePlays(owner, items, 'replace'),

    remove: (owner, items) =>
      inTransaction(db, async (trx) => {
        await bumpDataVersion(trx, owner.id);
        await assertMoviesExist(
          trx,
          items.map((i) => i.movieId),
        );
        for (const item of items) {
          // An empty list names no specific date, so like an absent one it deletes them all (the
          // spec: "when no specific watch dates are provided, all watch dates ... are deleted").
          const dates = item.watchDates?.length ? item.watchDates : undefined;
          await deleteWatchDates(trx, owner.id, item.movieId, dates);
        }
      }),
  };
}
