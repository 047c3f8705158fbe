import { isCalendarDate } from '../../shared/dates.js';
import {
  LIST_VISIBILITIES,
  type ListVisibility,
  listDescriptionProblem,
  listNameProblem,
  listNoteProblem,
  playDateProblem,
  positionProblem,
  ratingProblem,
  tagProblem,
} from '../library/library.rules.js';
import {
  type ImportedList,
  ImportFileError,
  type ImportOutput,
  type ImportParser,
  type MovieRef,
  RowError,
} from './import.types.js';
import type { ImportFile } from './import-files.js';
import { isObject, jsonValues } from './import-json.js';
import { describe, optionalJsonId, playCount } from './import-values.js';

// cinelog's own export (`cinelog export --format json`, docs/imports-exports.md): read back whole.
// Webhooks are not recreated: their addresses are secrets the export leaves out.

/** The most a position may be (the API's bound). */

const SECTIONS = ['history', 'watchlist', 'ratings', 'likes', 'lists'] as const;

/** The versions read: 1 (plays, watchlist, ratings), 2 (and entries' own values, likes, lists). */
const VERSIONS: readonly unknown[] = [1, 2];

export const parseCinelog: ImportParser = async (files, context, out) => {
  const file = theFile(files);
  let format: unknown;
  let version: unknown;
  let found = false;
  const paths = ['$.format', '$.version', '$.user', ...SECTIONS.map((section) => `$.${section}.*`)];
  for await (const { path, key, value } of jsonValues(file, paths)) {
    found = true;
    if (path === '$.*')
      throw new ImportFileError(`${file.name} is not a cinelog export (no "format": "cinelog")`);
    if (path === '$.format') format = value;
    else if (path === '$.version') version = value;
    else if (path === '$.user') {
      if (isObject(value)) out.settings(settingsOf(value));
    } else {
      const section = path.slice(2, -2) as (typeof SECTIONS)[number];
      if (typeof key !== 'number') throw new ImportFileError(`${file.name}: ${section} is not a list`);
      const at = { file: `${file.name} (${section})`, line: key + 1 };
      if (section === 'lists') {
        readList(value, at, context.today, out);
        continue;
      }
      try {
        if (!isObject(value)) throw new RowError(`${section}[${key}] is ${describe(value)}, not an object`);
        const movie = movieOf(value.movie);
        if (section === 'history') {
          const { watchedAt, plays, comment, position, rating, rewatch, tags } = value;
          if (watchedAt !== null && (typeof watchedAt !== 'string' || !isCalendarDate(watchedAt)))
            throw new RowError(`watchedAt is ${describe(watchedAt)}, not a date (YYYY-MM-DD) or null`);
          const dateProblem = watchedAt === null ? null : playDateProblem(watchedAt, context.today);
          if (dateProblem) throw new RowError(`watchedAt is ${watchedAt}: ${dateProblem}`);
          if (comment !== null && comment !== undefined && typeof comment !== 'string')
            throw new RowError('comment is not text');
          if (position !== undefined && (typeof position !== 'number' || positionProblem(position)))
            throw new RowError(`position is ${describe(position)}: ${positionProblem(Number.NaN)}`);
          out.row({
            ...at,
            kind: 'play',
            movie,
            watchedAt,
            plays: playCount('plays', plays),
            comment: (comment as string | null | undefined) ?? null,
            position,
            ...entryValues(rating, rewatch, tags),
          });
        } else if (section === 'likes') {
          out.row({
            ...at,
            kind: 'like',
            movie,
            likedAt: timestamp('likedAt', value.likedAt, context.today),
          });
        } else if (section === 'watchlist') {
          out.row({
            ...at,
            kind: 'watchlist',
            movie,
            addedAt: timestamp('addedAt', value.addedAt, context.today),
          });
        } else {
          const rating = value.rating;
          if (typeof rating !== 'number' || ratingProblem(rating))
            throw new RowError(`rating is ${describe(rating)}: ${ratingProblem(Number.NaN)}`);
          out.row({
            ...at,
            kind: 'rating',
            movie,
            rating,
            ratedAt: timestamp('ratedAt', value.ratedAt, context.today),
          });
        }
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        out.unreadable(at, error.message, namedOf(value));
      }
    }
  }
  if (!found || format !== 'cinelog') {
    throw new ImportFileError(`${file.name} is not a cinelog export (no "format": "cinelog")`);
  }
  if (!VERSIONS.includes(version)) {
    throw new ImportFileError(`${file.name} is a cinelog export of unknown version ${describe(version)}`);
  }
};

function theFile(files: readonly ImportFile[]): ImportFile {
  const candidates = files.filter((file) => file.name.toLowerCase().endsWith('.json'));
  const file = candidates.length === 1 ? candidates[0] : files.length === 1 ? files[0] : undefined;
  if (!file) throw new ImportFileError('expected one cinelog export (.json file)');
  return file;
}

function movieOf(value: unknown): MovieRef {
  if (!isObject(value)) throw new RowError('it has no movie');
  const text = (key: string) =>
    typeof value[key] === 'string' && value[key] !== '' ? (value[key] as string) : undefined;
  const imdbId = text('imdbId');
  const letterboxdId = text('letterboxdId');
  const ref: MovieRef = {
    tmdbId: optionalJsonId('movie.tmdbId', value.tmdbId),
    imdbId: imdbId && /^tt\d{5,12}$/.test(imdbId) ? imdbId : undefined,
    traktId: optionalJsonId('movie.traktId', value.traktId),
    letterboxdId: letterboxdId && /^[a-z0-9-]{1,200}$/.test(letterboxdId) ? letterboxdId : undefined,
    title: text('title'),
    year: optionalJsonId('movie.year', value.year),
  };
  if (ref.tmdbId === undefined && ref.imdbId === undefined && ref.title === undefined)
    throw new RowError('its movie has no TMDB id, IMDb id or title');
  return ref;
}

