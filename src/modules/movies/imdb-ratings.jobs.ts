import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { JobKinds } from '../../jobs/background-jobs.js';
import type { Clock } from '../../shared/clock.js';
import { importImdbRatingsFromUrl } from './imdb-ratings.service.js';

/** The daily download of IMDb's ratings dataset (docs/imdb.md). */
export const IMPORT_IMDB_RATINGS = 'imdb.ratings';

/** The daily IMDb ratings job; none when IMDB_RATINGS_URL is set empty. */
export function imdbRatingsJobs(deps: {
  db: Kysely<Database>;
  clock: Clock;
  /** IMDB_RATINGS_URL; null: off. */
  url: string | null;
}): JobKinds {
  const { db, clock, url } = deps;
  if (url === null) return { handlers: {}, schedules: [] };
  return {
    handlers: {
      [IMPORT_IMDB_RATINGS]: {
        async run(job) {
          const summary = await importImdbRatingsFromUrl(url, {
            db,
            clock,
            signal: job.signal,
            onProgress: ({ done, total }) => job.progress(done, total),
          });
          return JSON.stringify(summary);
        },
      },
    },
    // Once a day; the first ten minutes after a server first starts.
    schedules: [{ kind: IMPORT_IMDB_RATINGS, everyMs: 86_400_000, firstAfterMs: 10 * 60_000 }],
  };
}
