import { ImportFileError, type ImportParser, type MovieRef } from './import.types.js';
import { type CsvRecord, csvRecords, csvTable, readRow } from './import-csv.js';
import type { ImportFile } from './import-files.js';
import {
  badCell,
  dayOfRecord,
  noonIn,
  optionalId,
  optionalImdbId,
  optionalRating,
  optionalText,
  optionalYear,
  playDate,
} from './import-values.js';

// Movary's CSV exports (Settings → Data → export, or `user:export:*`): each file is recognised by its
// header, whatever its name; a zip or a directory of them is one import.
//   history:   title,year,tmdbId,imdbId,watchedAt,comment,location   one line per play
//   ratings:   title,year,tmdbId,imdbId,userRating
//   watchlist: title,year,tmdbId,imdbId,addedAt

const MOVIE_COLUMNS = ['title', 'tmdbId'] as const;
const KNOWN = [
  'title',
  'year',
  'tmdbId',
  'imdbId',
  'watchedAt',
  'comment',
  'location',
  'userRating',
  'rating',
  'addedAt',
];

type Kind = 'history' | 'ratings' | 'watchlist';

export const parseMovary: ImportParser = async (files, context, out) => {
  // Every file is recognised before any is read: a batch with one file that is no Movary export (a
  // ratings.csv with the wrong columns) is refused whole.
  const tables: { table: NonNullable<Awaited<ReturnType<typeof csvTable>>>; kind: Kind }[] = [];
  for (const file of files) {
    const table = await csvTable(file, KNOWN);
    const kind = table ? kindOf(table.header) : null;
    if (table && kind) {
      const missing = [...MOVIE_COLUMNS, columnOf(kind, table.header)].filter(
        (column) => !table.header.includes(column),
      );
      if (missing.length > 0) throw lacks(file, missing, table.header);
      tables.push({ table, kind });
    } else if (isCsvName(file)) {
      throw new ImportFileError(
        `${file.name} is not a Movary export: its header is ${table ? table.header.join(',') : 'missing'} (expected title,year,tmdbId,imdbId and watchedAt, userRating or addedAt)`,
      );
    }
  }
  if (tables.length === 0) {
    throw new ImportFileError(
      'found no Movary export: expected CSV files with the header title,year,tmdbId,imdbId,watchedAt,comment,location (history), …,userRating (ratings) or …,addedAt (watchlist)',
    );
  }
  for (const { table, kind } of tables) {
    const column = columnOf(kind, table.header);
    for await (const record of csvRecords(table)) {
      const at = { file: table.file.name, line: record.line };
      readRow(out, at, record, () => {
        const movie = movieOf(record);
        if (kind === 'history') {
          out.row({
            ...at,
            kind: 'play',
            movie,
            watchedAt: playDate('watchedAt', record.get('watchedAt'), context.today),
            plays: 1,
            comment: optionalText(record.raw('comment')),
          });
        } else if (kind === 'ratings') {
          const rating = optionalRating(column, record.get(column), 'ten');
          if (rating !== undefined) out.row({ ...at, kind: 'rating', movie, rating });
        } else {
          const added = dayOfRecord('addedAt', record.get('addedAt'), context.today);
          out.row({
            ...at,
            kind: 'watchlist',
            movie,
            addedAt: added ? noonIn(added, context.timezone) : undefined,
          });
        }
      });
    }
  }
};

function kindOf(header: readonly string[]): Kind | null {
  if (header.includes('watchedAt')) return 'history';
  if (header.includes('userRating') || header.includes('rating')) return 'ratings';
  if (header.includes('addedAt')) return 'watchlist';
  return null;
}

const columnOf = (kind: Kind, header: readonly string[]) =>
  kind === 'history'
    ? 'watchedAt'
    : kind === 'watchlist'
      ? 'addedAt'
      : header.includes('userRating')
        ? 'userRating'
        : 'rating';

const isCsvName = (file: ImportFile) => file.name.toLowerCase().endsWith('.csv');

const lacks = (file: ImportFile, missing: readonly string[], header: readonly string[]) =>
  new ImportFileError(
    `${file.name} lacks the column${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (its header: ${header.join(',') || 'none'})`,
  );

function movieOf(record: CsvRecord): MovieRef {
  const movie: MovieRef = {
    tmdbId: optionalId('tmdbId', record.get('tmdbId')),
    imdbId: optionalImdbId('imdbId', record.get('imdbId')),
    title: optionalText(record.get('title')) ?? undefined,
    year: optionalYear('year', record.get('year')),
  };
  if (movie.tmdbId === undefined && movie.imdbId === undefined && movie.title === undefined) {
    throw badCell('tmdbId', '', 'a TMDB id (the line names no movie)');
  }
  return movie;
}
