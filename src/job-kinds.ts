import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';
import type { JobKinds } from './jobs/background-jobs.js';
import type { JobQueue } from './jobs/queue.js';
import { backupJobs } from './modules/backups/backups.jobs.js';
import { imageJobs } from './modules/images/images.jobs.js';
import { imagesServiceFor } from './modules/images/images.service.js';
import { createImportsService } from './modules/imports/import.service.js';
import { createImportUploads } from './modules/imports/import-uploads.js';
import { importJobs } from './modules/imports/imports.jobs.js';
import type { Library } from './modules/library/library.service.js';
import { imdbRatingsJobs } from './modules/movies/imdb-ratings.jobs.js';
import { movieJobs } from './modules/movies/movies.jobs.js';
import type { MoviesService } from './modules/movies/movies.service.js';
import type { UsersService } from './modules/users/users.service.js';
import type { Clock } from './shared/clock.js';

/** Every kind of background job, for the server and for `cinelog jobs run` alike. */
export function jobKinds(deps: {
  db: Kysely<Database>;
  clock: Clock;
  config: Config;
  movies: MoviesService;
  library: Library;
  users: UsersService;
}): (queue: JobQueue) => JobKinds[] {
  const { db, clock, config, movies, library, users } = deps;
  return (queue) => [
    importJobs({
      imports: createImportsService({ library, movies, users, clock }),
      users,
      uploads: createImportUploads({
        imports: createImportsService({ library, movies, users, clock }),
        queue,
        importsDir: config.importsDir,
      }),
    }),
    movieJobs({ db, clock, movies, queue, refreshDays: config.metadataRefreshDays }),
    imdbRatingsJobs({ db, clock, url: config.imdbRatingsUrl }),
    ...(config.imageCache ? [imageJobs({ db, images: imagesServiceFor(db, config, queue) })] : []),
    ...(config.backupDir
      ? [
          backupJobs({
            clock,
            databaseFile: config.databaseUrl.slice('sqlite:'.length),
            dir: config.backupDir,
            keep: config.backupKeep,
            everyHours: config.backupIntervalHours,
          }),
        ]
      : []),
  ];
}
