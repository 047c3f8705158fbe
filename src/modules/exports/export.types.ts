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
