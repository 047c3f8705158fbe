import type { RecordMovie } from '../library/library.service.js';

/** The export formats (`cinelog export --format`). */
export const EXPORT_FORMATS = ['json', 'movary', 'letterboxd'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One file of an export, written piece by piece: never held whole in memory. */
export interface ExportFile {
  name: string;
  chunks: AsyncIterable<string>;
}

/** The release year of a movie, or null. */
export const yearOf = (movie: RecordMovie) =>
  movie.releaseDate ? Number(movie.releaseDate.slice(0, 4)) : null;

/** Lines in one chunk at most when a line repeats (a play count of up to 1,000,000 is one line each). */
const REPEAT_BATCH = 4096;

/**
 * `line` `count` times, in chunks of up to REPEAT_BATCH lines: a movie played a million times on one
 * day is a million lines in the formats that have a line per play, produced in a few hundred chunks
 * rather than a million (a line at a time, a 1,000,000-play entry took two minutes to zip).
 */
export function* repeated(line: string, count: number): Generator<string> {
  for (let left = count; left > 0; left -= REPEAT_BATCH) yield line.repeat(Math.min(left, REPEAT_BATCH));
}
