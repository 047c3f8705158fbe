import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import { fetchImage, ImageUnavailable } from './image-fetcher.js';
import { type ImageSize, ImageStore, isImageFile, isImageSize } from './image-store.js';
import { isKnownImagePath } from './images.repository.js';

/** One image to fetch (payload of an `image.fetch` job). */
export interface ImageRef {
  size: ImageSize;
  /** TMDB's path, `/abc.jpg`. */
  path: string;
}

export const FETCH_IMAGE = 'image.fetch';

/** What `/images/{size}/{file}` answers. */
export type ImageAnswer =
  | { kind: 'cached'; bytes: Buffer }
  | { kind: 'elsewhere'; url: string }
  | { kind: 'unknown' };

export interface ImagesService {
  /** The cached image; else TMDB's address of it (and its download is queued); else unknown. */
  serve(size: string, file: string): Promise<ImageAnswer>;
  /** Downloads one image unless it is cached; what happened, for the job's outcome. */
  fetch(image: ImageRef): Promise<string>;
  /** Queues the download of an image not cached yet (at most one pending per image). */
  queue(image: ImageRef): Promise<boolean>;
  isCached(image: ImageRef): Promise<boolean>;
}

export function createImagesService(deps: {
  db: Kysely<Database>;
  queue: JobQueue;
  store: ImageStore;
  /** TMDB_IMAGE_BASE_URL. */
  tmdbImageBaseUrl: string;
}): ImagesService {
  const { db, queue, store, tmdbImageBaseUrl } = deps;
  // Images this process has queued lately: a page of 24 posters does not write 24 rows on every view.
  const recentlyQueued = new Set<string>();
  const tmdbUrl = (image: ImageRef) => `${tmdbImageBaseUrl}/${image.size}${image.path}`;

  const queueFetch = async (image: ImageRef) => {
    const key = `${image.size}${image.path}`;
    if (recentlyQueued.has(key)) return false;
    if (recentlyQueued.size >= 10_000) recentlyQueued.clear();
    recentlyQueued.add(key);
    return (await queue.enqueue(FETCH_IMAGE, image, { key })) !== null;
  };

  return {
    async serve(size, file) {
      if (!isImageSize(size) || !isImageFile(file)) return { kind: 'unknown' };
      const bytes = await store.read(size, file);
      if (bytes !== null) return { kind: 'cached', bytes };
      const image = { size, path: `/${file}` };
      if (!(await isKnownImagePath(db, image.path))) return { kind: 'unknown' };
      await queueFetch(image);
      return { kind: 'elsewhere', url: tmdbUrl(image) };
    },

    async fetch(image) {
      const file = image.path.slice(1);
      if (!isImageSize(image.size) || !image.path.startsWith('/') || !isImageFile(file)) {
        return `not an image name: ${image.size}${image.path}`;
      }
      if (await store.has(image.size, file)) return 'already cached';
      try {
        await store.write(image.size, file, await fetchImage(tmdbUrl(image)));
        return 'cached';
      } catch (error) {
        // Missing at TMDB or not an image: pages go on using TMDB's address; no retry would help.
        if (error instanceof ImageUnavailable) return `not cached: ${error.message}`;
        throw error;
      }
    },

    queue: queueFetch,
    isCached: (image) => store.has(image.size, image.path.slice(1)),
  };
}

/** The image cache as the configuration sets it up (IMAGE_CACHE_DIR, TMDB_IMAGE_BASE_URL). */
export const imagesServiceFor = (
  db: Kysely<Database>,
  config: { imageCacheDir: string; tmdb: { imageBaseUrl: string } },
  queue: JobQueue,
) =>
  createImagesService({
    db,
    queue,
    store: new ImageStore(config.imageCacheDir),
    tmdbImageBaseUrl: config.tmdb.imageBaseUrl,
  });

/**
 * The root of the image URLs cinelog hands out (`posterPath` and the rest): its own `/images` with the
 * cache on (absolute, on APP_URL, as decisions.md wants), TMDB's otherwise. The path after it is the
 * same either way: `/{size}{tmdbPath}`.
 */
export const publicImageBaseUrl = (config: {
  imageCache: boolean;
  appUrl: string;
  tmdb: { imageBaseUrl: string };
}) => (config.imageCache ? `${config.appUrl}/images` : config.tmdb.imageBaseUrl);
