import { ratingProblem } from '../library/library.rules.js';
import {
  ImportFileError,
  type ImportOutput,
  type ImportParser,
  type MovieRef,
  type ParseContext,
  RowError,
  type RowSource,
} from './import.types.js';
import { type CsvRecord, type CsvTable, csvRecords, csvTable } from './import-csv.js';
import { baseName, type ImportFile } from './import-files.js';
import { isObject, jsonValues } from './import-json.js';
import { textOf } from './import-text.js';
import {
  badCell,
  describe,
  noonIn,
  optionalImdbId,
  optionalRating,
  optionalYear,
  playCount,
  playDate,
  playDayOf,
} from './import-values.js';

// TV Time's exports, in a .zip or a directory, each file recognised by its content (docs/imports-exports.md).
// TV Time shut down in 2026; its users left with one of these:
//   The GDPR export (a zip of about 50 CSVs). The movies are in tracking-prod-records.csv, a sparse dump
//   whose columns vary between exports (read by name), one record per row:
//     type-uuid-n,entity_type,type,uuid,movie_name,release_date,created_at,…
//     watch-<uuid>-0,movie,watch,<uuid>,Titanic,1998-01-16 00:00:00,2026-07-13 12:17:38,…
//   `type` watch/rewatch is a play at `created_at` (UTC); follow/towatch puts the movie on the watchlist.
//   There is no id: movies are matched by name and the release date's year. Episodes (in the same file,
//   in tracking-prod-records-v2.csv, or in seen_episode.csv of older exports) are counted as skipped.
//   The TV Time Liberator's export (2024–2026, a browser extension): movies.json
//     [{ uuid, id: { tvdb, imdb: "tt…" | "-1" }, title, created_at, is_watched, watched_at?, rewatch_count?, rating }]
//   and activity_history.csv (imdb_id,tvdb_id,type,title,season,episode,is_special,is_watched,watched_at,
//   status,is_watchlisted[,rating]), with favorites.csv and list_<name>.csv in the same columns.

const KNOWN = [
  'type-uuid-n',
  'entity_type',
  'type',
  'uuid',
  'movie_name',
  'series_name',
  'release_date',
  'created_at',
  'updated_at',
  'watch_date',
  'alpha_range_key',
  'key',
  's_id',
  'episode_id',
  'tv_show_name',
  'episode_season_number',
  'tv_show_id',
  'imdb_id',
  'tvdb_id',
  'title',
  'is_watched',
  'watched_at',
  'is_watchlisted',
  'rating',
];

/** Files of the GDPR export that hold secrets (a password hash, tokens, addresses): never opened. */
const SECRET_FILES =
  /^(user|user_personal_data|access_token|refresh_token|auth-prod-login|ip_address|device.*|.*token.*|.*password.*)\.csv$/;

type CsvKind = 'tracking' | 'tracking-v2' | 'seen-episodes' | 'followed-shows' | 'liberator';
type JsonKind = 'liberator-movies' | 'liberator-shows';

const EPISODES = 'TV episodes';
const SHOWS = 'TV shows';

