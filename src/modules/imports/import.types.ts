import { ValidationError } from '../../shared/errors.js';
import type { ListVisibility } from '../library/library.rules.js';

/**
 * One file of an import: a file given alone, one of a directory, or one inside a .zip. Never held in
 * memory whole: `open()` streams its bytes (from disk, or inflated from the zip) each time it is
 * called, so a parser may look at a file's first line and then read it through.
 */
export interface ImportFile {
  /** Its path in the export, with `/`: `diary.csv`, `deleted/diary.csv`, `export/lists/films.csv`. */
  name: string;
  /** Its size in bytes (a zip entry's as its directory declares it; reading checks it). */
  size: number;
  open(): AsyncIterable<Uint8Array>;
}

/** The import formats (`cinelog import <format>`). */
export const IMPORT_FORMATS = [
  'movary',
  'letterboxd',
  'trakt',
  'imdb',
  'tvtime',
  'netflix',
  'cinelog',
] as const;
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
  /**
   * The file names movies by title alone, never with a year (Netflix): the best exact title TMDB
   * offers is taken, as a guess listed for review, where otherwise only a single exact title would do.
   */
  titleOnly?: true | undefined;
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
        /** The entry's own rating (1-10), apart from the movie's; absent: not said. */
        entryRating?: number | undefined;
        /** The entry's rewatch flag as the file says it; absent: not said (derived). */
        rewatch?: boolean | undefined;
        /** The entry's tags. */
        tags?: string[] | undefined;
        /**
         * `plays` are the movie's plays in all, on every date (a media server's count), `watchedAt`
         * null: what the library lacks of that many, after this import's dated plays, is added on no
         * known date. So a count that grew by a play dated in its own row adds that play alone.
         */
        inAll?: true | undefined;
      }
    | { kind: 'watched'; movie: MovieRef }
    | { kind: 'like'; movie: MovieRef; likedAt?: string | undefined }
    | {
        kind: 'list-movie';
        movie: MovieRef;
        /** The list, the same for each of its movies: found (or created) by its name. */
        list: ImportedList;
        /** The movie's note on the list. */
        note: string | null;
        /** When it was put on the list (the cinelog format's); absent: at the import. */
        addedAt?: string | undefined;
      }
    | { kind: 'rating'; movie: MovieRef; rating: number; ratedAt?: string | undefined }
    | { kind: 'watchlist'; movie: MovieRef; addedAt?: string | undefined }
  );

/** A list a file holds (its movies are `list-movie` rows, in the list's order). */
export interface ImportedList {
  /** Where it comes from (one list a file): tells two lists of one name apart. */
  file: string;
  name: string;
  description: string | null;
  ranked: boolean;
  /** Who may read it (the cinelog format's); absent: private. */
  visibility?: ListVisibility | undefined;
}

/** A row that cannot be read (a bad id, date or rating): listed with why, the rest of its file imports. */
export interface UnreadableRow extends RowSource {
  title: string | null;
  year: number | null;
  reason: string;
}

/** Something a file holds that cinelog does not keep (lists, likes, episodes...), counted. */
export interface SkippedCount {
  what: string;
  count: number;
}

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
  /** Every list the files hold, in the files' order (their movies are among the rows). */
  lists: ImportedList[];
  unreadable: UnreadableRow[];
  skipped: SkippedCount[];
  settings?: ImportedSettings | undefined;
}

/** What a parser needs of the importing user. */
export interface ParseContext {
  /** IANA zone: instants in a file (Trakt's `watched_at`) become dates of this zone. */
  timezone: string;
  /** Today in that zone, `YYYY-MM-DD`: a play after it cannot be. */
  today: string;
}

/** Where a parser puts what it reads. */
export interface ImportOutput {
  /** A row the file says. Past the import's row limit, the whole import is refused. */
  row(row: ImportRow): void;

  /** A row that cannot be read: listed as unmatched with `reason`; the rest of the file imports. */
  unreadable(
    at: RowSource,
    reason: string,
    movie?: { title?: string | undefined; year?: number | undefined },
  ): void;
  /** Rows of something cinelog does not keep (yet): counted under `what`, said in the summary. */
  skip(what: string, count?: number): void;
  /**
   * A list the file holds, said once whether or not it has movies: a list without movies (or none
   * that can be matched) is made all the same. Its movies come as `list-movie` rows.
   */
  list(list: ImportedList): void;
  /** The profile settings the export carries (cinelog's own). */
  settings(settings: ImportedSettings): void;
}

/**
 * A format's reader: the rows of its files. A file it cannot read as it is (a wrong header, a broken
 * CSV or JSON, a wrong encoding) is an ImportFileError, and the whole import is refused.
 */
export type ImportParser = (
  files: readonly ImportFile[],
  context: ParseContext,
  out: ImportOutput,
) => Promise<void>;

/** The file cannot be imported as it is (wrong format, columns, encoding, size): nothing was changed. */
export class ImportFileError extends ValidationError {
  override name = 'ImportFileError';
}

/**
 * One row cannot be read (a parser reports it with `out.unreadable` and goes on). Not an Error: a file
 * may have hundreds of thousands of such rows, and an Error records a stack trace each time (a third
 * of the time of reading such a file).
 */
export class RowError {
  readonly name = 'RowError';
  constructor(readonly message: string) {}
}

/** An import uploaded through the API or the web app, run in the background (docs/imports-exports.md). */
export const IMPORT_JOB = 'library.import';

/** What an import job is given: the upload waits in `dir`. */
export interface ImportJobPayload {
  userId: number;
  userName: string;
  format: ImportFormat;
  /** The upload's own folder under IMPORTS_DIR; deleted once imported, or failed for good. */
  dir: string;
  dryRun: boolean;
}
