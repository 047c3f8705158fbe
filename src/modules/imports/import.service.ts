import { isValidTimeZone } from '../../config.js';
import type { Clock } from '../../shared/clock.js';
import { calendarDateIn } from '../../shared/dates.js';
import { createLimiter } from '../../shared/limiter.js';
import { inTurns, nextTurn } from '../../shared/turns.js';
import {
  type ListVisibility,
  MAX_COMMENT_LENGTH,
  MAX_LIST_MOVIES,
  MAX_TAGS_PER_ENTRY,
  tagKey,
} from '../library/library.rules.js';
import type { ExternalSource, Library, StoredMovieState } from '../library/library.service.js';
import type { MoviesService } from '../movies/movies.service.js';
import { RATING_SCALES, type User, type UsersService } from '../users/users.service.js';
import {
  type ImportedList,
  type ImportedSettings,
  ImportFileError,
  type ImportFormat,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
  type SkippedCount,
} from './import.types.js';
import { parseImport } from './import-parse.js';
import { createMovieMatcher, type MatchGuess, type MovieMatch, refKey } from './movie-matcher.js';

/** Rows' movies looked up at once; more than the matcher's TMDB cap, so TMDB calls stay busy. */
const MATCHING_WORKERS = 16;

/**
 * Added, already there, unmatched: plays count one each, watchlist entries, ratings, likes and lists
 * one each (a list with its movies is one).
 */
export interface ImportCounts {
  added: number;
  existing: number;
  unmatched: number;
}

export interface UnmatchedRow {
  file: string;
  line: number;
  kind: ImportRow['kind'] | 'unreadable';
  title: string | null;
  year: number | null;
  /** The ids the row gave, e.g. `tmdb 123, imdb tt0001`. */
  ids: string;
  /** Why it was left out: no movie matches it, or why the row cannot be read. */
  reason: string;
  /** A play's day (`YYYY-MM-DD`, null: an unknown date), so it can be logged by hand. */
  watchedAt?: string | null;
  /** A rating row's rating (1–10). */
  rating?: number;
}

/** A row matched by a guess (a year off by one, a title alone): imported, and listed for review. */
export interface GuessedRow {
  file: string;
  line: number;
  kind: ImportRow['kind'];
  /** As the file names it. */
  title: string | null;
  year: number | null;
  why: MatchGuess['why'];
  /** The movie it was matched to. */
  movie: { title: string; year: number | null; serviceId: number | null; tmdbId: number | null };
}

export interface ImportSummary extends ImportCounts {
  dryRun: boolean;
  plays: { added: number; existing: number };
  watchlist: { added: number; existing: number };
  ratings: { added: number; existing: number };
  // The next three are absent from the summaries of versions before them (kept in import jobs).
  /** Diary entries given their own rating, rewatch flag or tags from the file (added), or that had them. */
  diary?: { added: number; existing: number };
  likes?: { added: number; existing: number };
  /** Lists created, and lists left alone as the user has a list of that name already. */
  lists?: { added: number; existing: number };
  /** The first ROWS_LISTED unmatched rows (file and line order), those that cannot be read among them. */
  unmatchedRows: UnmatchedRow[];
  /** What the files hold that cinelog does not keep (yet): lists, likes, episodes... counted. */
  skipped: SkippedCount[];
  /** How many rows were matched by a guess, and which (file and line order). */
  guessed: number;
  guesses: GuessedRow[];
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
  /**
   * Imports rows built elsewhere (a media server's backfill) exactly as a file's: matched, planned
   * against the library (a second run adds nothing), and written at once, or only planned (dry run).
   */
  importRows(user: User, parsed: ParsedImport, options?: ImportOptions): Promise<ImportSummary>;
  /**
   * Reads the export at `path` as `format` without looking anything up (an upload's check): throws
   * ImportFileError for a file that cannot be imported as it is; the rows it holds.
   */
  check(format: ImportFormat, user: User, path: string): Promise<number>;
}

/** A write that must not stay: a dry run, or a plan with nothing to add. */
class Discard<T> {
  constructor(readonly value: T) {}
}

