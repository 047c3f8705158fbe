import { isValidTimeZone } from '../../config.js';
import type { Library, StoredMovieState } from '../library/library.service.js';
import { MAX_COMMENT_LENGTH } from '../library/library.service.js';
import type { MoviesService } from '../movies/movies.service.js';
import { RATING_SCALES, type User, type UsersService } from '../users/users.service.js';
import { parseCinelog } from './cinelog.import.js';
import { parseImdb } from './imdb.import.js';
import {
  type ImportedSettings,
  ImportFileError,
  type ImportFormat,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
} from './import.types.js';
import { type ImportFile, readImportFiles } from './import-files.js';
import { parseLetterboxd } from './letterboxd.import.js';
import { parseMovary } from './movary.import.js';
import { createMovieMatcher, type MovieMatch } from './movie-matcher.js';
import { parseTrakt } from './trakt.import.js';

const PARSERS: Record<ImportFormat, (files: readonly ImportFile[], context: ParseContext) => ParsedImport> = {
  movary: parseMovary,
  letterboxd: parseLetterboxd,
  trakt: parseTrakt,
  imdb: parseImdb,
  cinelog: (files) => parseCinelog(files),
};

/** Rows' movies looked up at once; more than the matcher's TMDB cap, so TMDB calls stay busy. */
const MATCHING_WORKERS = 16;

/** Added, already there, unmatched: plays count one each, watchlist entries and ratings one each. */
export interface ImportCounts {
  added: number;
  existing: number;
  unmatched: number;
}

export interface UnmatchedRow {
  file: string;
  line: number;
  kind: ImportRow['kind'];
  title: string | null;
  year: number | null;
  /** The ids the row gave, e.g. `tmdb 123, imdb tt0001`. */
  ids: string;
  /** A play's day (`YYYY-MM-DD`, null: an unknown date), so it can be logged by hand. */
  watchedAt?: string | null;
  /** A rating row's rating (1–10). */
  rating?: number;
}

export interface ImportSummary extends ImportCounts {
  dryRun: boolean;
  plays: { added: number; existing: number };
  watchlist: { added: number; existing: number };
  ratings: { added: number; existing: number };
  unmatchedRows: UnmatchedRow[];
  /** The cinelog format's profile settings were applied (not in a dry run). */
  settingsApplied: boolean;
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Movies looked up so far, of how many. */
  onProgress?: (done: number, total: number) => void;
}

export interface ImportsService {
  /** Imports the file, directory or .zip at `path` into the user's library (or only plans it: dry run). */
  importPath(format: ImportFormat, user: User, path: string, options?: ImportOptions): Promise<ImportSummary>;
  importFiles(
    format: ImportFormat,
    user: User,
    files: readonly ImportFile[],
    options?: ImportOptions,
  ): Promise<ImportSummary>;
  /** Reads the files as `format` without looking anything up: throws ImportFileError for a bad file; the rows. */
  check(format: ImportFormat, user: User, files: readonly ImportFile[]): number;
}

/** A write that must not stay: a dry run, or a plan with nothing to add. */
class Discard<T> {
  constructor(readonly value: T) {}
}

/**
 * Imports: parse the files into rows (a bad file fails here, before anything is looked up), find each
 * row's movie, then compare with the library and write what is missing, all in ONE library write. Run
 * again, the same file adds nothing: a date with N plays in the file and M stored gets max(N - M, 0)
 * more; a watchlist entry or a rating that is there already is left alone.
 */
