import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobHandlers, Schedule } from '../../jobs/runner.js';
import type { Clock } from '../../shared/clock.js';
import { isoString } from '../../shared/dates.js';
import { refreshableMovieIds, staleMovieIds } from './movies.repository.js';
import type { MoviesService } from './movies.service.js';

/** One movie's TMDB data fetched again (payload `{ movieId }`). */
export const REFRESH_MOVIE = 'movie.refresh';
/** The hourly look for movies whose data is older than METADATA_REFRESH_DAYS. */
export const REFRESH_STALE = 'movies.refresh-stale';
/**
 * Movies the hourly look queues at most: a refresh is one TMDB request (TMDB allows about 50 a second),
 * so this stays far within its limits, and 3,000 movies are all fresh again within a day and a half.
 */
export const REFRESHES_PER_HOUR = 100;

/** A refresh job of one movie, at most one pending per movie. */
export const queueRefresh = (queue: JobQueue, movieId: number) =>
  queue.enqueue(REFRESH_MOVIE, { movieId }, { key: `movie:${movieId}` });

/** Queues a refresh of every movie with a TMDB id; how many were queued (the others were pending already). */
export async function queueRefreshOfAll(db: Kysely<Database>, queue: JobQueue): Promise<number> {
  let queued = 0;
  for (const movieId of await refreshableMovieIds(db)) {
    if ((await queueRefresh(queue, movieId)) !== null) queued += 1;
  }
  return queued;
}

/** The movie data's background jobs: refreshing one movie, and the hourly look for stale ones. */
export function movieJobs(deps: {
  db: Kysely<Database>;
  clock: Clock;
  movies: MoviesService;
  queue: JobQueue;
  /** METADATA_REFRESH_DAYS. */
  refreshDays: number;
}): { handlers: JobHandlers; schedules: Schedule[] } {
  const { db, clock, movies, queue } = deps;
  return {
    handlers: {
      [REFRESH_MOVIE]: {
        // TMDB failing (a 503 here) throws: the job is tried again later, with backoff.
        run: async ({ payload }: { payload: { movieId: number } }) => movies.refresh(payload.movieId),
      },
      [REFRESH_STALE]: {
        async run() {
          const before = isoString(clock.now().getTime() - deps.refreshDays * 86_400_000);
          const ids = await staleMovieIds(db, before, REFRESHES_PER_HOUR);
          for (const movieId of ids) await queueRefresh(queue, movieId);
          return `${ids.length} stale movies queued for a refresh`;
        },
      },
    },
    // The first look a few minutes after start: a server that starts does not hit TMDB at once.
    schedules: [{ kind: REFRESH_STALE, everyMs: 3_600_000, firstAfterMs: 5 * 60_000 }],
  };
}
