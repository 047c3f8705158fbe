import {
  MAX_LIST_DESCRIPTION_LENGTH,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_NOTE_LENGTH,
  MAX_TAG_LENGTH,
} from '../library/library.rules.js';
import {
  type ImportedList,
  ImportFileError,
  type ImportOutput,
  type ImportParser,
  type MovieRef,
  type ParseContext,
  RowError,
} from './import.types.js';
import {
  type CsvRecord,
  type CsvTable,
  csvCells,
  csvRecords,
  csvTable,
  readRow,
  unguarded,
} from './import-csv.js';
import { baseName, type ImportFile } from './import-files.js';
import { firstLineOf } from './import-text.js';
import {
  badCell,
  dayOfRecord,
  noonIn,
  optionalDate,
  optionalId,
  optionalImdbId,
  optionalRating,
  optionalYear,
  playDate,
  type SlashOrder,
  slashOrderOf,
} from './import-values.js';

// Letterboxd, two ways in (docs/imports-exports.md):
//
// 1. Its data export (Settings → Import & Export → Export your data), a ZIP, or the directory it
//    unpacks to, maybe inside one folder (`letterboxd-<user>-<date>-utc/`). Only the files at the top
//    of the export are the user's data:
//      diary.csv      Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date   an entry a line
//      reviews.csv    the same with Review: the review becomes the comment of that entry
//      watched.csv    Date,Name,Year,Letterboxd URI        seen, on no known date
//      ratings.csv    Date,Name,Year,Letterboxd URI,Rating (0.5-5 stars)
//      watchlist.csv  Date,Name,Year,Letterboxd URI
//      comments.csv, profile.csv                           nothing cinelog keeps
//      likes/films.csv  Date,Name,Year,Letterboxd URI      liked films
//      lists/<slug>.csv  a list (Letterboxd list export v7, its own row, then Position,Name,Year,URL,…)
//    `deleted/` and `orphaned/` are never read; `likes/reviews.csv` and `likes/lists.csv` are counted.
// 2. A CSV in the layout of Letterboxd's importer (letterboxd.com/about/importing-data), cinelog's older
//    `letterboxd` export among them (today's is the data export's layout, letterboxd.export.ts):
//      LetterboxdURI,tmdbID,imdbID,Title,Year,Directors,WatchedDate,Rating,Rating10,Tags,Review
//      tmdbID,imdbID,Title,Year,WatchedDate,Rating10,Rewatch,Review          (cinelog's, before)
//
// Each file is recognised by its header, whatever its name; only watched.csv and watchlist.csv share
// one, and there the name tells (`watchlist` in it). Rows of the export carry no TMDB or IMDb id: they
// are matched by title and year (and the film's slug, where the address gives it).

/** The folders of an export that hold something else than the user's own data. */
const NEVER_READ = new Set(['deleted', 'orphaned']);
const COUNTED = new Set(['likes', 'lists']);

/** Headers as a spreadsheet may write them: `Watched Date`, `watcheddate`, `watched_date` are one. */
const normal = (column: string) => column.toLowerCase().replace(/[\s_-]+/g, '');

/** The columns of Letterboxd's importer (and those cinelog's export adds), normalised. */
const IMPORT_COLUMNS = new Set(
  [
    'LetterboxdURI',
    'tmdbID',
    'imdbID',
    'Title',
    'Year',
    'Directors',
    'WatchedDate',
    'Rating',
    'Rating10',
    'Tags',
    'Review',
    'Rewatch',
  ].map(normal),
);
const IMPORT_MOVIE_COLUMNS = ['title', 'tmdbid', 'imdbid', 'letterboxduri'];
/** cinelog's own `letterboxd` export, whose row order tells a rating alone from an undated play. */
const CINELOG_HEADER = 'tmdbID,imdbID,Title,Year,WatchedDate,Rating10,Rewatch,Review'.toLowerCase();

/** Every column named above, as written, for finding a file's separator. */
const KNOWN = [
  'Date',
  'Name',
  'Year',
  'Letterboxd URI',
  'Rating',
  'Rewatch',
  'Tags',
  'Watched Date',
  'Review',
  'Content',
  'Comment',
  'Date Joined',
  'Username',
  'LetterboxdURI',
  'tmdbID',
  'imdbID',
  'Title',
  'Directors',
  'WatchedDate',
  'Rating10',
];