export const parseTvTime: ImportParser = async (files, context, out) => {
  const tables: { table: CsvTable; kind: CsvKind }[] = [];
  const jsons: { file: ImportFile; kind: JsonKind }[] = [];
  const ordered = [...files].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  for (const file of ordered) {
    if (SECRET_FILES.test(baseName(file))) continue;
    const found = await recognise(file);
    if (found && 'table' in found) tables.push(found);
    else if (found) jsons.push(found);
  }
  const of = (kind: CsvKind) => tables.filter((t) => t.kind === kind).map((t) => t.table);
  const gdpr =
    of('tracking').length +
      of('tracking-v2').length +
      of('seen-episodes').length +
      of('followed-shows').length >
    0;
  const liberator = of('liberator').length + jsons.length > 0;
  if (!gdpr && !liberator) {
    throw new ImportFileError(
      'found no TV Time export: expected the CSV files of TV Time’s data export (tracking-prod-records.csv, ' +
        'with the columns entity_type, type, movie_name, release_date and created_at), or a TV Time Liberator ' +
        'export (movies.json, activity_history.csv)',
    );
  }
  if (gdpr) {
    // The export's own files; a Liberator export beside it holds the same movies again.
    const watchlist = new Watchlist();
    for (const table of of('tracking')) await readTracking(table, context, out, watchlist);
    watchlist.flush(out);
    for (const table of of('tracking-v2')) await readTrackingV2(table, out);
    // Older exports have no tracking file: their episodes are in seen_episode.csv, their shows in
    // followed_tv_show.csv.
    if (of('tracking').length + of('tracking-v2').length === 0) {
      for (const table of of('seen-episodes')) await countRows(table, out, EPISODES);
      for (const table of of('followed-shows')) await countRows(table, out, SHOWS);
    }
    return;
  }
  const movieFiles = jsons.filter((j) => j.kind === 'liberator-movies');
  const csvs = of('liberator').map((table) => ({ table, list: listOf(table.file) }));
  const activity = csvs.filter((c) => c.list === 'activity');
  for (const { file } of movieFiles) await readLiberatorMovies(file, context, out);
  for (const { table, list } of csvs) {
    await readLiberatorCsv(table, list, movieFiles.length === 0, context, out);
  }
  // Without activity_history.csv, the shows are counted from shows.json.
  if (activity.length === 0) {
    for (const { file } of jsons.filter((j) => j.kind === 'liberator-shows')) {
      for await (const { value } of jsonValues(file, ['$.*'])) if (isObject(value)) out.skip(SHOWS);
    }
  }
};

/** What a file is, by its header or its first JSON item; null: not TV Time's (or none we read). */
async function recognise(
  file: ImportFile,
): Promise<{ table: CsvTable; kind: CsvKind } | { file: ImportFile; kind: JsonKind } | null> {
  const name = baseName(file);
  const json = name.endsWith('.json');
  const start = await firstCharOf(file, json);
  if (json || start === '[' || start === '{') {
    try {
      if (start === '[') return await liberatorJson(file);
      // Any other JSON (lists.json, favorites.json) is only checked.
      await drain(jsonValues(file, ['$.*']));
      return null;
    } catch (error) {
      // A .json file must be JSON; another file that only starts like it may be a table.
      if (json || !(error instanceof ImportFileError)) throw error;
    }
  }
  let table: CsvTable | null;
  try {
    table = await csvTable(file, KNOWN);
  } catch (error) {
    // A file of another kind in the export (a picture) is not one of its tables.
    if (name.endsWith('.csv') || !(error instanceof ImportFileError)) throw error;
    return null;
  }
  if (!table) return null;
  const header = new Set(table.header.map((column) => column.toLowerCase()));
  const has = (...columns: string[]) => columns.every((column) => header.has(column));
  if (has('entity_type', 'type', 'created_at') && (has('movie_name') || has('series_name'))) {
    return { table, kind: 'tracking' };
  }
  if (has('key', 'created_at') && (has('s_id') || has('episode_id') || has('series_name'))) {
    return { table, kind: 'tracking-v2' };
  }
  if (has('episode_id', 'tv_show_name')) return { table, kind: 'seen-episodes' };
  if (has('tv_show_id', 'tv_show_name')) return { table, kind: 'followed-shows' };
  if (has('imdb_id', 'tvdb_id', 'type', 'title', 'is_watched', 'watched_at')) {
    return { table, kind: 'liberator' };
  }
  return null;
}

/** The first character of the file's text ('' for none); a .json file must be UTF-8. */
async function firstCharOf(file: ImportFile, json: boolean): Promise<string> {
  try {
    for await (const chunk of textOf(file, json)) {
      const text = chunk.trimStart();
      if (text !== '') return text[0]!;
    }
  } catch (error) {
    if (json || !(error instanceof ImportFileError)) throw error;
  }
  return '';
}

/** A Liberator movies.json or shows.json, by its first item; other JSON is read through and left. */
async function liberatorJson(file: ImportFile): Promise<{ file: ImportFile; kind: JsonKind } | null> {
  let kind: JsonKind | null = null;
  for await (const { value } of jsonValues(file, ['$.*'])) {
    if (!isObject(value)) continue;
    if (typeof value.uuid === 'string' && isObject(value.id) && 'is_watched' in value) {
      kind = 'liberator-movies';
    } else if (typeof value.uuid === 'string' && isObject(value.id) && 'seasons' in value) {
      kind = 'liberator-shows';
    }
    break;
  }
  if (kind === null) await drain(jsonValues(file, ['$.*']));
  return kind && { file, kind };
}