/** An ISO timestamp of a rating or a watchlist entry: not after today, not before film. */
function timestamp(column: string, value: unknown, today: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    throw new RowError(`${column} is ${describe(value)}, not a date and time`);
  }
  const iso = new Date(value).toISOString();
  const problem = playDateProblem(iso.slice(0, 10), today);
  // A day's margin: a time just after midnight UTC can be today in the user's zone.
  if (problem && iso.slice(0, 10) > today && Date.parse(iso) - Date.parse(`${today}T23:59:59Z`) < 86_400_000)
    return iso;
  if (problem) throw new RowError(`${column} is ${value}: ${problem}`);
  return iso;
}

function settingsOf(user: Record<string, unknown>) {
  return {
    timezone: typeof user.timezone === 'string' ? user.timezone : undefined,
    privacy: typeof user.privacy === 'string' ? user.privacy : undefined,
    watchlistAutoRemove: typeof user.watchlistAutoRemove === 'boolean' ? user.watchlistAutoRemove : undefined,
    ratingScale: typeof user.ratingScale === 'string' ? user.ratingScale : undefined,
    publicProfile: typeof user.publicProfile === 'boolean' ? user.publicProfile : undefined,
  };
}

/** A history entry's own rating (1-10), rewatch flag (null: derived) and tags, as given. */
function entryValues(rating: unknown, rewatch: unknown, tags: unknown) {
  if (rating !== undefined && rating !== null && (typeof rating !== 'number' || ratingProblem(rating)))
    throw new RowError(`rating is ${describe(rating)}: ${ratingProblem(Number.NaN)}`);
  if (rewatch !== undefined && rewatch !== null && typeof rewatch !== 'boolean')
    throw new RowError(`rewatch is ${describe(rewatch)}, not true, false or null`);
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string')))
    throw new RowError(`tags is ${describe(tags)}, not a list of text`);
  const problem = ((tags as string[] | undefined) ?? []).map(tagProblem).find((p) => p !== null);
  if (problem) throw new RowError(`tags: ${problem}`);
  return {
    entryRating: typeof rating === 'number' ? rating : undefined,
    rewatch: typeof rewatch === 'boolean' ? rewatch : undefined,
    ...(Array.isArray(tags) && tags.length > 0 && { tags: tags as string[] }),
  };
}

/**
 * A list of the export (version 2): its name, description, ranked flag and visibility, and its movies
 * in position order, each with its note and the time it was added. A list that cannot be read, or an
 * item of it, is listed as unreadable; the rest imports.
 */
function readList(value: unknown, at: { file: string; line: number }, today: string, out: ImportOutput) {
  let list: ImportedList;
  try {
    if (!isObject(value)) throw new RowError(`a list is ${describe(value)}, not an object`);
    const { name, description, ranked, visibility, movies } = value;
    if (typeof name !== 'string' || listNameProblem(name))
      throw new RowError(
        `its name is ${describe(name)}: ${listNameProblem(String(name ?? '')) ?? 'not text'}`,
      );
    if (description !== null && description !== undefined && typeof description !== 'string')
      throw new RowError('its description is not text');
    if (typeof description === 'string' && listDescriptionProblem(description))
      throw new RowError(`its description: ${listDescriptionProblem(description)}`);
    if (ranked !== undefined && typeof ranked !== 'boolean')
      throw new RowError('ranked is not true or false');
    if (visibility !== undefined && !(LIST_VISIBILITIES as readonly unknown[]).includes(visibility))
      throw new RowError(`its visibility is ${describe(visibility)}, not ${LIST_VISIBILITIES.join(', ')}`);
    if (!Array.isArray(movies)) throw new RowError('its movies are not a list');
    list = {
      file: `${at.file}:${at.line}`,
      name,
      description: (description as string | null | undefined) ?? null,
      ranked: ranked === true,
      visibility: visibility as ListVisibility | undefined,
    };
    out.list(list);
    const items = movies.map((item, index) => ({ item, index }));
    // By position where given (the export's order otherwise).
    const positionOf = ({ item }: { item: unknown }) =>
      isObject(item) && typeof item.position === 'number' ? item.position : Number.MAX_SAFE_INTEGER;
    items.sort((a, b) => positionOf(a) - positionOf(b) || a.index - b.index);
    for (const { item, index } of items) {
      try {
        if (!isObject(item)) throw new RowError(`movies[${index}] is ${describe(item)}, not an object`);
        const { note, addedAt } = item;
        if (note !== null && note !== undefined && typeof note !== 'string')
          throw new RowError('its note is not text');
        if (typeof note === 'string' && listNoteProblem(note))
          throw new RowError(`its note: ${listNoteProblem(note)}`);
        out.row({
          ...at,
          kind: 'list-movie',
          movie: movieOf(item.movie),
          list,
          note: (note as string | null | undefined) ?? null,
          addedAt: addedAt === undefined ? undefined : timestamp('addedAt', addedAt, today),
        });
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        out.unreadable(at, `${name}, movie ${index + 1}: ${error.message}`, namedOf(item));
      }
    }
  } catch (error) {
    if (!(error instanceof RowError)) throw error;
    out.unreadable(at, `the list cannot be read: ${error.message}`);
  }
}

/** The title and year a broken item names, for the list of unmatched rows. */
function namedOf(value: unknown) {
  const named = isObject(value) && isObject(value.movie) ? value.movie : {};
  return {
    title: typeof named.title === 'string' ? named.title : undefined,
    year: typeof named.year === 'number' ? named.year : undefined,
  };
}