const SKIP = {
  tags: 'tags on diary entries',
  longTags: `tags longer than ${MAX_TAG_LENGTH} characters`,
  emptyLists: 'empty Letterboxd list files',
  likedReviews: 'liked reviews',
  likedLists: 'liked lists',
} as const;

type Kind =
  | 'diary'
  | 'reviews'
  | 'ratings'
  | 'watched'
  | 'watchlist'
  | 'import'
  | 'comments'
  | 'profile'
  | 'liked-films'
  | 'liked-content'
  | 'list';

/** A file of the export: what it is, and its folder (the export's root for a top-level file). */
interface Recognised {
  file: ImportFile;
  kind: Kind;
  /** The folder that holds the export's top-level files, as written (`''`: the top). */
  root: string;
  /** Its CSV table; null for a list (read by `listMovies`). */
  table: CsvTable | null;
  /** The header's columns by their normal name (see `normal`), as written. */
  columns: Map<string, string>;
}

/** The kinds an export holds once at most (two are two exports), the most telling first. */
const ONCE: readonly Kind[] = ['diary', 'ratings', 'watched', 'watchlist', 'reviews', 'comments', 'profile'];
/** The kinds that are the user's own data at an export's top: where they are is the export's root. */
const TOP: readonly Kind[] = [...ONCE, 'import'];

export const parseLetterboxd: ImportParser = async (files, context, out) => {
  const found = await recognise(files);
  const top = found.filter((f) => TOP.includes(f.kind));
  if (top.length === 0) {
    throw new ImportFileError(
      'found no Letterboxd export: expected its diary.csv, watched.csv, ratings.csv, watchlist.csv or reviews.csv (the export ZIP, or the directory it unpacks to), or a CSV for Letterboxd’s importer (Title, Year, WatchedDate, Rating…)',
    );
  }
  const roots = [...new Set(top.map((f) => f.root))];
  if (roots.length > 1) {
    // Each export named by its most telling file: its diary, else its ratings...
    const [a, b] = roots.map(
      (root) => TOP.flatMap((kind) => top.filter((f) => f.root === root && f.kind === kind))[0]!.file.name,
    );
    throw new ImportFileError(
      `found two Letterboxd exports, ${a} and ${b} (in ${roots.map(folderName).join(' and ')}): import one at a time`,
    );
  }
  const root = roots[0]!;
  for (const kind of ONCE) {
    const same = top.filter((f) => f.kind === kind);
    if (same.length > 1) {
      throw new ImportFileError(
        `found two Letterboxd ${kind} files, ${same[0]!.file.name} and ${same[1]!.file.name}: an export has one, import one export at a time`,
      );
    }
  }
  const one = (kind: Kind) => top.find((f) => f.kind === kind);
  const reader = new ExportReader(context, out);
  const reviews = one('reviews');
  if (reviews) await reader.readReviews(reviews);
  const diary = one('diary');
  if (diary) await reader.readDiary(diary);
  reader.leftoverReviews();
  const watched = one('watched');
  if (watched) await reader.readFilms(watched, 'watched');
  const ratings = one('ratings');
  if (ratings) await reader.readRatings(ratings);
  const watchlist = one('watchlist');
  if (watchlist) await reader.readFilms(watchlist, 'watchlist');
  reader.diaryRatings(ratings !== undefined);
  const importRatings = new RatingChoice();
  for (const f of top.filter((f) => f.kind === 'import')) await readImportCsv(f, context, out, importRatings);
  importRatings.end(out, 'chosen');

  // Likes and lists of another folder belong to no export here (an old copy zipped along): counted,
  // never read as this export's, nor silently passed over.
  const elsewhere = new Map<string, number>();
  for (const f of found) {
    if (f.root !== root && !TOP.includes(f.kind)) elsewhere.set(f.root, (elsewhere.get(f.root) ?? 0) + 1);
  }
  for (const [folder, count] of elsewhere) {
    out.skip(`lists and likes outside the export’s folder (${folderName(folder)})`, count);
  }
  // The export's likes and lists; liked reviews and lists, which cinelog does not keep, counted.
  for (const f of found.filter((f) => f.root === root && !TOP.includes(f.kind))) {
    if (f.kind === 'list') await readList(f.file, out);
    else if (f.kind === 'liked-films') await reader.readFilms(f, 'like');
    else if (f.kind === 'liked-content') {
      const name = baseName(f.file);
      out.skip(
        name.includes('list') ? SKIP.likedLists : name.includes('review') ? SKIP.likedReviews : 'likes',
        await recordCount(f),
      );
    }
  }
};