async function drain(values: AsyncIterable<unknown>) {
  for await (const _value of values) {
    // Nothing kept: the file is only checked to be JSON.
  }
}

// The GDPR export.

/**
 * The movies on the watchlist: followed (`follow`, `towatch`) and never watched. TV Time follows a
 * movie you mark as watched, so the follow of a watched movie is no watchlist entry.
 */
class Watchlist {
  private readonly watched = new Set<string>();
  private readonly wanted: { at: RowSource; movie: MovieRef; addedAt: string | undefined; keys: string[] }[] =
    [];

  played(keys: string[]) {
    for (const key of keys) this.watched.add(key);
  }

  add(at: RowSource, movie: MovieRef, addedAt: string | undefined, keys: string[]) {
    this.wanted.push({ at, movie, addedAt, keys });
  }

  flush(out: ImportOutput) {
    for (const { at, movie, addedAt, keys } of this.wanted) {
      if (!keys.some((key) => this.watched.has(key))) out.row({ ...at, kind: 'watchlist', movie, addedAt });
    }
    this.wanted.length = 0;
  }
}

async function readTracking(table: CsvTable, context: ParseContext, out: ImportOutput, watchlist: Watchlist) {
  for await (const record of csvRecords(table)) {
    const at = { file: table.file.name, line: record.line };
    try {
      // The export's totals (count-watch-movie, time-count) are no records of their own.
      if (/^(count-|time-count)/.test(record.get('type-uuid-n'))) continue;
      if (record.problem) throw new RowError(record.problem);
      const entity = record.get('entity_type').toLowerCase();
      const type = record.get('type').toLowerCase();
      if (entity === '') continue; // other totals
      if (entity !== 'movie') {
        if (type === 'rewatch_count') continue;
        out.skip(
          entity === 'episode'
            ? EPISODES
            : entity === 'series' || entity === 'show'
              ? SHOWS
              : 'other TV Time records',
        );
        continue;
      }
      // `rewatch_count` repeats the last rewatch's row.
      if (type === 'rewatch_count') continue;
      if (type !== 'watch' && type !== 'rewatch' && type !== 'follow' && type !== 'towatch') {
        out.skip('other TV Time movie records');
        continue;
      }
      const movie = trackedMovie(record);
      const uuid = record.get('uuid');
      const keys = [
        `title:${movie.title!.toLowerCase()}|${movie.year ?? ''}`,
        ...(uuid ? [`uuid:${uuid}`] : []),
      ];
      if (type === 'watch' || type === 'rewatch') {
        const when = record.get('watch_date') || record.get('created_at');
        const column = record.get('watch_date') ? 'watch_date' : 'created_at';
        const watchedAt = when === '' ? null : dayOf(column, when, context);
        watchlist.played(keys);
        out.row({ ...at, kind: 'play', movie, watchedAt, plays: 1, comment: null });
      } else {
        const created = record.get('created_at');
        const addedAt = created === '' ? undefined : momentOf('created_at', created, context);
        watchlist.add(at, movie, addedAt, keys);
      }
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      out.unreadable(at, error.message, {
        title: record.get('movie_name') || undefined,
        year: Number(record.get('release_date').slice(0, 4)) || undefined,
      });
    }
  }
}

/** A movie of the tracking file: its name and the year of its release date. */
function trackedMovie(record: CsvRecord): MovieRef {
  // Movies added in bulk at sign-up have no name: the alphabetical key keeps it (`watch-alpha-dumbo`).
  const slug = /-alpha-(.+)$/.exec(record.get('alpha_range_key'))?.[1];
  const title = record.get('movie_name') || slug?.replace(/-/g, ' ').trim();
  if (!title) throw new RowError('movie_name is empty: the row names no movie');
  return { title, year: releaseYear(record.get('release_date')) };
}

