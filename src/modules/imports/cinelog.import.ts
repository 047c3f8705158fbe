import { isCalendarDate } from '../../shared/dates.js';
import { ImportFileError, type ImportRow, type MovieRef, type ParsedImport } from './import.types.js';
import { type ImportFile, textOf } from './import-files.js';

// cinelog's own export (`cinelog export --format json`, docs/imports-exports.md): read back whole.
// Webhooks are not recreated: their addresses are secrets the export leaves out.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseCinelog(files: readonly ImportFile[]): ParsedImport {
  const candidates = files.filter((file) => file.name.toLowerCase().endsWith('.json'));
  const file = candidates.length === 1 ? candidates[0] : files.length === 1 ? files[0] : undefined;
  if (!file) throw new ImportFileError('expected one cinelog export (.json file)');
  let data: unknown;
  try {
    data = JSON.parse(textOf(file));
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`${file.name} is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(data) || data.format !== 'cinelog') {
    throw new ImportFileError(`${file.name} is not a cinelog export (no "format": "cinelog")`);
  }
  if (data.version !== 1)
    throw new ImportFileError(`${file.name} is a cinelog export of unknown version ${String(data.version)}`);

  const fail = (section: string, index: number, what: string) =>
    new ImportFileError(`${file.name}: ${section}[${index}] ${what}`);
  const list = (section: string) => {
    const value = data[section] ?? [];
    if (!Array.isArray(value)) throw new ImportFileError(`${file.name}: ${section} is not a list`);
    return value.map((item, index) => {
      if (!isObject(item)) throw fail(section, index, 'is not an object');
      return { item, at: { file: file.name, line: index + 1 }, index };
    });
  };
  const movieOf = (section: string, index: number, value: unknown): MovieRef => {
    if (!isObject(value)) throw fail(section, index, 'has no movie');
    const id = (key: string) => {
      const v = value[key];
      if (v === null || v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
        throw fail(section, index, `has a bad movie.${key}`);
      return v;
    };
    const text = (key: string) =>
      typeof value[key] === 'string' && value[key] !== '' ? (value[key] as string) : undefined;
    const ref: MovieRef = {
      tmdbId: id('tmdbId'),
      imdbId: text('imdbId'),
      traktId: id('traktId'),
      letterboxdId: text('letterboxdId'),
      title: text('title'),
      year: id('year'),
    };
    if (ref.tmdbId === undefined && ref.imdbId === undefined && ref.title === undefined)
      throw fail(section, index, 'names no movie');
    return ref;
  };
  const timestamp = (section: string, index: number, value: unknown) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
      throw fail(section, index, 'has a bad timestamp');
    }
    return new Date(value).toISOString();
  };

  const rows: ImportRow[] = [];
  for (const { item, at, index } of list('history')) {
    const { watchedAt, plays, comment, position } = item;
    if (watchedAt !== null && (typeof watchedAt !== 'string' || !isCalendarDate(watchedAt))) {
      throw fail('history', index, 'has a bad watchedAt');
    }
    if (typeof plays !== 'number' || !Number.isInteger(plays) || plays < 1)
      throw fail('history', index, 'has bad plays');
    if (comment !== null && comment !== undefined && typeof comment !== 'string')
      throw fail('history', index, 'has a bad comment');
    if (position !== undefined && (typeof position !== 'number' || !Number.isFinite(position))) {
      throw fail('history', index, 'has a bad position');
    }
    rows.push({
      ...at,
      kind: 'play',
      movie: movieOf('history', index, item.movie),
      watchedAt: watchedAt as string | null,
      plays,
      comment: (comment as string | null | undefined) ?? null,
      position: position as number | undefined,
    });
  }
  for (const { item, at, index } of list('watchlist')) {
    rows.push({
      ...at,
      kind: 'watchlist',
      movie: movieOf('watchlist', index, item.movie),
      addedAt: timestamp('watchlist', index, item.addedAt),
    });
  }
  for (const { item, at, index } of list('ratings')) {
    const rating = item.rating;
    if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 10) {
      throw fail('ratings', index, 'has a bad rating');
    }
    rows.push({
      ...at,
      kind: 'rating',
      movie: movieOf('ratings', index, item.movie),
      rating,
      ratedAt: timestamp('ratings', index, item.ratedAt),
    });
  }
  const user = isObject(data.user) ? data.user : {};
  const settings = {
    timezone: typeof user.timezone === 'string' ? user.timezone : undefined,
    privacy: typeof user.privacy === 'string' ? user.privacy : undefined,
    watchlistAutoRemove: typeof user.watchlistAutoRemove === 'boolean' ? user.watchlistAutoRemove : undefined,
    ratingScale: typeof user.ratingScale === 'string' ? user.ratingScale : undefined,
    publicProfile: typeof user.publicProfile === 'boolean' ? user.publicProfile : undefined,
  };
  return { rows, settings };
}