export function createImportsService(deps: {
  library: Library;
  movies: MoviesService;
  users: UsersService;
}): ImportsService {
  const { library, movies, users } = deps;

  const service: ImportsService = {
    async importPath(format, user, path, options) {
      return service.importFiles(format, user, await readImportFiles(path), options);
    },

    check(format, user, files) {
      const parsed = PARSERS[format](files, { timezone: user.timezone });
      checkedSettings(parsed.settings);
      return parsed.rows.length;
    },

    async importFiles(format, user, files, options = {}) {
      const dryRun = options.dryRun === true;
      const parsed = PARSERS[format](files, { timezone: user.timezone });
      const settings = checkedSettings(parsed.settings);

      const matcher = createMovieMatcher({ movies, userId: user.id, store: !dryRun });
      const refs = new Map<string, MovieRef>();
      for (const row of parsed.rows) refs.set(refKey(row.movie), row.movie);
      let done = 0;
      options.onProgress?.(0, refs.size);
      const matches = new Map<string, MovieMatch | null>();
      // A few lookups at a time (the matcher caps TMDB calls itself): a large file never floods the
      // database pool that the server's requests share.
      // After a failure (TMDB down), no worker takes another row, and the import fails only once every
      // lookup under way has ended: nothing reaches TMDB or the catalogue after the import has failed.
      const pending = [...refs];
      let taken = 0;
      let failed = false;
      const worker = async () => {
        while (!failed && taken < pending.length) {
          const [key, ref] = pending[taken++]!;
          try {
            matches.set(key, await matcher.match(ref));
          } catch (error) {
            failed = true;
            throw error;
          }
          options.onProgress?.(++done, refs.size);
        }
      };
      const settled = await Promise.allSettled(Array.from({ length: MATCHING_WORKERS }, worker));
      const failure = settled.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
      const matchOf = (row: ImportRow) => matches.get(refKey(row.movie)) ?? null;
      const storedIds = [...matches.values()].flatMap((m) => (m && 'movieId' in m ? [m.movieId] : []));

      const owner = { id: user.id, watchlistAutoRemove: user.watchlistAutoRemove };
      const run = library.write(owner, async (writer) => {
        const plan = planImport(
          parsed.rows,
          matchOf,
          await writer.storedState(storedIds),
          format === 'cinelog',
        );
        if (dryRun || plan.writes.empty) throw new Discard(plan);
        for (const play of plan.writes.plays) await writer.addPlays([play]);
        if (plan.writes.watchlist.length > 0) {
          await writer.addToWatchlistAt(
            plan.writes.watchlist.map((w) => ({ movieId: w.movieId, addedAt: w.addedAt ?? writer.now })),
          );
        }
        if (plan.writes.ratings.length > 0) await writer.setRatings(plan.writes.ratings);
        return plan;
      });
      const plan = await run.catch((error: unknown) => {
        if (error instanceof Discard) return error.value as Plan;
        throw error;
      });
      let settingsApplied = false;
      if (!dryRun && settings) {
        await users.update(user.name, settings);
        settingsApplied = true;
      }
      return { ...plan.summary, dryRun, settingsApplied };
    },
  };
  return service;
}

const refKey = (ref: MovieRef) =>
  JSON.stringify([ref.tmdbId, ref.imdbId, ref.traktId, ref.letterboxdId, ref.title, ref.year]);

function checkedSettings(settings: ImportedSettings | undefined): ImportedSettings | undefined {
  if (!settings) return undefined;
  if (settings.timezone !== undefined && !isValidTimeZone(settings.timezone)) {
    throw new ImportFileError(`the export's time zone "${settings.timezone}" is unknown`);
  }
  if (settings.privacy !== undefined && !['private', 'users'].includes(settings.privacy)) {
    throw new ImportFileError(`the export's privacy "${settings.privacy}" is unknown`);
  }
  if (
    settings.ratingScale !== undefined &&
    !(RATING_SCALES as readonly string[]).includes(settings.ratingScale)
  ) {
    throw new ImportFileError(`the export's rating scale "${settings.ratingScale}" is unknown`);
  }
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  return Object.keys(defined).length > 0 ? defined : undefined;
}

interface PlannedPlay {
  movieId: number;
  watchedAt: string | null;
  plays: number;
  comment: string | null;
  position?: number | 'after-last';
}

type Plan = ReturnType<typeof planImport>;

/**
 * What an import adds, given what the user keeps already (`stored`, by service id). A movie matched at
 * TMDB but not stored yet (dry run) has nothing stored: all of its rows would be added.
 */
