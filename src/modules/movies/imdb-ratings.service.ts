import { open, stat } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { openImdbDownload } from '../../integrations/imdb/imdb-ratings.download.js';
import { ImdbRatingsFormatError, readImdbRatings } from '../../integrations/imdb/imdb-ratings.reader.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import { isoString } from '../../shared/dates.js';
import { moviesByImdbId, newestImdbRatingChange, setImdbRatings } from './imdb-ratings.repository.js';

export { ImdbDownloadError } from '../../integrations/imdb/imdb-ratings.download.js';
export { ImdbRatingsFormatError } from '../../integrations/imdb/imdb-ratings.reader.js';

/** What an import did. */
export interface ImdbImportSummary {
  /** Lines of the dataset after its header. */
  lines: number;
  /** Lines naming a movie cinelog knows (by its IMDb id). */
  matched: number;
  /** Movies whose rating changed and was written (several movies may share one IMDb id). */
  updated: number;
  /** Malformed lines, ignored. */
  skipped: number;
}

/** How far an import is: bytes of the source read so far (compressed, as stored or sent). */
export interface ImdbImportProgress {
  done: number;
  /** The file's size or the download's Content-Length; null when the server sent none. */
  total: number | null;
}

export interface ImdbImportOptions {
  db: Kysely<Database>;
  /** Stamps `imdb_rating_updated_at`. Default: the system clock. */
  clock?: Clock;
  /**
   * Called each time another 1% of the source has been read (another MiB when its size is unknown),
   * and once at the end with done = total. Awaited, so it may write the progress somewhere.
   */
  onProgress?: (progress: ImdbImportProgress) => void | Promise<void>;
  /** Stops the import (and the download at once); unless the ratings were being written, nothing changes. */
  signal?: AbortSignal;
}

/** The file could not be opened or read (missing, a directory, no permission). */
export class ImdbRatingsFileError extends Error {
  override name = 'ImdbRatingsFileError';
}

/** Movies written per transaction: short transactions, so other writers (SQLite has one at a time) wait little. */
const BATCH = 500;
const UNKNOWN_SIZE_PROGRESS_STEP = 1024 * 1024;

/**
 * Loads IMDb's ratings dataset into the movies cinelog knows (by `imdb_id`): their
 * `externalRatings.catalog`. The source is read as a stream, gzipped or plain; only the known movies'
 * lines are kept. Once the whole source has been read, the changed ratings are written, 500 movies
 * per transaction; a source that fails on the way (not the dataset, a broken gzip, a dead download)
 * changes nothing. A movie that is not in the dataset keeps the rating it had.
 */
export async function importImdbRatings(
  source: AsyncIterable<Uint8Array>,
  options: ImdbImportOptions & { totalBytes?: number | null },
): Promise<ImdbImportSummary> {
  const { db, clock = systemClock, onProgress, signal } = options;
  const total = options.totalBytes ?? null;
  // Thousands of movies: small enough to hold, and every line is looked up here instead of in the database.
  const known = await moviesByImdbId(db);
  let matched = 0;
  /** The new ratings, by movie: no more entries than known movies, whatever the size of the file. */
  const changed = new Map<number, { movieId: number; average: number; count: number }>();

  let done = 0;
  let reported = 0;
  const step = total === null ? UNKNOWN_SIZE_PROGRESS_STEP : Math.max(1, Math.ceil(total / 100));

  const { lines, skipped } = await readImdbRatings(source, {
    select: (imdbId) => known.has(imdbId),
    onBytes: (bytes) => {
      done += bytes;
    },
    onRatings: async (ratings) => {
      signal?.throwIfAborted();
      for (const rating of ratings) {
        matched++;
        for (const movie of known.get(rating.imdbId)!) {
          if (movie.average === rating.average && movie.count === rating.count) continue;
          movie.average = rating.average;
          movie.count = rating.count;
          changed.set(movie.movieId, {
            movieId: movie.movieId,
            average: rating.average,
            count: rating.count,
          });
        }
      }
      if (onProgress && done - reported >= step) {
        reported = done;
        await onProgress({ done, total });
      }
    },
  });
  signal?.throwIfAborted();

  let lastStamp = Date.parse((await newestImdbRatingChange(db)) ?? '') || 0;
  const all = [...changed.values()];
  for (let i = 0; i < all.length; i += BATCH) {
    // Strictly increasing, whatever the clocks of the instances say: every batch moves the catalog
    // version that cached list pages are keyed by (catalogVersion), even within one millisecond.
    lastStamp = Math.max(clock.now().getTime(), lastStamp + 1);
    const at = isoString(lastStamp);
    await inTransaction(db, (trx) => setImdbRatings(trx, all.slice(i, i + BATCH), at));
  }
  // The last word, unless a report already said done = total.
  if (onProgress && (reported !== done || total === null)) await onProgress({ done, total: total ?? done });
  return { lines, matched, updated: changed.size, skipped };
}

/**
 * `importImdbRatings` of a local `title.ratings.tsv.gz` (or `.tsv`): `cinelog imdb import`, for an
 * install that cannot reach IMDb. Fails with ImdbRatingsFileError when the file cannot be read.
 */
export async function importImdbRatingsFromFile(
  path: string,
  options: ImdbImportOptions,
): Promise<ImdbImportSummary> {
  const size = await stat(path).catch((error: unknown) => {
    throw new ImdbRatingsFileError(`cannot read ${path}: ${fileReason(error)}`);
  });
  if (!size.isFile()) throw new ImdbRatingsFileError(`cannot read ${path}: it is not a file`);
  const file = await open(path).catch((error: unknown) => {
    throw new ImdbRatingsFileError(`cannot read ${path}: ${fileReason(error)}`);
  });
  const stream = file.createReadStream();
  try {
    return await importImdbRatings(stream, { ...options, totalBytes: size.size });
  } catch (error) {
    if (error instanceof ImdbRatingsFormatError)
      throw new ImdbRatingsFormatError(`${path}: ${error.message}`);
    throw error;
  } finally {
    stream.destroy();
    await file.close().catch(() => undefined);
  }
}

/**
 * The daily job's entry point: downloads the dataset from `url` (config.imdbRatingsUrl, IMDb's
 * `https://datasets.imdbws.com/title.ratings.tsv.gz` by default) and streams it straight into
 * `importImdbRatings`; the body is never held whole. `timeoutMs` (default 60 s) bounds the wait for
 * the answer and every silence within its body. Fails with ImdbDownloadError (not 200, a network
 * error, a timeout, aborted) or ImdbRatingsFormatError (the body is not the dataset); either is worth
 * retrying later, and changed nothing.
 */
export async function importImdbRatingsFromUrl(
  url: string,
  options: ImdbImportOptions & { timeoutMs?: number },
): Promise<ImdbImportSummary> {
  const download = await openImdbDownload(url, {
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.signal && { signal: options.signal }),
  });
  try {
    return await importImdbRatings(download.body, { ...options, totalBytes: download.totalBytes });
  } catch (error) {
    if (error instanceof ImdbRatingsFormatError) throw new ImdbRatingsFormatError(`${url}: ${error.message}`);
    throw error;
  } finally {
    // Closes the connection when the import failed before reading the body to its end.
    await download.body.return?.();
  }
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
};

function fileReason(error: unknown): string {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return FILE_ERRORS[code] ?? (code || (error instanceof Error ? error.message : String(error)));
}
