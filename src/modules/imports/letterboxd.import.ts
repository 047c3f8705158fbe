import {
  ImportFileError,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
} from './import.types.js';
import { baseName, type CsvRecord, csvRecords, type ImportFile } from './import-files.js';
import {
  badCell,
  noonIn,
  optionalDate,
  optionalRating,
  optionalText,
  optionalYear,
} from './import-values.js';

// Letterboxd's export ZIP (Settings → Import & Export → Export your data). Its rows carry no TMDB or
// IMDb id: they are matched by title and year. Tags and lists are not imported.
//   diary.csv      Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date   one line per entry
//   reviews.csv    the same with Review: the review becomes the comment of that entry
//   watched.csv    Date,Name,Year,Letterboxd URI        seen, on no known date
//   ratings.csv    Date,Name,Year,Letterboxd URI,Rating (0.5-5 stars)
//   watchlist.csv  Date,Name,Year,Letterboxd URI

const FILM_COLUMNS = ['Name', 'Year'] as const;

export function parseLetterboxd(files: readonly ImportFile[], context: ParseContext): ParsedImport {
  const named = (name: string) => files.find((file) => baseName(file) === name);
  const diary = named('diary.csv');
  const reviews = named('reviews.csv');
  const watched = named('watched.csv');
  const ratings = named('ratings.csv');
  const watchlist = named('watchlist.csv');
  if (!diary && !reviews && !watched && !ratings && !watchlist) {
    throw new ImportFileError(
      'found no Letterboxd export: expected diary.csv, watched.csv, ratings.csv, watchlist.csv or reviews.csv (in the export ZIP or a directory)',
    );
  }
  const rows: ImportRow[] = [];

  // A review of a diary entry is on both lists: it gives that entry its comment, not another play.
  const reviewOf = new Map<string, string>();
  const entryKey = (record: CsvRecord, date: string) =>
    `${record.get('Name')}\u0000${record.get('Year')}\u0000${date}`;
  const reviewRows: { record: CsvRecord; file: ImportFile; date: string; review: string }[] = [];
  if (reviews) {
    for (const record of csvRecords(reviews, [...FILM_COLUMNS, 'Review'])) {
      const at = { file: reviews.name, line: record.line };
      const date = watchDateOf(at, record);
      const review = record.get('Review');
      if (date === null || review === '') continue;
      reviewOf.set(entryKey(record, date), review);
      reviewRows.push({ record, file: reviews, date, review });
    }
  }

  const diaryKeys = new Set<string>();
  if (diary) {
    for (const record of csvRecords(diary, [...FILM_COLUMNS, 'Date'])) {
      const at = { file: diary.name, line: record.line };
      const date = watchDateOf(at, record);
      const movie = filmOf(diary, record);
      if (date === null) {
        rows.push({ ...at, kind: 'watched', movie });
      } else {
        const key = entryKey(record, date);
        diaryKeys.add(key);
        rows.push({
          ...at,
          kind: 'play',
          movie,
          watchedAt: date,
          plays: 1,
          comment: reviewOf.get(key) ?? null,
        });
      }
      const rating = optionalRating(at, 'Rating', record.get('Rating'), 'half-stars');
      // The diary's ratings first: ratings.csv, read after, holds the film's current one.
      if (rating !== undefined) {
        rows.push({
          ...at,
          kind: 'rating',
          movie,
          rating,
          ...(date && { ratedAt: noonIn(date, context.timezone) }),
        });
      }
    }
  }
  for (const { record, file, date, review } of reviewRows) {
    if (diaryKeys.has(entryKey(record, date))) continue;
    rows.push({
      file: file.name,
      line: record.line,
      kind: 'play',
      movie: filmOf(file, record),
      watchedAt: date,
      plays: 1,
      comment: review,
    });
  }
  if (watched) {
    for (const record of csvRecords(watched, FILM_COLUMNS)) {
      rows.push({ file: watched.name, line: record.line, kind: 'watched', movie: filmOf(watched, record) });
    }
  }
  if (ratings) {
    for (const record of csvRecords(ratings, [...FILM_COLUMNS, 'Rating'])) {
      const at = { file: ratings.name, line: record.line };
      const rating = optionalRating(at, 'Rating', record.get('Rating'), 'half-stars');
      const date = optionalDate(at, 'Date', record.get('Date'));
      if (rating === undefined) continue;
      rows.push({
        ...at,
        kind: 'rating',
        movie: filmOf(ratings, record),
        rating,
        ...(date && { ratedAt: noonIn(date, context.timezone) }),
      });
    }
  }
  if (watchlist) {
    for (const record of csvRecords(watchlist, FILM_COLUMNS)) {
      const at = { file: watchlist.name, line: record.line };
      const date = optionalDate(at, 'Date', record.get('Date'));
      rows.push({
        ...at,
        kind: 'watchlist',
        movie: filmOf(watchlist, record),
        ...(date && { addedAt: noonIn(date, context.timezone) }),
      });
    }
  }
  return { rows };
}

/** The day watched: `Watched Date`, else the day it was logged (`Date`); null when neither. */
function watchDateOf(at: { file: string; line: number }, record: CsvRecord): string | null {
  return (
    optionalDate(at, 'Watched Date', record.get('Watched Date')) ??
    optionalDate(at, 'Date', record.get('Date'))
  );
}

function filmOf(file: ImportFile, record: CsvRecord): MovieRef {
  const at = { file: file.name, line: record.line };
  const title = optionalText(record.get('Name'));
  if (title === null) throw badCell(at, 'Name', '', 'a film title');
  return {
    title,
    year: optionalYear(at, 'Year', record.get('Year')),
    letterboxdId: slugOf(record.get('Letterboxd URI')),
  };
}

/** The film's slug from a `letterboxd.com/film/<slug>/` address; short `boxd.it` links name no film. */
function slugOf(uri: string): string | undefined {
  const match = /^https?:\/\/(?:www\.)?letterboxd\.com\/(?:[^/]+\/)?film\/([a-z0-9-]{1,200})\/?/i.exec(uri);
  return match?.[1]?.toLowerCase();
}