export function planImport(
  rows: readonly ImportRow[],
  matchOf: (row: ImportRow) => MovieMatch | null,
  stored: ReadonlyMap<number, StoredMovieState>,
  keepPositions: boolean,
) {
  const counts = {
    plays: { added: 0, existing: 0 },
    watchlist: { added: 0, existing: 0 },
    ratings: { added: 0, existing: 0 },
  };
  const unmatchedRows: UnmatchedRow[] = [];
  const keyOf = (match: MovieMatch) => ('movieId' in match ? `m${match.movieId}` : `t${match.tmdbId}`);
  const stateOf = (match: MovieMatch) => ('movieId' in match ? stored.get(match.movieId) : undefined);

  // The file's plays per (movie, date), in the order first seen.
  const entries = new Map<
    string,
    {
      match: MovieMatch;
      watchedAt: string | null;
      plays: number;
      comments: string[];
      position: number | undefined;
      order: number;
    }
  >();
  const watched = new Map<string, MovieMatch>();
  const watchlist = new Map<string, { match: MovieMatch; addedAt: string | undefined }>();
  const ratings = new Map<string, { match: MovieMatch; rating: number; ratedAt: string | undefined }>();
  const playedInFile = new Set<string>();

  for (const row of rows) {
    const match = matchOf(row);
    if (!match) {
      unmatchedRows.push({
        file: row.file,
        line: row.line,
        kind: row.kind,
        title: row.movie.title ?? null,
        year: row.movie.year ?? null,
        ids: describeIds(row.movie),
        ...(row.kind === 'play' && { watchedAt: row.watchedAt }),
        ...(row.kind === 'rating' && { rating: row.rating }),
      });
      continue;
    }
    const movieKey = keyOf(match);
    if (row.kind === 'play') {
      playedInFile.add(movieKey);
      const key = `${movieKey}|${row.watchedAt ?? ''}`;
      let entry = entries.get(key);
      if (!entry) {
        entry = {
          match,
          watchedAt: row.watchedAt,
          plays: 0,
          comments: [],
          position: row.position,
          order: entries.size,
        };
        entries.set(key, entry);
      }
      entry.plays += row.plays;
      if (row.comment && !entry.comments.includes(row.comment)) entry.comments.push(row.comment);
    } else if (row.kind === 'watched') {
      watched.set(movieKey, match);
    } else if (row.kind === 'watchlist') {
      if (!watchlist.has(movieKey)) watchlist.set(movieKey, { match, addedAt: row.addedAt });
    } else {
      // A later row rates the movie again: the last one holds.
      ratings.delete(movieKey);
      ratings.set(movieKey, { match, rating: row.rating, ratedAt: row.ratedAt });
    }
  }

  const plays: PlannedPlay[] = [];
  const newEntries: (PlannedPlay & { order: number })[] = [];
  for (const entry of entries.values()) {
    const current = stateOf(entry.match)?.entries.get(entry.watchedAt);
    const have = current?.plays ?? 0;
    const add = Math.max(entry.plays - have, 0);
    counts.plays.added += add;
    counts.plays.existing += Math.min(entry.plays, have);
    const comment = entry.comments.length > 0 ? clip(entry.comments.join('\n\n')) : null;
    // A comment from the file fills an entry without one; an entry's own comment stays.
    const fillComment = comment !== null && (current === undefined || current.comment === null);
    if (add === 0 && !fillComment) continue;
    const movieId = 'movieId' in entry.match ? entry.match.movieId : -1;
    const write: PlannedPlay = {
      movieId,
      watchedAt: entry.watchedAt,
      plays: add,
      comment: fillComment ? comment : null,
    };
    if (current) plays.push(write);
    else {
      const position =
        keepPositions && entry.position !== undefined
          ? entry.position
          : entry.watchedAt === null
            ? undefined
            : 'after-last';
      newEntries.push({ ...write, ...(position !== undefined && { position }), order: entry.order });
    }
  }
  // New entries by date, each date's in the file's order: after-last keeps that order on the day.
  if (!keepPositions)
    newEntries.sort((a, b) => String(a.watchedAt).localeCompare(String(b.watchedAt)) || a.order - b.order);
  plays.push(...newEntries.map(({ order: _order, ...play }) => play));

  for (const [movieKey, match] of watched) {
    const state = stateOf(match);
    if (playedInFile.has(movieKey) || (state && state.entries.size > 0)) {
      counts.plays.existing += 1;
    } else {
      counts.plays.added += 1;
      plays.push({
        movieId: 'movieId' in match ? match.movieId : -1,
        watchedAt: null,
        plays: 1,
        comment: null,
      });
    }
  }

  const watchlistWrites: { movieId: number; addedAt: string | undefined }[] = [];
  for (const { match, addedAt } of watchlist.values()) {
    if (stateOf(match)?.onWatchlist) counts.watchlist.existing += 1;
    else {
      counts.watchlist.added += 1;
      watchlistWrites.push({ movieId: 'movieId' in match ? match.movieId : -1, addedAt });
    }
  }
  const ratingWrites: { movieId: number; rating: number; ratedAt: string | undefined }[] = [];
  for (const { match, rating, ratedAt } of ratings.values()) {
    if (stateOf(match)?.rating === rating) counts.ratings.existing += 1;
    else {
      counts.ratings.added += 1;
      ratingWrites.push({ movieId: 'movieId' in match ? match.movieId : -1, rating, ratedAt });
    }
  }

  const added = counts.plays.added + counts.watchlist.added + counts.ratings.added;
  const existing = counts.plays.existing + counts.watchlist.existing + counts.ratings.existing;
  return {
    summary: { added, existing, unmatched: unmatchedRows.length, ...counts, unmatchedRows },
    writes: {
      empty: plays.length === 0 && watchlistWrites.length === 0 && ratingWrites.length === 0,
      plays,
      watchlist: watchlistWrites,
      ratings: ratingWrites,
    },
  };
}

const clip = (comment: string) =>
  comment.length <= MAX_COMMENT_LENGTH ? comment : `${comment.slice(0, MAX_COMMENT_LENGTH - 1)}…`;

function describeIds(ref: MovieRef): string {
  const ids = [
    ref.tmdbId !== undefined && `tmdb ${ref.tmdbId}`,
    ref.imdbId !== undefined && `imdb ${ref.imdbId}`,
    ref.traktId !== undefined && `trakt ${ref.traktId}`,
    ref.letterboxdId !== undefined && `letterboxd ${ref.letterboxdId}`,
  ].filter(Boolean);
  return ids.join(', ');
}
