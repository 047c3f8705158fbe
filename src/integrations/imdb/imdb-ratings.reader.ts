import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * IMDb's non-commercial dataset `title.ratings.tsv.gz` (https://developer.imdb.com/non-commercial-datasets/),
 * read as a stream: gzipped or plain TSV, a header line, then one title per line,
 * `tt0000001<TAB>5.7<TAB>2105`. Nothing but the current chunk and line is held in memory.
 */

/** One title's rating as the dataset gives it. */
export interface ImdbRating {
  /** `tt` and 7 or more digits. */
  imdbId: string;
  /** 0.0 to 10.0, one decimal in the real file. */
  average: number;
  /** Number of votes. */
  count: number;
}

/** A source that is not a ratings dataset at all (wrong header, not gzip, cut short). */
export class ImdbRatingsFormatError extends Error {
  override name = 'ImdbRatingsFormatError';
}

export const IMDB_RATINGS_HEADER = 'tconst\taverageRating\tnumVotes';

const GZIP_MAGIC = [0x1f, 0x8b] as const;
/** Real lines are under 30 bytes; a longer one is not a rating, and is never held whole. */
const MAX_LINE = 1024;
/** The largest vote count the movies table's `integer` column holds on PostgreSQL. */
const MAX_COUNT = 2_147_483_647;
const RATING_LINE = /^(tt\d{7,})\t(\d{1,2}(?:\.\d{1,3})?)\t(\d{1,10})$/;

export interface ReadImdbRatingsOptions {
  /** Which titles to hand to `onRatings`; every well-formed line is counted either way. Default: all. */
  select?: (imdbId: string) => boolean;
  /**
   * Called after each chunk read, with the chunk's selected ratings (often none). Awaited: reading
   * waits for it, so a slow consumer holds the stream back instead of letting lines pile up.
   */
  onRatings: (ratings: ImdbRating[]) => void | Promise<void>;
  /** Told how many bytes of the source (compressed, as it arrives) were just read. */
  onBytes?: (bytes: number) => void;
}

export interface ImdbRatingsReadSummary {
  /** Lines after the header, the malformed ones included (a trailing empty line is not one). */
  lines: number;
  /** Lines that are not `tt<digits><TAB><0-10><TAB><votes>`: skipped. */
  skipped: number;
}

/**
 * Reads a ratings dataset from `source` (a file or an HTTP body), gunzipping it when it starts with
 * gzip's magic bytes. Fails with ImdbRatingsFormatError when the first line is not IMDb's header, or
 * when the gzip stream is broken; a malformed line is only counted.
 */
export async function readImdbRatings(
  source: AsyncIterable<Uint8Array>,
  options: ReadImdbRatingsOptions,
): Promise<ImdbRatingsReadSummary> {
  const select = options.select ?? (() => true);
  let lines = 0;
  let skipped = 0;
  let header = true;
  /** The start of a line whose end has not arrived yet. */
  let partial = '';
  /** Inside a line longer than MAX_LINE: discarded up to its end. */
  let overlong = false;

  const take = (line: string, selected: ImdbRating[]): void => {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (header) {
      header = false;
      if (line !== IMDB_RATINGS_HEADER) throw notRatings(`its first line is ${quoted(line)}`);
      return;
    }
    lines++;
    const match = RATING_LINE.exec(line);
    const average = match ? Number(match[2]) : Number.NaN;
    const count = match ? Number(match[3]) : Number.NaN;
    if (!match || !(average <= 10) || !(count <= MAX_COUNT)) {
      skipped++;
      return;
    }
    if (select(match[1]!)) selected.push({ imdbId: match[1]!, average, count });
  };

  for await (const chunk of decompressed(source, options.onBytes)) {
    // latin1 maps each byte to one character: a chunk never splits a character, and lines are ASCII.
    const text = chunk.toString('latin1');
    const selected: ImdbRating[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (overlong) overlong = false;
      else take(partial + text.slice(start, end), selected);
      partial = '';
      start = end + 1;
    }
    if (!overlong) partial += text.slice(start);
    if (partial.length > MAX_LINE) {
      if (header) throw notRatings(`its first line is ${quoted(partial)}`);
      lines++;
      skipped++;
      partial = '';
      overlong = true;
    }
    await options.onRatings(selected);
  }
  const last: ImdbRating[] = [];
  if (partial !== '' && !overlong) take(partial, last);
  if (header) throw notRatings('it is empty');
  await options.onRatings(last);
  return { lines, skipped };
}

const notRatings = (why: string) =>
  new ImdbRatingsFormatError(
    `not an IMDb title.ratings.tsv(.gz) file: ${why}, expected "tconst<TAB>averageRating<TAB>numVotes"`,
  );

/** At most 60 characters of a line, tabs shown as <TAB> and other control characters as "?". */
function quoted(line: string): string {
  const shown = line
    .slice(0, 60)
    .replace(/\t/g, '<TAB>')
    .replace(/[^\x20-\x7e]/g, '?');
  return `"${shown}${line.length > 60 ? '...' : ''}"`;
}

/** The source's bytes, gunzipped when it is gzip; `onBytes` counts the source's own bytes. */
async function* decompressed(
  source: AsyncIterable<Uint8Array>,
  onBytes: ((bytes: number) => void) | undefined,
): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  // The magic bytes may arrive in pieces of their own.
  const start: Uint8Array[] = [];
  let startLength = 0;
  let ended = false;
  while (startLength < GZIP_MAGIC.length) {
    const next = await iterator.next();
    ended = next.done === true;
    if (ended) break;
    start.push(next.value);
    startLength += next.value.length;
  }
  const head = Buffer.concat(start);
  async function* counted(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) {
        onBytes?.(head.length);
        yield head;
      }
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        onBytes?.(next.value.length);
        yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
      }
    } finally {
      // Stopped early (a refused header, a failed write): let the source close its file or connection.
      await iterator.return?.();
    }
  }
  if (head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
    yield* counted();
    return;
  }
  const gunzip = createGunzip();
  // pipeline destroys both streams on any error, so the loop below ends with it.
  const output = pipeline(Readable.from(counted()), gunzip, () => undefined);
  try {
    for await (const chunk of output) yield chunk as Buffer;
  } catch (error) {
    if (isZlibError(error)) {
      throw new ImdbRatingsFormatError(`not a readable gzip file: ${(error as Error).message}`);
    }
    throw error;
  } finally {
    output.destroy();
    // Closed here too, not only when the destroyed pipeline gets to it: a caller that stops reading
    // finds the file or connection closed once its loop has ended.
    await iterator.return?.();
  }
}

const isZlibError = (error: unknown) =>
  typeof error === 'object' && error !== null && /^Z_/.test(String((error as { code?: unknown }).code ?? ''));
