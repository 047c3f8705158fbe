import {
  ImportFileError,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
} from './import.types.js';
import { baseName, type ImportFile, textOf } from './import-files.js';
import { badCell, dateIn, instant } from './import-values.js';

// The JSON of Trakt's sync endpoints as export tools save it, in a .zip or a directory. Each file is
// recognised by its content, whatever its name; shows and episodes are left out.
//   history:   [{ watched_at, action, type: "movie", movie: { title, year, ids: { trakt, slug, imdb, tmdb } } }]
//   ratings:   [{ rated_at, rating, type: "movie", movie }]
//   watchlist: [{ listed_at, type: "movie", movie }]

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseTrakt(files: readonly ImportFile[], context: ParseContext): ParsedImport {
  const rows: ImportRow[] = [];
  let recognised = 0;
  for (const file of files.filter((f) => baseName(f).endsWith('.json'))) {
    let items: unknown;
    try {
      items = JSON.parse(textOf(file));
    } catch (error) {
      if (error instanceof ImportFileError) throw error;
      throw new ImportFileError(`${file.name} is not valid JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(items) || items.length === 0 || !items.every(isObject)) continue;
    const first = items[0] as Json;
    const kind =
      'watched_at' in first
        ? 'history'
        : 'rated_at' in first && 'rating' in first
          ? 'ratings'
          : 'listed_at' in first
            ? 'watchlist'
            : null;
    if (kind === null) continue;
    recognised += 1;
    items.forEach((item, index) => {
      // One item per line, as the tools pretty-print them: the index is the closest to a line.
      const at = { file: file.name, line: index + 1 };
      if ((item.type !== undefined && item.type !== 'movie') || !isObject(item.movie)) return;
      const movie = movieOf(at, item.movie);
      if (kind === 'history') {
        if (item.action !== undefined && !['watch', 'scrobble', 'checkin'].includes(String(item.action)))
          return;
        const watchedAt = dateIn(instant(at, 'watched_at', item.watched_at), context.timezone);
        rows.push({ ...at, kind: 'play', movie, watchedAt, plays: 1, comment: null });
      } else if (kind === 'ratings') {
        const rating = item.rating;
        if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 10) {
          throw badCell(at, 'rating', String(rating), 'a rating from 1 to 10');
        }
        const ratedAt = instant(at, 'rated_at', item.rated_at).toISOString();
        rows.push({ ...at, kind: 'rating', movie, rating, ratedAt });
      } else {
        const addedAt = instant(at, 'listed_at', item.listed_at).toISOString();
        rows.push({ ...at, kind: 'watchlist', movie, addedAt });
      }
    });
  }
  if (recognised === 0) {
    throw new ImportFileError(
      'found no Trakt export: expected JSON files of history (watched_at), ratings (rated_at, rating) or watchlist (listed_at) items',
    );
  }
  return { rows };
}

function movieOf(at: { file: string; line: number }, movie: Json): MovieRef {
  const ids = isObject(movie.ids) ? movie.ids : {};
  const id = (value: unknown, name: string) => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      throw badCell(at, name, String(value), 'a numeric id');
    return value;
  };
  const imdb = typeof ids.imdb === 'string' && /^tt\d{5,12}$/.test(ids.imdb) ? ids.imdb : undefined;
  const ref: MovieRef = {
    tmdbId: id(ids.tmdb, 'movie.ids.tmdb'),
    imdbId: imdb,
    traktId: id(ids.trakt, 'movie.ids.trakt'),
    title: typeof movie.title === 'string' && movie.title.trim() !== '' ? movie.title.trim() : undefined,
    year: typeof movie.year === 'number' && Number.isInteger(movie.year) ? movie.year : undefined,
  };
  if (ref.tmdbId === undefined && ref.imdbId === undefined && ref.title === undefined) {
    throw badCell(at, 'movie', JSON.stringify(movie).slice(0, 40), 'a movie with ids or a title');
  }
  return ref;
}