/**
 * Imports: parse the files into rows (in a worker thread; a bad file fails here, before anything is
 * looked up), find each row's movie, then compare with the library and write what is missing, all in
 * ONE library write. Run again, the same file adds nothing: a date with N plays in the file and M
 * stored gets max(N - M, 0) more; a watchlist entry or a rating that is there already is left alone.
 * One import runs at a time in a process (its rows and lookups are its memory).
 */
export function createImportsService(deps: {
  library: Library;
  movies: MoviesService;
  users: UsersService;
  clock: Clock;
}): ImportsService {
  const { library, movies, users, clock } = deps;
  const oneAtATime = createLimiter(1);
  const contextOf = (user: User): ParseContext => ({
    timezone: user.timezone,
    today: calendarDateIn(clock.now(), user.timezone),
  });

  const importPath = async (
    format: ImportFormat,
    user: User,
    path: string,
    options: ImportOptions,
  ): Promise<ImportSummary> => {
    const parsed = await parseImport({ format, path, context: contextOf(user), rowsWanted: true });
    return importParsed(user, parsed, options, format === 'cinelog');
  };

  /** From the rows on: match, plan against the library, one write (or none: dry run). */
  const importParsed = async (
    user: User,
    parsed: ParsedImport & { unreadableCount?: number },
    options: ImportOptions,
    keepPositions: boolean,
  ): Promise<ImportSummary> => {
    const dryRun = options.dryRun === true;
    const settings = checkedSettings(parsed.settings);

    const matcher = createMovieMatcher({
      movies,
      userId: user.id,
      store: !dryRun,
      ownId: (source, externalId) => library.movieOfExternalId(user, source, externalId),
    });
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

    const run = library.write(user.id, async (writer) => {
      const stored = await writer.storedState(storedIds);
      const listNames = new Set((await writer.ownLists()).map((list) => list.name));
      const plan = await planImport(parsed.rows, matchOf, stored, keepPositions, listNames, parsed.lists);
      const ownIds = dryRun ? [] : newOwnIds(parsed.rows, matchOf, stored);
      if (dryRun || (plan.writes.empty && ownIds.length === 0)) throw new Discard(plan);
      // One entry at a time, in the plan's order (a day's new entries go after its others, in the
      // file's order); in turns, so that the server's other requests go on meanwhile.
      await inTurns(plan.writes.plays, (play) => writer.addPlays([play]));
      // The entries' own rating, rewatch flag and tags, once every entry is there.
      await inTurns(plan.writes.entries, (entry) => writer.describeEntries([entry]));
      await inTurns(plan.writes.watchlist, (w) =>
        writer.addToWatchlistAt([{ movieId: w.movieId, addedAt: w.addedAt ?? writer.now }]),
      );
      await inTurns(plan.writes.ratings, (rating) => writer.setRatings([rating]));
      await writer.likeMoviesAt(
        plan.writes.likes.map((like) => ({ movieId: like.movieId, likedAt: like.likedAt ?? writer.now })),
      );
      for (const list of plan.writes.lists) {
        const { id } = await writer.createList(list.values);
        if (list.movies.length > 0) await writer.putListMovies(id, list.movies);
      }
      await writer.keepExternalIds(ownIds);
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
    // The rows that cannot be read and those no movie matches, the first of each in file order.
    const unmatchedRows = [
      ...plan.summary.unmatchedRows,
      ...parsed.unreadable.map(
        (row): UnmatchedRow => ({
          ...row,
          kind: 'unreadable',
          ids: '',
          reason: `cannot be read: ${row.reason}`,
        }),
      ),
    ]
      .sort(byFileAndLine)
      .slice(0, ROWS_LISTED);
    return {
      ...plan.summary,
      unmatched: plan.summary.unmatched + (parsed.unreadableCount ?? parsed.unreadable.length),
      unmatchedRows,
      skipped: parsed.skipped,
      dryRun,
      settingsApplied,
    };
  };

  return {
    importPath: (format, user, path, options = {}) =>
      oneAtATime(() => importPath(format, user, path, options)),

    importRows: (user, parsed, options = {}) => oneAtATime(() => importParsed(user, parsed, options, false)),

    async check(format, user, path) {
      const parsed = await parseImport({ format, path, context: contextOf(user), rowsWanted: false });
      checkedSettings(parsed.settings);
      return parsed.rowCount + parsed.unreadableCount;
    },
  };
}

/** Code-unit order (a locale's collation costs a microsecond a comparison, and rows are many). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byFileAndLine = (a: { file: string; line: number }, b: { file: string; line: number }) =>
  compare(a.file, b.file) || a.line - b.line;

/**
 * The Trakt ids and Letterboxd slugs the rows give movies they were found by an id or by their exact
 * title and year (never by a guess, nor by such an id itself), that the user's movies do not have yet.
 */
function newOwnIds(
  rows: readonly ImportRow[],
  matchOf: (row: ImportRow) => MovieMatch | null,
  stored: ReadonlyMap<number, StoredMovieState>,
) {
  const found = new Map<string, { source: ExternalSource; externalId: string; movieId: number }>();
  for (const row of rows) {
    const match = matchOf(row);
    if (!match || !('movieId' in match) || (match.by !== 'id' && match.by !== 'title')) continue;
    const own = stored.get(match.movieId)?.ownIds;
    for (const [source, id] of [
      ['trakt', row.movie.traktId],
      ['letterboxd', row.movie.letterboxdId],
    ] as const) {
      if (id === undefined || own?.[source] !== undefined) continue;
      const key = `${source}:${id}`;
      if (!found.has(key)) found.set(key, { source, externalId: String(id), movieId: match.movieId });
    }
  }
  return [...found.values()];
}

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

type Plan = Awaited<ReturnType<typeof planImport>>;

/** Rows listed by name in a summary (unmatched, guessed); the counts cover all of them. */
export const ROWS_LISTED = 500;

/** Rows planned in one turn of the event loop (a few milliseconds of work). */
const ROWS_PER_TURN = 20_000;

interface PlannedEntry {
  match: MovieMatch;
  watchedAt: string | null;
  plays: number;
  comments: string[];
  position: number | undefined;
  /** The entry's own rating (the last row's that gives one), rewatch flag (any row's yes) and tags. */
  rating: number | undefined;
  rewatch: boolean | undefined;
  tags: Map<string, string>;
}

/** What an import gives a diary entry of its own (`LibraryWriter.describeEntries`). */
interface PlannedDescription {
  movieId: number;
  watchedAt: string | null;
  rating?: number;
  rewatch?: boolean;
  tags?: string[];
}

interface PlannedList {
  values: { name: string; description: string | null; ranked: boolean; visibility: ListVisibility };
  movies: { movieId: number; note: string | null; addedAt?: string | undefined }[];
}

/**
 * What an import adds, given what the user keeps already (`stored`, by service id). A movie matched at
 * TMDB but not stored yet (dry run) has nothing stored: all of its rows would be added. Runs in turns
 * of the event loop: half a million rows never hold the server's other requests.
 */
export async function planImport(
  rows: readonly ImportRow[],
  matchOf: (row: ImportRow) => MovieMatch | null,
  stored: ReadonlyMap<number, StoredMovieState>,
  keepPositions: boolean,
  /** The names of the user's lists: a list of the file by one of them is left alone. */
  listNames: ReadonlySet<string> = new Set(),
  /** Every list the file holds (ParsedImport.lists): those without a movie that matches are made too. */
  fileLists: readonly ImportedList[] = [],
) {
  const counts = {
    plays: { added: 0, existing: 0 },
    watchlist: { added: 0, existing: 0 },
    ratings: { added: 0, existing: 0 },
    diary: { added: 0, existing: 0 },
    likes: { added: 0, existing: 0 },
    lists: { added: 0, existing: 0 },
  };
  const unmatchedRows: UnmatchedRow[] = [];
  let unmatched = 0;
  const guesses: GuessedRow[] = [];
  let guessed = 0;
  // One key per movie: matches are shared by the rows of a movie, so each is keyed once.
  const keys = new Map<MovieMatch, string>();
  const keyOf = (match: MovieMatch) => {
    let key = keys.get(match);
    if (key === undefined) {
      key = 'movieId' in match ? `m${match.movieId}` : `t${match.tmdbId}`;
      keys.set(match, key);
    }
    return key;
  };
  const stateOf = (match: MovieMatch) => ('movieId' in match ? stored.get(match.movieId) : undefined);

  // The file's plays per movie and date; and all of them in the order first seen (the file's).
  const entries = new Map<string, Map<string | null, PlannedEntry>>();
  const inFileOrder: PlannedEntry[] = [];
  const watched = new Map<string, MovieMatch>();
  // A movie's plays in all (rows `inAll`): the largest count said.
  const inAll = new Map<string, CountInAll>();
  const watchlist = new Map<string, { match: MovieMatch; addedAt: string | undefined }>();
  const ratings = new Map<string, { match: MovieMatch; rating: number; ratedAt: string | undefined }>();
  const likes = new Map<string, { match: MovieMatch; likedAt: string | undefined }>();
  // The file's lists (one a file), each with its movies in the file's order, a movie once.
  const lists = new Map<
    string,
    {
      list: ImportedList;
      movies: Map<string, { match: MovieMatch; note: string | null; addedAt: string | undefined }>;
    }
  >();
  for (const list of fileLists) {
    if (!lists.has(list.file)) lists.set(list.file, { list, movies: new Map() });
  }

  /** A row that is not imported, counted and (the first ROWS_LISTED) listed with why. */
  const leaveOut = (row: ImportRow, reason: string) => {
    unmatched += 1;
    if (unmatchedRows.length < ROWS_LISTED) {
      unmatchedRows.push({
        file: row.file,
        line: row.line,
        kind: row.kind,
        title: row.movie.title ?? null,
        year: row.movie.year ?? null,
        ids: describeIds(row.movie),
        reason,
        ...(row.kind === 'play' && { watchedAt: row.watchedAt }),
        ...(row.kind === 'rating' && { rating: row.rating }),
      });
    }
  };

  let index = 0;
  for (const row of rows) {
    if (++index % ROWS_PER_TURN === 0) await nextTurn();
    const match = matchOf(row);
    if (!match) {
      leaveOut(row, 'no movie matches it');
      continue;
    }
    if (match.guess) {
      guessed += 1;
      if (guesses.length < ROWS_LISTED) {
        guesses.push({
          file: row.file,
          line: row.line,
          kind: row.kind,
          title: row.movie.title ?? null,
          year: row.movie.year ?? null,
          why: match.guess.why,
          movie: {
            title: match.guess.title,
            year: match.guess.year,
            serviceId: 'movieId' in match ? match.movieId : null,
            tmdbId: 'tmdbId' in match ? match.tmdbId : null,
          },
        });
      }
    }
    const movieKey = keyOf(match);
    if (row.kind === 'play' && row.inAll) {
      const said = inAll.get(movieKey);
      if (!said || said.plays < row.plays) inAll.set(movieKey, { match, plays: row.plays });
    } else if (row.kind === 'play') {
      let days = entries.get(movieKey);
      if (!days) {
        days = new Map();
        entries.set(movieKey, days);
      }
      let entry = days.get(row.watchedAt);
      if (!entry) {
        entry = {
          match,
          watchedAt: row.watchedAt,
          plays: 0,
          comments: [],
          position: row.position,
          rating: undefined,
          rewatch: undefined,
          tags: new Map(),
        };
        days.set(row.watchedAt, entry);
        inFileOrder.push(entry);
      }
      entry.plays += row.plays;
      if (row.comment && !entry.comments.includes(row.comment)) entry.comments.push(row.comment);
      if (row.entryRating !== undefined) entry.rating = row.entryRating;
      if (row.rewatch !== undefined) entry.rewatch = entry.rewatch === true || row.rewatch;
      for (const tag of row.tags ?? []) {
        const key = tagKey(tag);
        if (!entry.tags.has(key)) entry.tags.set(key, tag);
      }
    } else if (row.kind === 'watched') {
      watched.set(movieKey, match);
    } else if (row.kind === 'watchlist') {
      if (!watchlist.has(movieKey)) watchlist.set(movieKey, { match, addedAt: row.addedAt });
    } else if (row.kind === 'like') {
      if (!likes.has(movieKey)) likes.set(movieKey, { match, likedAt: row.likedAt });
    } else if (row.kind === 'list-movie') {
      let list = lists.get(row.list.file);
      if (!list) {
        list = { list: row.list, movies: new Map() };
        lists.set(row.list.file, list);
      }
      if (list.movies.has(movieKey)) continue;
      // Never cut silently: each movie past what a list holds is listed as left out.
      if (list.movies.size >= MAX_LIST_MOVIES) {
        const most = MAX_LIST_MOVIES.toLocaleString('en');
        leaveOut(row, `${row.list.name} holds ${most} movies already: a list holds at most ${most}`);
        continue;
      }
      list.movies.set(movieKey, { match, note: row.note, addedAt: row.addedAt });
    } else {
      // A later row rates the movie again: the last one holds.
      ratings.delete(movieKey);
      ratings.set(movieKey, { match, rating: row.rating, ratedAt: row.ratedAt });
    }
  }

  // Entries there already first, then new ones in the file's order: a day's new entries go after its
  // others in that order ('after-last'), the cinelog format's at their own positions.
  const plays: PlannedPlay[] = [];
  const newEntries: PlannedPlay[] = [];
  const descriptions: PlannedDescription[] = [];
  // Per movie with a count in all: the file's dated plays of it, and the plays planned for it.
  const dated = new Map<string, DatedPlays>();
  for (const entry of inFileOrder) {
    if (++index % ROWS_PER_TURN === 0) await nextTurn();
    const current = stateOf(entry.match)?.entries.get(entry.watchedAt);
    const description = describedEntry(entry, current);
    if (description) {
      if (description.write) {
        counts.diary.added += 1;
        descriptions.push(description.write);
      } else counts.diary.existing += 1;
    }
    const have = current?.plays ?? 0;
    const add = Math.max(entry.plays - have, 0);
    counts.plays.added += add;
    counts.plays.existing += Math.min(entry.plays, have);
    if (inAll.size > 0) {
      const key = keyOf(entry.match);
      const tally = dated.get(key) ?? { file: 0, added: 0 };
      tally.file += entry.plays;
      tally.added += add;
      dated.set(key, tally);
    }
    const comment = entry.comments.length > 0 ? clip(entry.comments.join('\n\n')) : null;
    // A comment from the file fills an entry without one; an entry's own comment stays.
    const fillComment = comment !== null && (current === undefined || current.comment === null);
    if (add === 0 && !fillComment) continue;
    const write: PlannedPlay = {
      movieId: 'movieId' in entry.match ? entry.match.movieId : -1,
      watchedAt: entry.watchedAt,
      plays: add,
      comment: fillComment ? comment : null,
    };
    if (current) plays.push(write);
    else {
      if (keepPositions && entry.position !== undefined) write.position = entry.position;
      else if (entry.watchedAt !== null) write.position = 'after-last';
      newEntries.push(write);
    }
  }
  // The movies counted in all: the plays they lack beyond those on their dates, on no known date.
  const undated = planPlaysInAll(inAll, dated, stateOf);
  counts.plays.added += undated.added;
  counts.plays.existing += undated.existing;
  for (const play of undated.toEntries) plays.push(play);
  for (const play of undated.newEntries) newEntries.push(play);
  // One by one: a spread of hundreds of thousands of entries would overflow the call stack.
  for (const play of newEntries) plays.push(play);

  for (const [movieKey, match] of watched) {
    const state = stateOf(match);
    if (entries.has(movieKey) || (state && state.entries.size > 0)) {
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

  const likeWrites: { movieId: number; likedAt: string | undefined }[] = [];
  for (const { match, likedAt } of likes.values()) {
    if (stateOf(match)?.liked) counts.likes.existing += 1;
    else {
      counts.likes.added += 1;
      likeWrites.push({ movieId: idOf(match), likedAt });
    }
  }
  // A list is found by its name among the user's: one there already is left as it is (the user may
  // have changed it since); two lists of one name in the file, the first is created.
  const listWrites: PlannedList[] = [];
  const names = new Set(listNames);
  for (const { list, movies } of lists.values()) {
    if (names.has(list.name)) {
      counts.lists.existing += 1;
      continue;
    }
    names.add(list.name);
    counts.lists.added += 1;
    listWrites.push({
      values: {
        name: list.name,
        description: list.description,
        ranked: list.ranked,
        visibility: list.visibility ?? 'private',
      },
      movies: [...movies.values()].map(({ match, note, addedAt }) => ({
        movieId: idOf(match),
        note,
        addedAt,
      })),
    });
  }

  const added =
    counts.plays.added +
    counts.watchlist.added +
    counts.ratings.added +
    counts.likes.added +
    counts.lists.added;
  const existing =
    counts.plays.existing +
    counts.watchlist.existing +
    counts.ratings.existing +
    counts.likes.existing +
    counts.lists.existing;
  return {
    summary: { added, existing, unmatched, ...counts, unmatchedRows, guessed, guesses },
    writes: {
      empty:
        plays.length === 0 &&
        descriptions.length === 0 &&
        watchlistWrites.length === 0 &&
        ratingWrites.length === 0 &&
        likeWrites.length === 0 &&
        listWrites.length === 0,
      plays,
      entries: descriptions,
      watchlist: watchlistWrites,
      ratings: ratingWrites,
      likes: likeWrites,
      lists: listWrites,
    },
  };
}

/** A movie's plays in all (rows `inAll`): the movie and the largest count the file says. */
interface CountInAll {
  match: MovieMatch;
  plays: number;
}

/** A movie's dated plays in the file (`file`), and how many of them the plan adds (`added`). */
interface DatedPlays {
  file: number;
  added: number;
}

/**
 * The in-all step of `planImport`: the plays of the movies the file counts in all (rows `inAll`, keyed
 * by movie). What the library has of a movie on any date, with the dated plays planned for it
 * (`dated`), counts toward its count; the rest go on no known date. Returns the plays added and there
 * already, and the writes: `toEntries` to a movie's undated entry it has already, `newEntries` to one
 * it has not, each in the order of `inAll`.
 */
function planPlaysInAll(
  inAll: ReadonlyMap<string, CountInAll>,
  dated: ReadonlyMap<string, DatedPlays>,
  stateOf: (match: MovieMatch) => StoredMovieState | undefined,
): { added: number; existing: number; toEntries: PlannedPlay[]; newEntries: PlannedPlay[] } {
  const planned = { added: 0, existing: 0, toEntries: [] as PlannedPlay[], newEntries: [] as PlannedPlay[] };
  for (const [movieKey, { match, plays: total }] of inAll) {
    const state = stateOf(match);
    let have = 0;
    for (const entry of state?.entries.values() ?? []) have += entry.plays;
    const tally = dated.get(movieKey) ?? { file: 0, added: 0 };
    const missing = Math.max(total - have - tally.added, 0);
    planned.added += missing;
    planned.existing += Math.max(total - tally.file - missing, 0);
    if (missing === 0) continue;
    const write: PlannedPlay = { movieId: idOf(match), watchedAt: null, plays: missing, comment: null };
    if (state?.entries.has(null)) planned.toEntries.push(write);
    else planned.newEntries.push(write);
  }
  return planned;
}

/** A movie's service id (-1: matched at TMDB, not stored yet: a dry run). */
const idOf = (match: MovieMatch) => ('movieId' in match ? match.movieId : -1);

/**
 * What the file gives an entry of its own that it lacks: its rating and rewatch flag where the stored
 * entry has none (the user's own stay), its tags that the entry has not (up to MAX_TAGS_PER_ENTRY).
 * Null: the file says nothing of the entry; no `write`: the entry has it all already.
 */
function describedEntry(
  entry: PlannedEntry,
  current: StoredMovieState['entries'] extends Map<unknown, infer E> ? E | undefined : never,
): { write: PlannedDescription | null } | null {
  if (entry.rating === undefined && entry.rewatch === undefined && entry.tags.size === 0) return null;
  const write: PlannedDescription = { movieId: idOf(entry.match), watchedAt: entry.watchedAt };
  if (entry.rating !== undefined && (current?.rating ?? null) === null) write.rating = entry.rating;
  if (entry.rewatch !== undefined && (current?.rewatch ?? null) === null) write.rewatch = entry.rewatch;
  const have = current?.tagKeys ?? new Set<string>();
  const room = MAX_TAGS_PER_ENTRY - have.size;
  const tags = [...entry.tags].filter(([key]) => !have.has(key)).map(([, tag]) => tag);
  if (room > 0 && tags.length > 0) write.tags = tags.slice(0, room);
  const changes = write.rating !== undefined || write.rewatch !== undefined || write.tags !== undefined;
  return { write: changes ? write : null };
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
