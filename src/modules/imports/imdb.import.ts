import {
  ImportFileError,
  type ImportOutput,
  type ImportParser,
  type MovieRef,
  RowError,
} from './import.types.js';
import { type CsvRecord, type CsvTable, csvRecords, csvTable, readRow } from './import-csv.js';
import { baseName, type ImportFile, UNNAMED_CSV } from './import-files.js';
import {
  dayOfRecord,
  noonIn,
  optionalImdbId,
  optionalRating,
  optionalYear,
  type SlashOrder,
  slashOrderOf,
} from './import-values.js';

// IMDb's CSV exports, each file recognised by its columns (any case, whatever the file's name), every
// layout since 2017 (docs/imports-exports.md, "IMDb"). IMDb ids are resolved through TMDB's /find.
//   2017 (every field quoted): "position","const","created","modified","description","Title",
//     "Title type","Directors","You rated",…  the ratings, the watchlist and lists alike
//   2018–2023 ratings:  Const,Your Rating,Date Rated,Title,URL,Title Type,…,Year,…,Release Date,Directors
//   2018–2023 lists:    Position,Const,Created,Modified,Description,Title,URL,Title Type,…,Your Rating,Date Rated
//   2024+: the same with Original Title after Title, and types spelled `Movie`, `TV Mini Series`
// Since 2018 the watchlist and lists have `Your Rating` too: only Position and Created tell a list from
// the ratings. Which list is the watchlist only its name says (WATCHLIST.csv); a file sent without a
// name is taken for the watchlist. Other lists are counted as skipped.

const KNOWN = [
  'const',
  'your rating',
  'you rated',
  'date rated',
  'date added',
  'position',
  'created',
  'modified',
  'description',
  'title',
  'original title',
  'url',
  'title type',
  'imdb rating',
  'runtime (mins)',
  'year',
  'genres',
  'num votes',
  'num. votes',
  'release date',
  'release date (month/day/year)',
  'directors',
];

/** What a file is: the ratings, the watchlist, or another list (counted as skipped). */
type Kind = 'ratings' | 'watchlist' | 'list';

interface ImdbTable {
  table: CsvTable;
  kind: Kind;
  /** The column of the user's rating (`Your Rating`, 2017: `You rated`); null when there is none. */
  ratingColumn: string | null;
  /** The column of the day of each row: the rating's day, or the day it was put on the list. */
  dateColumn: string;
}

/** Ratings and watchlist entries repeated in list files: the ratings export holds them. */
const RATINGS_IN_LISTS = 'ratings in IMDb watchlist and list files (import the ratings export for them)';

export const parseImdb: ImportParser = async (files, context, out) => {
  // Every file is recognised before any row is read: one file with the wrong columns refuses all.
  const tables: ImdbTable[] = [];
  for (const file of candidatesOf(files)) {
    const table = await csvTable(file, KNOWN);
    if (!table || !has(table.header, 'const')) {
      if (isCsvName(file) || files.length === 1) {
        throw new ImportFileError(
          `${file.name} is not an IMDb export: its header is ${table ? table.header.join(',') : 'missing'} (expected ${EXPECTED})`,
        );
      }
      continue;
    }
    tables.push(await imdbTable(table));
  }
  if (tables.length === 0) throw new ImportFileError(`found no IMDb export: expected ${EXPECTED}`);
  for (const table of tables) {
    if (table.kind === 'list') await countList(table, out);
    else await readTable(table, context, out);
  }
};

const EXPECTED =
  'the ratings CSV (Const,Your Rating,Date Rated,Title,…) or the watchlist CSV (Position,Const,Created,Modified,…)';

/** The files to look at: the CSV files (any file when it is the only one: a renamed upload). */
function candidatesOf(files: readonly ImportFile[]): readonly ImportFile[] {
  if (files.length === 1) return files;
  return files.filter((file) => isCsvName(file) || /\.(tsv|txt)$/.test(baseName(file)));
}

const isCsvName = (file: ImportFile) => baseName(file).endsWith('.csv');

const has = (header: readonly string[], column: string) =>
  header.some((cell) => cell.toLowerCase() === column);