/** The year of `release_date`; none when TV Time did not know it (`0000-…`, `0001-01-01`). */
function releaseYear(value: string): number | undefined {
  if (value === '' || /^000[01]-/.test(value)) return undefined;
  const year = /^(\d{4})-\d{2}-\d{2}/.exec(value)?.[1];
  if (!year) throw badCell('release_date', value, 'a date (YYYY-MM-DD)');
  return optionalYear('release_date', year);
}

/** tracking-prod-records-v2.csv: episodes watched (`watch-episode-…`) and shows followed (`user-series-…`). */
async function readTrackingV2(table: CsvTable, out: ImportOutput) {
  for await (const record of csvRecords(table)) {
    const key = record.get('key').toLowerCase();
    if (/^(re)?watch-episode-/.test(key)) out.skip(EPISODES);
    else if (key.startsWith('user-series-')) out.skip(SHOWS);
  }
}

async function countRows(table: CsvTable, out: ImportOutput, what: string) {
  for await (const _record of csvRecords(table)) out.skip(what);
}

// The TV Time Liberator's export.

type LiberatorList = 'activity' | 'favourites' | 'list';

/** Which of the Liberator's CSVs (all in the same columns) this is: only its name tells. */
function listOf(file: ImportFile): LiberatorList {
  const name = baseName(file);
  if (/^favou?rites?\b/.test(name)) return 'favourites';
  if (/^list_/.test(name)) return 'list';
  return 'activity';
}

async function readLiberatorMovies(file: ImportFile, context: ParseContext, out: ImportOutput) {
  for await (const { key, value } of jsonValues(file, ['$.*'])) {
    const at = { file: file.name, line: typeof key === 'number' ? key + 1 : 0 };
    try {
      if (!isObject(value)) throw new RowError(`item ${at.line} is ${describe(value)}, not an object`);
      const ids = value.id ?? {};
      if (!isObject(ids)) throw new RowError(`id is ${describe(ids)}, not an object`);
      const movie = liberatorMovie(value.title, ids.imdb);
      // Every cell is read before any row is given: an unreadable item adds nothing.
      const rating = value.rating ?? undefined;
      if (rating !== undefined && (typeof rating !== 'number' || ratingProblem(rating))) {
        throw new RowError(`rating is ${describe(rating)}: ${ratingProblem(Number.NaN)}`);
      }
      if (value.is_watched === true) {
        // Watched once, and again `rewatch_count` times.
        const rewatches = value.rewatch_count ?? 0;
        const plays = rewatches === 0 ? 1 : playCount('rewatch_count', rewatches) + 1;
        const watchedAt =
          value.watched_at === undefined || value.watched_at === null
            ? null
            : dayOf('watched_at', textCell('watched_at', value.watched_at), context);
        watchedPlays(out, at, movie, watchedAt, plays);
      } else if (value.is_watched === false) {
        const created = value.created_at;
        out.row({
          ...at,
          kind: 'watchlist',
          movie,
          addedAt:
            created === undefined || created === null
              ? undefined
              : momentOf('created_at', textCell('created_at', created), context),
        });
      } else {
        throw badCell('is_watched', describe(value.is_watched), 'true or false');
      }
      if (typeof rating === 'number') out.row({ ...at, kind: 'rating', movie, rating });
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      out.unreadable(at, error.message, {
        title: isObject(value) && typeof value.title === 'string' ? value.title : undefined,
      });
    }
  }
}

/**
 * The rows of a Liberator CSV. activity_history.csv: its movies (when there is no movies.json, which
 * holds them too, with rewatches) and its episodes and shows, counted. Favourites and lists: counted.
 */
async function readLiberatorCsv(
  table: CsvTable,
  list: LiberatorList,
  movies: boolean,
  context: ParseContext,
  out: ImportOutput,
) {
  for await (const record of csvRecords(table)) {
    const at = { file: table.file.name, line: record.line };
    try {
      if (record.problem) throw new RowError(record.problem);
      const type = record.get('type').toLowerCase();
      const episode = type === 'episode' || (type === 'show' && record.get('episode') !== '');
      if (list === 'favourites') {
        if (!episode) out.skip('TV Time favourites');
        continue;
      }
      if (type !== 'movie') {
        if (list === 'activity') out.skip(episode ? EPISODES : SHOWS);
        else if (!episode) out.skip('TV shows on TV Time lists');
        continue;
      }
      if (list === 'list') {
        out.skip('movies on TV Time lists');
        continue;
      }
      if (!movies) continue;
      const movie = liberatorMovie(record.get('title'), record.get('imdb_id'));
      const rating = optionalRating('rating', record.get('rating'), 'ten');
      if (yes('is_watched', record.get('is_watched'))) {
        const when = record.get('watched_at');
        watchedPlays(out, at, movie, when === '' ? null : dayOf('watched_at', when, context), 1);
      } else if (yes('is_watchlisted', record.get('is_watchlisted'))) {
        out.row({ ...at, kind: 'watchlist', movie });
      }
      if (rating !== undefined) out.row({ ...at, kind: 'rating', movie, rating });
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      out.unreadable(at, error.message, { title: record.get('title') || undefined });
    }
  }
}

