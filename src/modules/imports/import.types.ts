import { ValidationError } from '../../shared/errors.js';

/** The import formats (`cinelog import <format>`). */
export const IMPORT_FORMATS = ['movary', 'letterboxd', 'trakt', 'imdb', 'cinelog'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** What a row says about its movie; the matcher tries the ids first, then title and year. */
export interface MovieRef {
  tmdbId?: number | undefined;
  imdbId?: string | undefined;
  traktId?: number | undefined;
  /** The film's slug on Letterboxd (`ids.journal`). */
  letterboxdId?: string | undefined;
  title?: string | undefined;
  year?: number | undefined;
}

/** Where a row comes from, for the list of unmatched rows: `diary.csv`, line 12. */
export interface RowSource {
  file: string;
  line: number;
}

/**
 * One thing a file says the user did. `plays` on a date: that many plays (several rows of one movie
 * and date add up). `watched`: the movie was seen on no known date (a play without a date, only when
 * the user has no play of it at all).
 */
export type ImportRow = RowSource &
  (
    | {
        kind: 'play';
        movie: MovieRef;
        /** `YYYY-MM-DD` in the user's time zone, or null: a play on an unknown date. */
        watchedAt: string | null;
        plays: number;
        comment: string | null;
        /** Only the cinelog format knows positions; other plays go after the day's movies. */
        position?: number | undefined;
      }
    | { kind: 'watched'; movie: MovieRef }
    | { kind: 'rating'; movie: MovieRef; rating: number; ratedAt?: string | undefined }
    | { kind: 'watchlist'; movie: MovieRef; addedAt?: string | undefined }
  );

/** The profile settings a cinelog export carries. */
export interface ImportedSettings {
  timezone?: string | undefined;
  privacy?: string | undefined;
  watchlistAutoRemove?: boolean | undefined;
  ratingScale?: string | undefined;
  publicProfile?: boolean | undefined;
}

export interface ParsedImport {
  rows: ImportRow[];
  settings?: ImportedSettings | undefined;
}

/** What a parser needs of the importing user. */
export interface ParseContext {
  /** IANA zone: instants in a file (Trakt's `watched_at`) become dates of this zone. */
  timezone: string;
}

/** The file cannot be imported as it is (wrong format, columns, encoding, size): nothing was changed. */
export class ImportFileError extends ValidationError {
  override name = 'ImportFileError';
}