const folderName = (root: string) => (root === '' ? 'the top folder' : `${root}/`);

/**
 * Every file of the upload that is part of a Letterboxd export, recognised by its content. Files are
 * taken in the order of their names, never the ZIP's. A CSV that is none of the export's files is
 * refused (a diary whose columns a spreadsheet renamed must not vanish); other files are passed over.
 */
async function recognise(files: readonly ImportFile[]): Promise<Recognised[]> {
  const found: Recognised[] = [];
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const file of sorted) {
    if (!/\.(csv|tsv|txt)$/i.test(file.name)) continue;
    const strict = /\.csv$/i.test(file.name);
    const folders = file.name.split('/').slice(0, -1);
    const at = folders.findIndex(
      (folder) => NEVER_READ.has(folder.toLowerCase()) || COUNTED.has(folder.toLowerCase()),
    );
    const special = at >= 0 ? folders[at]!.toLowerCase() : null;
    if (special && NEVER_READ.has(special)) continue;
    const root = (at >= 0 ? folders.slice(0, at) : folders).join('/');
    let recognised: Omit<Recognised, 'root'> | null;
    try {
      recognised = await recogniseFile(file, special);
    } catch (error) {
      // A text file that is no CSV (a note, a binary) is not the export's; a .csv must be readable.
      if (!strict && error instanceof ImportFileError) continue;
      throw error;
    }
    if (recognised) found.push({ ...recognised, root });
    else if (strict) throw notLetterboxd(file, special, await csvTable(file, KNOWN));
  }
  return found;
}

/** The file's kind by its header (null: not a file of the export); a list by its first line. */
async function recogniseFile(
  file: ImportFile,
  folder: string | null,
): Promise<Omit<Recognised, 'root'> | null> {
  const table = await csvTable(file, KNOWN);
  if (!table) {
    const first = (await firstLineOf(file)).trim();
    if (first === '' || /^letterboxd list export\b/i.test(first)) {
      if (folder === 'likes' || !/\.csv$/i.test(file.name)) return null;
      return { file, kind: 'list', table: null, columns: new Map() };
    }
    return null;
  }
  const columns = new Map<string, string>();
  for (const column of table.header) {
    const key = normal(column);
    if (key !== '' && !columns.has(key)) columns.set(key, column);
  }
  const has = (column: string) => columns.has(column);
  const lacking = (...wanted: string[]) => {
    const missing = wanted.filter((column) => !has(normal(column)));
    if (missing.length > 0) {
      throw new ImportFileError(
        `${file.name} lacks the column${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (its header: ${table.header.join(',')})`,
      );
    }
  };
  const recognised = (kind: Kind) => ({ file, kind, table, columns });
  let kind: Kind | null = null;
  if (has('username') && has('datejoined')) kind = 'profile';
  else if (has('content') && has('comment')) kind = 'comments';
  else if (has('content') && has('date') && columns.size === 2) kind = 'liked-content';
  else if (has('name')) {
    if (has('review')) kind = 'reviews';
    else if (has('watcheddate')) kind = 'diary';
    else if (has('rating')) kind = 'ratings';
    else if (has('year') || has('letterboxduri'))
      kind =
        folder === 'likes' ? 'liked-films' : baseName(file).includes('watchlist') ? 'watchlist' : 'watched';
    if (kind) lacking('Name', 'Year');
  } else if (IMPORT_MOVIE_COLUMNS.some(has)) {
    const unknown = table.header.filter(
      (column) => column.trim() !== '' && !IMPORT_COLUMNS.has(normal(column)),
    );
    if (unknown.length > 0) {
      throw new ImportFileError(
        `${file.name} is not a CSV for Letterboxd’s importer: it has the column${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (its columns may be LetterboxdURI, tmdbID, imdbID, Title, Year, Directors, WatchedDate, Rating, Rating10, Tags, Review)`,
      );
    }
    kind = 'import';
  }
  if (kind === null) return null;
  // Each folder holds its own kinds: a likes/ file is a like, a lists/ file a list.
  if (folder === 'likes' && kind !== 'liked-films' && kind !== 'liked-content') return null;
  if (folder === 'lists') return null;
  if (kind === 'reviews' && !has('watcheddate')) lacking('Date');
  return recognised(kind);
}

