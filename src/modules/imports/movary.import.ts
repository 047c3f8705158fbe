import {
  ImportFileError,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
} from './import.types.js';
import { baseName, type CsvRecord, csvHeader, csvRecords, type ImportFile } from './import-files.js';
import {
  badCell,
  noonIn,
  optionalDate,
  optionalId,
  optionalImdbId,
  optionalRating,
  optionalText,
  optionalYear,
} from './import-values.js';

// Movary's CSV exports (Settings → Data → export): each file is recognised by its header.
//   history:   title,year,tmdbId,imdbId,watchedAt,comment,location   one line per play
//   ratings:   title,year,tmdbId,imdbId,userRating
//   watchlist: title,year,tmdbId,imdbId,addedAt

const MOVIE_COLUMNS = ['title', 'tmdbId'] as const;

export function parseMovary(files: readonly ImportFile[], context: ParseContext): ParsedImport {
  const rows: ImportRow[] = [];
  let recognised = 0;
  for (const file of files.filter((f) => baseName(f).endsWith('.csv'))) {
    const header = csvHeader(file) ?? [];
    if (header.includes('watchedAt')) {
      recognised += 1;
      for (const record of csvRecords(file, [...MOVIE_COLUMNS, 'watchedAt'])) {
        const at = { file: file.name, line: record.line };
        rows.push({
          ...at,
          kind: 'play',
          movie: movieOf(file, record),
          watchedAt: optionalDate(at, 'watchedAt', record.get('watchedAt')),
          plays: 1,
          comment: optionalText(record.get('comment')),
        });
      }
    } else if (header.includes('userRating') || header.includes('rating')) {
      recognised += 1;
      const column = header.includes('userRating') ? 'userRating' : 'rating';
      for (const record of csvRecords(file, [...MOVIE_COLUMNS, column])) {
        const at = { file: file.name, line: record.line };
        const rating = optionalRating(at, column, record.get(column), 'ten');
        if (rating !== undefined) rows.push({ ...at, kind: 'rating', movie: movieOf(file, record), rating });
      }
    } else if (header.includes('addedAt')) {
      recognised += 1;
      for (const record of csvRecords(file, [...MOVIE_COLUMNS, 'addedAt'])) {
        const at = { file: file.name, line: record.line };
        const added = optionalDate(at, 'addedAt', record.get('addedAt'));
        rows.push({
          ...at,
          kind: 'watchlist',
          movie: movieOf(file, record),
          addedAt: added ? noonIn(added, context.timezone) : undefined,
        });
      }
    }
  }
  if (recognised === 0) {
    throw new ImportFileError(
      'found no Movary export: expected CSV files with the header title,year,tmdbId,imdbId,watchedAt,comment,location (history), …,userRating (ratings) or …,addedAt (watchlist)',
    );
  }
  return { rows };
}

function movieOf(file: ImportFile, record: CsvRecord): MovieRef {
  const at = { file: file.name, line: record.line };
  const movie: MovieRef = {
    tmdbId: optionalId(at, 'tmdbId', record.get('tmdbId')),
    imdbId: optionalImdbId(at, 'imdbId', record.get('imdbId')),
    title: optionalText(record.get('title')) ?? undefined,
    year: optionalYear(at, 'year', record.get('year')),
  };
  if (movie.tmdbId === undefined && movie.imdbId === undefined && movie.title === undefined) {
    throw badCell(at, 'tmdbId', '', 'a TMDB id (the line names no movie)');
  }
  return movie;
}