/** The first of `columns` the header has (any case), as the header spells it. */
const columnOf = (header: readonly string[], ...columns: string[]) => {
  for (const column of columns) {
    const found = header.find((cell) => cell.toLowerCase() === column);
    if (found !== undefined) return found;
  }
  return null;
};

/** A list-shaped file's name says it is the watchlist: `WATCHLIST.csv`, any case, or no name. */
const isWatchlistName = (file: ImportFile) =>
  baseName(file).includes('watchlist') || baseName(file) === UNNAMED_CSV;

async function imdbTable(table: CsvTable): Promise<ImdbTable> {
  const { header, file } = table;
  const ratingColumn = columnOf(header, 'your rating', 'you rated');
  if (has(header, 'position') && has(header, 'created')) {
    const dateColumn = columnOf(header, 'created')!;
    // 2017: the ratings were exported as a list too ("You rated" in every row), named ratings.csv.
    const oldLayout = has(header, 'you rated');
    let kind: Kind;
    if (oldLayout && /^ratings\b/.test(baseName(file))) kind = 'ratings';
    else if (oldLayout && baseName(file) === UNNAMED_CSV)
      kind = (await everyRowRated(table, ratingColumn!)) ? 'ratings' : 'watchlist';
    else kind = isWatchlistName(file) ? 'watchlist' : 'list';
    return { table, kind, ratingColumn, dateColumn };
  }
  const dateColumn = columnOf(header, 'date rated', 'date added');
  if (ratingColumn === null || dateColumn === null) {
    const missing = [
      ...(ratingColumn === null ? ['Your Rating'] : []),
      ...(dateColumn === null ? ['Date Rated'] : []),
    ];
    throw new ImportFileError(
      `${file.name} lacks the column${missing.length === 1 ? '' : 's'} ${missing.join(', ')}: it is neither IMDb's ratings export (Const,Your Rating,Date Rated,…) nor a list (Position,Const,Created,…) (its header: ${header.join(',')})`,
    );
  }
  return { table, kind: 'ratings', ratingColumn, dateColumn };
}

/** A 2017 list sent without a name is the ratings when every row carries a rating of the user's. */
async function everyRowRated(table: CsvTable, ratingColumn: string): Promise<boolean> {
  let rows = 0;
  for await (const record of csvRecords(table)) {
    if (record.get(ratingColumn) === '') return false;
    rows += 1;
  }
  return rows > 0;
}

/** A list's rows, counted as skipped by what they are. */
async function countList({ table, ratingColumn }: ImdbTable, out: ImportOutput) {
  for await (const record of csvRecords(table)) {
    const type = titleType(record);
    out.skip(type.skipped === null ? 'movies on IMDb lists' : `${type.skipped} on IMDb lists`);
    if (ratingColumn !== null && record.get(ratingColumn) !== '') out.skip(RATINGS_IN_LISTS);
  }
}

async function readTable(
  { table, kind, ratingColumn, dateColumn }: ImdbTable,
  context: { timezone: string; today: string },
  out: ImportOutput,
) {
  const order = await slashOrderOfColumn(table, dateColumn);
  for await (const record of csvRecords(table)) {
    const at = { file: table.file.name, line: record.line };
    readRow(
      out,
      at,
      record,
      () => {
        const type = titleType(record);
        if (type.skipped !== null) {
          out.skip(
            kind === 'ratings' ? `ratings of ${type.skipped}` : `${type.skipped} on the IMDb watchlist`,
          );
          return;
        }
        const movie = movieOf(record);
        const day = dayOf(dateColumn, record.get(dateColumn), context.today, order);
        if (kind === 'ratings') {
          const rating = optionalRating(ratingColumn!, record.get(ratingColumn!), 'ten');
          if (rating === undefined) throw new RowError(`${ratingColumn} is empty: the row has no rating`);
          out.row({
            ...at,
            kind: 'rating',
            movie,
            rating,
            ...(day && { ratedAt: noonIn(day, context.timezone) }),
          });
        } else {
          out.row({
            ...at,
            kind: 'watchlist',
            movie,
            ...(day && { addedAt: noonIn(day, context.timezone) }),
          });
          if (ratingColumn !== null && record.get(ratingColumn) !== '') out.skip(RATINGS_IN_LISTS);
        }
      },
      'Title',
      'Year',
    );
  }
}