function notLetterboxd(file: ImportFile, folder: string | null, table: CsvTable | null): ImportFileError {
  const header = table ? table.header.join(',') : 'missing';
  if (folder === 'lists')
    return new ImportFileError(
      `${file.name} is not a Letterboxd list: no line Position,Name,Year,URL,Description after its first line (${header})`,
    );
  if (folder === 'likes')
    return new ImportFileError(
      `${file.name} is not a file of Letterboxd’s likes/ folder: its header is ${header} (expected Date,Name,Year,Letterboxd URI or Date,Content)`,
    );
  return new ImportFileError(
    `${file.name} is not a Letterboxd export file: its header is ${header} (expected the export’s Date,Name,Year,Letterboxd URI,… as in diary.csv, ratings.csv, watched.csv, watchlist.csv, reviews.csv, or the importer’s Title,Year,WatchedDate,Rating…)`,
  );
}

/** How a file's numeric dates go: day or month first, from its dates; none when all are ISO. */
async function slashOrderOfTable(table: CsvTable, columns: readonly (string | undefined)[]) {
  let numeric = false;
  const named = columns.filter((column): column is string => column !== undefined);
  for await (const record of csvRecords(table)) {
    for (const column of named) {
      const value = record.get(column);
      if (!/^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/.test(value)) continue;
      numeric = true;
      const order = slashOrderOf([value]);
      if (order) return order;
    }
  }
  // Every day is the 12th or earlier: a file saved with `;` is from a day-first locale.
  if (numeric) return table.delimiter === ';' ? 'dmy' : 'mdy';
  return undefined;
}

/** A recognised file's cells by normal column name ('' where it has no such column). */
function cellsOf(f: Recognised, record: CsvRecord) {
  return {
    get: (key: string) => {
      const column = f.columns.get(key);
      return column === undefined ? '' : record.get(column);
    },
    raw: (key: string) => {
      const column = f.columns.get(key);
      return column === undefined ? '' : record.raw(column);
    },
    /** The column as the file writes it, for messages. */
    name: (key: string, fallback: string) => f.columns.get(key) ?? fallback,
    has: (key: string) => f.columns.has(key),
  };
}

type Cells = ReturnType<typeof cellsOf>;

/** Text that is something: null when only blanks; as written otherwise (a leading newline stays). */
const textOrNull = (value: string) => (value.trim() === '' ? null : value);

/**
 * The film's slug on Letterboxd from an address that names it: `letterboxd.com/film/<slug>/` (the
 * film), `letterboxd.com/<user>/film/<slug>/…` (an entry or review of it, older exports). Short
 * `boxd.it` links name an entry, not a film: nothing.
 */
