import { ImportFileError, type ImportRow, type ParseContext, type ParsedImport } from './import.types.js';
import { baseName, csvHeader, csvRecords, type ImportFile } from './import-files.js';
import {
  noonIn,
  optionalDate,
  optionalImdbId,
  optionalRating,
  optionalText,
  optionalYear,
} from './import-values.js';

// IMDb's CSV exports, recognised by their header; IMDb ids are resolved through TMDB's /find.
//   ratings:   Const,Your Rating,Date Rated,Title,…,Title Type,…,Year,…
//   watchlist: Position,Const,Created,Modified,Description,Title,…,Title Type,…,Year,…
// Rows of series and episodes (Title Type) are left out.

const MOVIE_TYPES = new Set(['movie', 'tvmovie', 'tv movie', 'video', 'short', 'documentary', '']);

export function parseImdb(files: readonly ImportFile[], context: ParseContext): ParsedImport {
  const rows: ImportRow[] = [];
  let recognised = 0;
  for (const file of files.filter((f) => baseName(f).endsWith('.csv'))) {
    const header = csvHeader(file) ?? [];
    if (!header.includes('Const')) continue;
    recognised += 1;
    const isRatings = header.includes('Your Rating');
    for (const record of csvRecords(file, isRatings ? ['Const', 'Your Rating'] : ['Const'])) {
      const at = { file: file.name, line: record.line };
      if (!MOVIE_TYPES.has(record.get('Title Type').toLowerCase())) continue;
      const imdbId = optionalImdbId(at, 'Const', record.get('Const'));
      if (imdbId === undefined) continue;
      const movie = {
        imdbId,
        title: optionalText(record.get('Title')) ?? undefined,
        year: optionalYear(at, 'Year', record.get('Year')),
      };
      if (isRatings) {
        const rating = optionalRating(at, 'Your Rating', record.get('Your Rating'), 'ten');
        const date = optionalDate(at, 'Date Rated', record.get('Date Rated'));
        if (rating === undefined) continue;
        rows.push({
          ...at,
          kind: 'rating',
          movie,
          rating,
          ...(date && { ratedAt: noonIn(date, context.timezone) }),
        });
      } else {
        const date = optionalDate(at, 'Created', record.get('Created'));
        rows.push({
          ...at,
          kind: 'watchlist',
          movie,
          ...(date && { addedAt: noonIn(date, context.timezone) }),
        });
      }
    }
  }
  if (recognised === 0) {
    throw new ImportFileError(
      'found no IMDb export: expected the ratings or watchlist CSV (with a Const column)',
    );
  }
  return { rows };
}