function movieOf(record: CsvRecord): MovieRef {
  const imdbId = optionalImdbId('Const', record.get('Const'));
  if (imdbId === undefined) throw new RowError('Const is empty: the row names no IMDb title');
  return { imdbId, title: record.get('Title') || undefined, year: yearOf(record) };
}

/**
 * The film's year: `Year`, else the year of its release date (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`). Only a
 * hint for a title the id does not find, so one that cannot be read is left out, not refused.
 */
function yearOf(record: CsvRecord): number | undefined {
  const release = /^(\d{4})(-\d{2}){0,2}$/.exec(
    record.get('Release Date') || record.get('Release Date (month/day/year)'),
  );
  for (const value of [record.get('Year'), release?.[1] ?? '']) {
    try {
      const year = optionalYear('Year', value);
      if (year !== undefined) return year;
    } catch {
      // not a year: the next, or none
    }
  }
  return undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** The 2017 layout's dates, C's asctime: `Mon Sep  1 13:55:45 2014`. */
const ASCTIME = /^[A-Za-z]{3} +([A-Za-z]{3}) +(\d{1,2}) +\d{1,2}:\d{2}:\d{2} +(\d{4})$/;

/**
 * A row's day: `YYYY-MM-DD`, 2017's `Mon Sep  1 13:55:45 2014`, or a spreadsheet's re-saved numeric
 * date (`1/31/2024`, `31.01.2024`) in the file's order; not in the future, not before film.
 */
function dayOf(column: string, value: string, today: string, order: SlashOrder): string | null {
  const asctime = ASCTIME.exec(value);
  const month = asctime ? MONTHS.indexOf(asctime[1]!.toLowerCase()) + 1 : 0;
  if (asctime && month > 0) {
    const iso = `${asctime[3]}-${String(month).padStart(2, '0')}-${asctime[2]!.padStart(2, '0')}`;
    try {
      return dayOfRecord(column, iso, today);
    } catch (error) {
      throw error instanceof RowError ? new RowError(`${column} is "${value}": ${reasonOf(error)}`) : error;
    }
  }
  return dayOfRecord(column, value, today, order);
}

const reasonOf = (error: RowError) => error.message.replace(/^.*?(: |, )/, '');

/**
 * How the file writes numeric dates, found from all of them (a first pass over the date column that
 * stops at the first date that tells): a first number above 12 means day first, a second month first.
 * An export as IMDb writes it (ISO dates) stops at its first row. When no date tells, month first:
 * IMDb is American, and so is the spreadsheet that re-saved it, most likely.
 */
async function slashOrderOfColumn(table: CsvTable, column: string): Promise<SlashOrder> {
  for await (const record of csvRecords(table)) {
    const value = record.get(column);
    if (value === '') continue;
    if (!/^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/.test(value)) return 'mdy';
    const order = slashOrderOf([value]);
    if (order) return order;
  }
  return 'mdy';
}

/** A row's kind of title: `skipped` names those cinelog does not keep (null: a movie, kept). */
function titleType(record: CsvRecord): { skipped: string | null } {
  const type = record
    .get('Title Type')
    .toLowerCase()
    .replace(/[\s_.-]+/g, '');
  return { skipped: SKIPPED_TYPES[type] ?? null };
}

/**
 * The types cinelog does not keep, each with the phrase it is counted under. Every other type is a
 * movie (IMDb's `movie`, `Feature Film`, `tvMovie`, `video`, `short`, `documentary`, `tvShort`, an empty
 * or unknown type): its IMDb id is asked at TMDB, which finds only movies.
 */
const SKIPPED_TYPES: Record<string, string> = {
  tvepisode: 'TV episodes',
  episode: 'TV episodes',
  tvseries: 'TV series',
  series: 'TV series',
  tvminiseries: 'TV mini series',
  miniseries: 'TV mini series',
  tvspecial: 'TV specials',
  videogame: 'video games',
  podcastseries: 'podcasts',
  podcastepisode: 'podcasts',
  musicvideo: 'music videos',
};