export function slugOf(uri: string): string | undefined {
  const match =
    /^https?:\/\/(?:www\.)?letterboxd\.com\/(?:[^/?#]+\/)?film\/([a-z0-9-]{1,200})(?:[/?#]|$)/i.exec(
      uri.trim(),
    );
  return match?.[1]?.toLowerCase();
}

/** How the ratings of a film's rows end: which rows they give, and which are counted as skipped. */
type RatingsEnd =
  /** Every row's rating is its diary entry's, none the film's (ratings.csv holds those). */
  | 'on-entries'
  /** The chosen rating is the film's; the others are their diary entries' own. */
  | 'chosen';

/** A film's ratings from several rows: one becomes the movie's (the others stay their entries' own). */
class RatingChoice {
  private films = new Map<string, FilmRatings>();

  /**
   * A rating of the film `key`. `film`: of the film itself (a row without a date), which wins over
   * any entry's (the later of two); otherwise the latest dated entry's wins (ties: the later line).
   */
  add(
    key: string,
    row: { at: { file: string; line: number }; movie: MovieRef },
    rating: number,
    date: string | null,
    level: 'film' | 'entry',
  ) {
    const film = this.films.get(key);
    if (!film) {
      this.films.set(key, { at: row.at, movie: row.movie, rating, date, level });
      return;
    }
    if (level === 'film' || (film.level === 'entry' && (date ?? '') >= (film.date ?? ''))) {
      film.at = row.at;
      film.movie = row.movie;
      film.rating = rating;
      film.date = date;
      film.level = level;
    }
  }

  /**
   * The movies' ratings as rows (unless `all-skipped`), the others counted. `noon`: when a rating
   * from a dated row was made (none: not said).
   */
  end(out: ImportOutput, how: RatingsEnd, noon?: (date: string) => string) {
    if (how === 'on-entries') return;
    for (const { at, movie, rating, date } of this.films.values()) {
      const ratedAt = noon && date !== null ? noon(date) : undefined;
      out.row({ ...at, kind: 'rating', movie, rating, ratedAt });
    }
  }
}

interface FilmRatings {
  at: { file: string; line: number };
  movie: MovieRef;
  rating: number;
  date: string | null;
  level: 'film' | 'entry';
}

/** A review waiting for its diary entry. */
interface Review {
  text: string;
  record: EntryFields;
  used: boolean;
}

/** What a diary or reviews line says. */
interface EntryFields {
  at: { file: string; line: number };
  movie: MovieRef;
  date: string | null;
  rating: number | undefined;
  /** `Rewatch`: `Yes` or empty; undefined when the file has no such column. */
  rewatch: boolean | undefined;
  tags: string[];
}

/** Reads the files of Letterboxd's data export, in the order `parseLetterboxd` calls it. */
class ExportReader {
  private reviews = new Map<string, Review[]>();
  private ratings = new RatingChoice();

  /** Noon of a day in the user's zone; remembered, as days repeat and working it out is slow. */
  private readonly noon: (date: string) => string;

  constructor(
    private context: ParseContext,
    private out: ImportOutput,
  ) {
    const noons = new Map<string, string>();
    this.noon = (date) => {
      let noon = noons.get(date);
      if (noon === undefined) {
        noon = noonIn(date, context.timezone);
        noons.set(date, noon);
      }
      return noon;
    };
  }

  /** The film a line names, and its key: a diary's URI is its entry's, so title and year are the film. */
  private filmOf(cells: Cells): { movie: MovieRef; key: string } {
    const title = cells.get('name');
    if (title === '') throw badCell(cells.name('name', 'Name'), '', 'a film title');
    const year = optionalYear(cells.name('year', 'Year'), cells.get('year'));
    const movie: MovieRef = { title, year, letterboxdId: slugOf(cells.get('letterboxduri')) };
    return { movie, key: `${title}\u0000${year ?? ''}` };
  }

  private async each(
    f: Recognised,
    dateColumns: readonly string[],
    read: (cells: Cells, at: { file: string; line: number }, order: SlashOrder | undefined) => void,
  ) {
    const table = f.table!;
    const order = await slashOrderOfTable(
      table,
      dateColumns.map((key) => f.columns.get(key)),
    );
    for await (const record of csvRecords(table)) {
      const at = { file: f.file.name, line: record.line };
      readRow(
        this.out,
        at,
        record,
        () => {
          read(cellsOf(f, record), at, order);
        },
        f.columns.get('name') ?? 'Name',
        f.columns.get('year') ?? 'Year',
      );
    }
  }

  /** A diary or review line: its film, day, rating and whether it has tags. */
  private entryOf(
    cells: Cells,
    at: { file: string; line: number },
    order: SlashOrder | undefined,
  ): EntryFields & { key: string } {
    const { movie, key } = this.filmOf(cells);
    // The day watched is `Watched Date`; without one, the day the entry was logged (`Date`).
    const watched = cells.get('watcheddate');
    const logged = cells.get('date');
    const dateColumn =
      watched !== '' ? cells.name('watcheddate', 'Watched Date') : cells.name('date', 'Date');
    const date = playDate(dateColumn, watched !== '' ? watched : logged, this.context.today, order);
    if (watched !== '') optionalDate(cells.name('date', 'Date'), logged, order);
    const rating = optionalRating(cells.name('rating', 'Rating'), cells.get('rating'), 'half-stars');
    const rewatch = cells.has('rewatch') ? /^(yes|true|1)$/i.test(cells.get('rewatch')) : undefined;
    const tags = tagsOf(cells.raw('tags'));
    if (tags.long > 0) this.out.skip(SKIP.longTags, tags.long);
    return { at, movie, key: `${key}\u0000${date ?? ''}`, date, rating, rewatch, tags: tags.tags };
  }

  /** reviews.csv: each review waits for its diary entry (same film and day). */
  async readReviews(f: Recognised) {
    await this.each(f, ['watcheddate', 'date'], (cells, at, order) => {
      const entry = this.entryOf(cells, at, order);
      const text = textOrNull(cells.raw('review'));
      const list = this.reviews.get(entry.key) ?? [];
      list.push({ text: text ?? '', record: entry, used: false });
      this.reviews.set(entry.key, list);
    });
  }

  /** diary.csv: a play a line (the day's reviews its comment); ratings and tags kept for the end. */
  async readDiary(f: Recognised) {
    await this.each(f, ['watcheddate', 'date'], (cells, at, order) => {
      const entry = this.entryOf(cells, at, order);
      const reviews = this.reviews.get(entry.key) ?? [];
      for (const review of reviews) review.used = true;
      const texts = reviews.map((review) => review.text).filter((text) => text !== '');
      this.entry(entry, texts.length > 0 ? texts.join('\n\n') : null);
    });
  }

  /** Reviews of no diary entry: each one an entry of its own. */
  leftoverReviews() {
    for (const reviews of this.reviews.values()) {
      for (const review of reviews) {
        if (!review.used) this.entry(review.record, textOrNull(review.text));
      }
    }
    this.reviews.clear();
  }

  private entry(entry: EntryFields, comment: string | null) {
    const { at, movie, date } = entry;
    // An entry on no known day marks the film seen; with a review, that is a play on no known day.
    // A play is the diary entry: its own rating, rewatch flag and tags go on it.
    if (date === null && comment === null) {
      this.out.row({ ...at, kind: 'watched', movie });
      if (entry.tags.length > 0) this.out.skip(SKIP.tags);
    } else {
      this.out.row({
        ...at,
        kind: 'play',
        movie,
        watchedAt: date,
        plays: 1,
        comment,
        entryRating: entry.rating,
        rewatch: entry.rewatch,
        ...(entry.tags.length > 0 && { tags: entry.tags }),
      });
    }
    if (entry.rating !== undefined) {
      const key = `${movie.title}\u0000${movie.year ?? ''}`;
      this.ratings.add(key, { at, movie }, entry.rating, date, 'entry');
    }
  }

  /**
   * The diary's ratings, each on its own entry: with ratings.csv, that holds each film's rating;
   * without it, the film's latest dated entry's rating is the film's.
   */
  diaryRatings(ratingsFile: boolean) {
    this.ratings.end(this.out, ratingsFile ? 'on-entries' : 'chosen', this.noon);
  }

  /** watched.csv (seen, on no known date), watchlist.csv, or likes/films.csv (liked on `Date`). */
  async readFilms(f: Recognised, kind: 'watched' | 'watchlist' | 'like') {
    await this.each(f, ['date'], (cells, at, order) => {
      const { movie } = this.filmOf(cells);
      const added = dayOfRecord(cells.name('date', 'Date'), cells.get('date'), this.context.today, order);
      if (kind === 'watched') this.out.row({ ...at, kind: 'watched', movie });
      else if (kind === 'like')
        this.out.row({ ...at, kind: 'like', movie, likedAt: added ? this.noon(added) : undefined });
      else
        this.out.row({
          ...at,
          kind: 'watchlist',
          movie,
          addedAt: added ? this.noon(added) : undefined,
        });
    });
  }

  /** ratings.csv: each film's rating (0.5-5 stars), rated on `Date`. */
  async readRatings(f: Recognised) {
    await this.each(f, ['date'], (cells, at, order) => {
      const { movie } = this.filmOf(cells);
      const rating = optionalRating(cells.name('rating', 'Rating'), cells.get('rating'), 'half-stars');
      const rated = dayOfRecord(cells.name('date', 'Date'), cells.get('date'), this.context.today, order);
      if (rating === undefined) return;
      this.out.row({
        ...at,
        kind: 'rating',
        movie,
        rating,
        ratedAt: rated ? this.noon(rated) : undefined,
      });
    });
  }
}

/**
 * A CSV for Letterboxd's importer. A row with a WatchedDate is a play on that day, its Review the
 * comment. Without one, Letterboxd marks the film watched: a play on no known date (the review its
 * comment). cinelog's own export writes its undated plays first and the ratings of movies never played
 * last, a row each with the rating alone: in that file such a row after a dated one (or with an empty
 * Rewatch) is a rating only, and an undated row is a play that counts (three rows, three plays).
 */
async function readImportCsv(f: Recognised, context: ParseContext, out: ImportOutput, ratings: RatingChoice) {
  const table = f.table!;
  const cinelog = table.header.join(',').toLowerCase() === CINELOG_HEADER;
  const order = await slashOrderOfTable(table, [f.columns.get('watcheddate')]);
  let dated = false;
  for await (const record of csvRecords(table)) {
    const at = { file: f.file.name, line: record.line };
    const cells = cellsOf(f, record);
    const watched = cells.get('watcheddate');
    const afterDated = dated;
    if (watched !== '') dated = true;
    readRow(
      out,
      at,
      record,
      () => {
        const movie: MovieRef = {
          tmdbId: optionalId(cells.name('tmdbid', 'tmdbID'), cells.get('tmdbid')),
          imdbId: optionalImdbId(cells.name('imdbid', 'imdbID'), cells.get('imdbid')),
          letterboxdId: slugOf(cells.get('letterboxduri')),
          title: cells.get('title') || undefined,
          year: optionalYear(cells.name('year', 'Year'), cells.get('year')),
        };
        if (
          movie.tmdbId === undefined &&
          movie.imdbId === undefined &&
          movie.letterboxdId === undefined &&
          movie.title === undefined
        ) {
          throw badCell(cells.name('title', 'Title'), '', 'a film title (the line names no film)');
        }
        const date = playDate(cells.name('watcheddate', 'WatchedDate'), watched, context.today, order);
        const rating =
          cells.get('rating10') !== ''
            ? optionalRating(cells.name('rating10', 'Rating10'), cells.get('rating10'), 'ten')
            : optionalRating(cells.name('rating', 'Rating'), cells.get('rating'), 'half-stars');
        const comment = textOrNull(cells.raw('review'));
        const rewatch = cells.get('rewatch').toLowerCase();
        const key = JSON.stringify([movie.tmdbId, movie.imdbId, movie.letterboxdId, movie.title, movie.year]);
        const tags = tagsOf(cells.raw('tags'));
        if (tags.long > 0) out.skip(SKIP.longTags, tags.long);
        // The entry's own values; cinelog's older export wrote the movie's rating on every row and a
        // rewatch it derived, so there they are not the entry's.
        const own = {
          ...(tags.tags.length > 0 && { tags: tags.tags }),
          ...(!cinelog && /^(yes|true|1)$/.test(rewatch) && { rewatch: true }),
          ...(!cinelog && /^(no|false|0)$/.test(rewatch) && { rewatch: false }),
        };
        if (date !== null) {
          out.row({
            ...at,
            kind: 'play',
            movie,
            watchedAt: date,
            plays: 1,
            comment,
            ...own,
            ...(!cinelog && rating !== undefined && { entryRating: rating }),
          });
          if (rating !== undefined) ratings.add(key, { at, movie }, rating, date, 'entry');
        } else {
          const ratingAlone =
            cinelog &&
            rating !== undefined &&
            comment === null &&
            rewatch !== 'true' &&
            (afterDated || rewatch === '');
          if (ratingAlone) {
            // The rating (below) is all the row says.
          } else if (cinelog || comment !== null) {
            // cinelog's undated plays add up (an entry of 3 plays is 3 rows); a review needs a play.
            out.row({ ...at, kind: 'play', movie, watchedAt: null, plays: 1, comment, ...own });
          } else {
            out.row({ ...at, kind: 'watched', movie });
            // Seen on no known date is no entry: its tags have nowhere to go.
            if (tags.tags.length > 0) out.skip(SKIP.tags);
          }
          if (rating !== undefined) ratings.add(key, { at, movie }, rating, null, 'film');
        }
      },
      f.columns.get('title') ?? 'Title',
      f.columns.get('year') ?? 'Year',
    );
  }
}

/** The rows of a likes/ file. */
async function recordCount(f: Recognised): Promise<number> {
  let count = 0;
  for await (const _ of csvRecords(f.table!)) count += 1;
  return count;
}

/** A diary entry's tags (`"summer, road trip"`): trimmed, inner spaces one, empty ones dropped; too long ones counted. */
export function tagsOf(value: string): { tags: string[]; long: number } {
  const tags: string[] = [];
  let long = 0;
  for (const part of value.split(',')) {
    const tag = part.trim().replace(/\s+/g, ' ');
    if (tag === '') continue;
    if (tag.length > MAX_TAG_LENGTH) long += 1;
    else tags.push(tag);
  }
  return { tags, long };
}

const clipped = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * A list (lists/<slug>.csv): a first line (`Letterboxd list export v7`, or empty in older exports),
 * the list's own `Date,Name,Tags,URL,Description` and its row (a description may hold line breaks),
 * then `Position,Name,Year,URL,Description` (some versions without `Description`) and a line per
 * movie, `Description` its note. A list with any Position is ranked, its movies in that order; else
 * in the file's. Each movie is a `list-movie` row; a list without movies is a list all the same (a
 * file with nothing in it at all is counted as skipped).
 */