/** A Liberator movie: its IMDb id (`-1` for none) and its title, never with a year. */
function liberatorMovie(title: unknown, imdb: unknown): MovieRef {
  if (title !== undefined && title !== null && typeof title !== 'string') {
    throw new RowError(`title is ${describe(title)}, not text`);
  }
  if (imdb !== undefined && imdb !== null && typeof imdb !== 'string') {
    throw badCell('imdb', describe(imdb), 'an IMDb id (tt…)');
  }
  const imdbId = imdb === '-1' ? undefined : optionalImdbId('imdb', (imdb ?? '').trim());
  const name = (title ?? '').trim();
  if (imdbId === undefined && name === '') throw new RowError('it names no movie (no IMDb id, no title)');
  return { imdbId, title: name || undefined, titleOnly: true };
}

/** `plays` plays of a movie: the last on its day (when known), the others on no known date. */
function watchedPlays(out: ImportOutput, at: RowSource, movie: MovieRef, day: string | null, plays: number) {
  if (day === null) {
    out.row({ ...at, kind: 'play', movie, watchedAt: null, plays, comment: null });
    return;
  }
  out.row({ ...at, kind: 'play', movie, watchedAt: day, plays: 1, comment: null });
  if (plays > 1) out.row({ ...at, kind: 'play', movie, watchedAt: null, plays: plays - 1, comment: null });
}

function yes(column: string, value: string): boolean {
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0|)$/i.test(value)) return false;
  throw badCell(column, value, 'true or false');
}

function textCell(column: string, value: unknown): string {
  if (typeof value !== 'string') throw badCell(column, describe(value), 'a date and time');
  return value;
}

// Dates. TV Time writes instants in UTC, as `2026-07-13 12:17:38` (the GDPR export, older Liberators),
// `2024-09-13T10:50:29.147929Z` or `2024-09-13T10:50:29.147Z`; a watch_date may be Unix seconds.

const UTC_MOMENT = /^(\d{4}-\d{2}-\d{2})[ T](\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)(Z|[+-]\d{2}:?\d{2}| UTC)?$/;

/** The instant a cell gives, or a day when it gives only one (`2024-09-13`). */
function momentOrDay(column: string, value: string): Date | string {
  const parts = UTC_MOMENT.exec(value);
  if (parts) {
    const zone =
      parts[5] === undefined || parts[5] === ' UTC' ? 'Z' : parts[5].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
    const time = /^\d:/.test(parts[2]!) ? `0${parts[2]}` : parts[2];
    const moment = new Date(`${parts[1]}T${time}${zone}`);
    if (!Number.isNaN(moment.getTime())) return moment;
  } else if (/^\d{9,11}$/.test(value)) {
    return new Date(Number(value) * 1000);
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return value;
  }
  throw badCell(column, value, 'a date and time');
}

/** The day of a play, in the user's zone. */
function dayOf(column: string, value: string, context: ParseContext): string {
  const moment = momentOrDay(column, value);
  if (typeof moment === 'string') return playDate(column, moment, context.today)!;
  return playDayOf(column, moment, context.timezone, context.today);
}

/** A watchlist entry's instant, on a day a play could be on. */
function momentOf(column: string, value: string, context: ParseContext): string {
  const moment = momentOrDay(column, value);
  if (typeof moment === 'string') {
    playDate(column, moment, context.today);
    return noonIn(moment, context.timezone);
  }
  playDayOf(column, moment, context.timezone, context.today);
  return moment.toISOString();
}
