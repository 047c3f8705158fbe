import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { JobHandlers, Schedule } from '../../jobs/runner.js';
import { SIZE_OF } from './image-store.js';
import { imagesOfMovies } from './images.repository.js';
import { FETCH_IMAGE, type ImageRef, type ImagesService } from './images.service.js';

/** The look for images not cached yet: every movie's poster and backdrop and the people shown. */
export const SWEEP_IMAGES = 'images.sweep';
/** Downloads one sweep queues at most; the next sweep queues the rest. */
export const IMAGES_PER_SWEEP = 2_000;
const BATCH = 500;

/** The image cache's jobs (only with IMAGE_CACHE=true). */
export function imageJobs(deps: { db: Kysely<Database>; images: ImagesService }): {
  handlers: JobHandlers;
  schedules: Schedule[];
} {
  const { db, images } = deps;
  return {
    handlers: {
      [FETCH_IMAGE]: {
        run: async ({ payload }: { payload: ImageRef }) => images.fetch(payload),
      },
      [SWEEP_IMAGES]: {
        async run({ progress, signal }) {
          let queued = 0;
          let seen = 0;
          let afterId = 0;
          while (queued < IMAGES_PER_SWEEP && !signal.aborted) {
            const { movies, profiles } = await imagesOfMovies(db, afterId, BATCH);
            if (movies.length === 0) break;
            afterId = movies.at(-1)!.id;
            const wanted: ImageRef[] = [
              ...movies.flatMap((movie) => [
                ...(movie.poster_path ? [{ size: SIZE_OF.poster, path: movie.poster_path }] : []),
                ...(movie.backdrop_path ? [{ size: SIZE_OF.backdrop, path: movie.backdrop_path }] : []),
              ]),
              ...profiles.map((path) => ({ size: SIZE_OF.profile, path })),
            ];
            for (const image of wanted) {
              if (queued >= IMAGES_PER_SWEEP) break;
              if (!(await images.isCached(image)) && (await images.queue(image))) queued += 1;
            }
            seen += movies.length;
            progress(seen);
          }
          return `${queued} images queued for download`;
        },
      },
    },
    // Every 6 hours, the first a few minutes after start: an install that turns the cache on fills up.
    schedules: [{ kind: SWEEP_IMAGES, everyMs: 6 * 3_600_000, firstAfterMs: 10 * 60_000 }],
  };
}