async function readList(file: ImportFile, out: ImportOutput): Promise<void> {
  let anything = false;
  for (const delimiter of [',', ';', '\t'] as const) {
    let own: { header: string[]; row: string[] | null } | null = null;
    let columns: string[] | null = null;
    const movies: { line: number; cells: string[] }[] = [];
    for await (const read of csvCells(file, delimiter)) {
      const { line } = read;
      const cells = read.cells.map(unguarded);
      const values = cells.map((cell) => cell.trim().toLowerCase());
      if (values.some((value) => value !== '')) anything = true;
      if (columns !== null) {
        if (values.some((value) => value !== '')) movies.push({ line, cells });
      } else if (values[0] === 'position' && values[1] === 'name' && values[2] === 'year') {
        columns = values;
      } else if (own === null && values.includes('name') && values.includes('date')) {
        own = { header: values, row: null };
      } else if (own !== null && own.row === null) {
        own.row = cells;
      }
    }
    if (columns === null) {
      if (!anything) return out.skip(SKIP.emptyLists);
      continue;
    }
    const ownCell = (name: string) => {
      const at = own?.header.indexOf(name) ?? -1;
      return at >= 0 ? (own?.row?.[at] ?? '') : '';
    };
    const slug = baseName(file).replace(/\.[^.]*$/, '');
    const name = ownCell('name').trim().replace(/\s+/g, ' ') || slug;
    // Line breaks as \n, whatever the file's.
    const description = ownCell('description').replace(/\r\n?/g, '\n');
    const cell = (cells: string[], column: string) => {
      const at = columns!.indexOf(column);
      return at >= 0 ? (cells[at] ?? '') : '';
    };
    const read = movies.map(({ line, cells }) => {
      const position = /^\d+$/.test(cell(cells, 'position').trim()) ? Number(cell(cells, 'position')) : null;
      return { line, cells, position };
    });
    const ranked = read.some((movie) => movie.position !== null);
    // Ranked: by Position (the movies without one after them, in the file's order).
    if (ranked)
      read.sort((a, b) => (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER));
    const list: ImportedList = {
      file: file.name,
      name: clipped(name, MAX_LIST_NAME_LENGTH),
      description: description.trim() === '' ? null : clipped(description, MAX_LIST_DESCRIPTION_LENGTH),
      ranked,
    };
    // Said even without movies: a list the user made and has not filled is theirs all the same.
    out.list(list);
    for (const { line, cells } of read) {
      const at = { file: file.name, line };
      const title = cell(cells, 'name').trim();
      const yearText = cell(cells, 'year').trim();
      try {
        if (title === '') throw badCell('Name', '', 'a film title');
        const year = optionalYear('Year', yearText);
        const note = cell(cells, 'description').replace(/\r\n?/g, '\n');
        out.row({
          ...at,
          kind: 'list-movie',
          movie: { title, year, letterboxdId: slugOf(cell(cells, 'url')) },
          list,
          note: note.trim() === '' ? null : clipped(note, MAX_LIST_NOTE_LENGTH),
        });
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        const year = Number(yearText);
        out.unreadable(at, error.message, {
          title: title || undefined,
          year: Number.isInteger(year) && year > 0 ? year : undefined,
        });
      }
    }
    return;
  }
  throw new ImportFileError(
    `${file.name} is not a Letterboxd list: it has no line Position,Name,Year,URL,Description`,
  );
}
