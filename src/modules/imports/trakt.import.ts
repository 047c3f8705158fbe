import {
  MAX_LIST_DESCRIPTION_LENGTH,
  MAX_LIST_NAME_LENGTH,
  MAX_LIST_NOTE_LENGTH,
  ratingProblem,
} from '../library/library.rules.js';
import {
  type ImportedList,
  ImportFileError,
  type ImportOutput,
  type ImportParser,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  RowError,
  type RowSource,
} from './import.types.js';
import { baseName, type ImportFile, UNNAMED_JSON } from './import-files.js';
import { isObject, jsonValues } from './import-json.js';
import { textOf } from './import-text.js';
import {
  badCell,
  describe,
  instant,
  optionalImdbId,
  optionalJsonId,
  optionalYear,
  playCount,
  playDayOf,
} from './import-values.js';

// Trakt's JSON, in a .zip or a directory, each file recognised by its content (docs/imports-exports.md):
//   Trakt's own export (app.trakt.tv → Settings → Data): watched-history.json (or watched-history-1..N.json),
//     watched-movies.json, ratings-movies.json, lists-watchlist.json, lists-favorites.json,
//     lists-list-<id>-<slug>.json, collection-movies.json, user-profile.json, …
//   older backup tools: watchlist_movies.json, history_movies.json, ratings_movies.json, …
//   traktexport (one document): { "type": "full", "history": […], "ratings": […], "watchlist": […], … }
// Items, movies and shows mixed:
//   history:   { watched_at, action, type: "movie", movie: { title, year, ids: { trakt, slug, imdb, tmdb } } }
//   watched:   { plays, last_watched_at, movie }                 (no dated history)
//   ratings:   { rated_at, rating, type, movie }
//   listed:    { listed_at, rank, id, notes, type, movie }       (watchlist, favourites and lists alike)
//   collected: { collected_at, updated_at, movie }
//   list:      { name, description, privacy, display_numbers, ids: { trakt, slug }, … } (lists-lists.json)
// Favourites become likes; the movies of each list of the user's (lists-list-<id>-<slug>.json) a
// list, named as lists-lists.json says (else by its slug), in `rank` order, `notes` their notes.

/** What a section of items is, from its first item (and, for listed items, the file's name). */
type Kind = 'history' | 'watched' | 'ratings' | 'listed' | 'collection' | 'comments' | 'lists' | 'other';
/** Which list listed items are on. */
type ListKind = 'watchlist' | 'favourites' | 'list';

/** A run of items: a top-level array (`$.*`), or one section of a traktexport document. */
interface Section {
  file: ImportFile;
  path: string;
  /** How it is named in messages: the file, or `data.json (history)`. */
  label: string;
  /** The file's name, or the section's key in a traktexport document. */
  name: string;
  kind: Kind | 'empty';
}

/** The sections of a traktexport document, read through their paths (never the document whole). */
const DOCUMENT_SECTIONS = ['history', 'watched', 'ratings', 'watchlist', 'collection', 'comments'];

const TV = 'TV shows and episodes';

export const parseTrakt: ImportParser = async (files, context, out) => {
  const sections: Section[] = [];
  const ordered = [...files].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  for (const file of ordered) {
    const start = await jsonStartOf(file);
    if (start === '[') sections.push(await arraySection(file));
    // An object: a traktexport document, else a file with no Trakt items (user-profile.json).
    else if (start === '{') sections.push(...(await documentSections(file)));
  }
  const known = sections.filter((section) => section.kind !== 'other');
  if (known.length === 0) {
    throw new ImportFileError(
      'found no Trakt export: expected JSON files of Trakt items, such as watched-history.json (watched_at), ' +
        'watched-movies.json (plays, last_watched_at), ratings-movies.json (rated_at, rating) or ' +
        'lists-watchlist.json (listed_at)',
    );
  }
  // The history has every play with its date; watched-movies.json only counts them.
  const hasHistory = sections.some((section) => section.kind === 'history');
  const reader: Reader = { context, out, events: new Set(), shared: sharing(), lists: new Map() };
  // The lists' names first (lists-lists.json sorts after the lists' own files).
  for (const section of sections.filter((section) => section.kind === 'lists')) {
    await readListNames(section, reader);
  }
  for (const section of sections) {
    if (section.kind === 'lists') continue;
    if (section.kind === 'watched' && hasHistory) await drain(jsonValues(section.file, [section.path]));
    else await readSection(section, reader);
  }
};

/** A list of the user's as lists-lists.json describes it. */
interface TraktList {
  name: string;
  description: string | null;
  ranked: boolean;
}

/** lists-lists.json: each list's name, description and whether it shows its ranks, by its Trakt id. */
async function readListNames(section: Section, { lists }: Reader) {
  for await (const { value } of jsonValues(section.file, [section.path])) {
    if (!isObject(value) || !isObject(value.ids)) continue;
    const id = value.ids.trakt;
    const name = typeof value.name === 'string' ? value.name.trim().replace(/\s+/g, ' ') : '';
    if (!Number.isSafeInteger(id) || name === '') continue;
    const description =
      typeof value.description === 'string' && value.description.trim() !== '' ? value.description : null;
    lists.set(id as number, {
      name: clipped(name, MAX_LIST_NAME_LENGTH),
      description: description === null ? null : clipped(description, MAX_LIST_DESCRIPTION_LENGTH),
      ranked: value.display_numbers === true,
    });
  }
}

const clipped = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * The list a file of listed items is (`lists-list-<id>-<slug>.json`, or any other name): as
 * lists-lists.json names it by its id, else by its slug (`weekend-2` → `weekend 2`), else the file's.
 */
function importedListOf(section: Section, lists: ReadonlyMap<number, TraktList>): ImportedList {
  const stem = section.name.replace(/\.json$/i, '');
  const match = /^lists-list-(\d+)(?:-(.+))?$/i.exec(stem);
  const known = match ? lists.get(Number(match[1])) : undefined;
  if (known) return { file: section.label, ...known };
  const slug = (match ? (match[2] ?? match[1]!) : stem).replace(/[-_]+/g, ' ').trim();
  return {
    file: section.label,
    name: clipped(slug === '' ? stem : slug, MAX_LIST_NAME_LENGTH),
    description: null,
    ranked: false,
  };
}

/** What reading the items needs, for the whole import. */
interface Reader {
  context: ParseContext;
  out: ImportOutput;
  /** The ids of the history's movie events read so far (each is one play). */
  events: Set<number>;
  shared: ReturnType<typeof sharing>;
  /** The user's lists by their Trakt id (lists-lists.json). */
  lists: Map<number, TraktList>;
}

/**
 * One object per distinct movie and one string per day, shared by the rows that name them: a history
 * of 500,000 plays of a few thousand films holds a few thousand movies, in the reader's bounded heap.
 */
function sharing() {
  const movies = new Map<string, MovieRef>();
  const days = new Map<string, string>();
  return {
    movie(ref: MovieRef): MovieRef {
      const key = `${ref.traktId}|${ref.tmdbId}|${ref.imdbId}|${ref.year}|${ref.title === undefined ? '' : `:${ref.title}`}`;
      const kept = movies.get(key);
      if (kept) return kept;
      movies.set(key, ref);
      return ref;
    },
    day(day: string): string {
      const kept = days.get(day);
      if (kept !== undefined) return kept;
      days.set(day, day);
      return day;
    },
  };
}

/**
 * `[` or `{` when the file is a JSON array or object (its first character), else null: no Trakt file.
 * A .json file must be valid JSON (else the import is refused), whatever it holds.
 */
async function jsonStartOf(file: ImportFile): Promise<'[' | '{' | null> {
  const named = baseName(file).endsWith('.json');
  try {
    for await (const chunk of textOf(file, named)) {
      const text = chunk.trimStart();
      if (text === '') continue;
      if (text[0] === '[' || text[0] === '{') return text[0];
      break;
    }
  } catch (error) {
    // A file of another kind in the folder (a picture, a text in another encoding) is not Trakt's.
    if (named || !(error instanceof ImportFileError)) throw error;
    return null;
  }
  if (named) await drain(jsonValues(file, ['$.*']));
  return null;
}

/** Reads values through (a file's JSON is checked whole), keeping none. */
async function drain(values: AsyncIterable<unknown>) {
  for await (const _value of values) {
    // Nothing kept.
  }
}

/** A top-level array, known by its first object. */
async function arraySection(file: ImportFile): Promise<Section> {
  const section: Section = { file, path: '$.*', label: file.name, name: baseName(file), kind: 'empty' };
  for await (const { value } of jsonValues(file, ['$.*'])) {
    if (!isObject(value)) {
      section.kind = 'other';
      continue;
    }
    section.kind = kindOf(value);
    break;
  }
  return section;
}

/** The sections of a traktexport document; none for any other object (user-profile.json). */
async function documentSections(file: ImportFile): Promise<Section[]> {
  const found = new Map<string, Section>();
  for await (const { path, value } of jsonValues(
    file,
    DOCUMENT_SECTIONS.map((key) => `$.${key}.*`),
  )) {
    const key = path.slice(2, -2);
    let section = found.get(key);
    if (!section) {
      section = { file, path, label: `${file.name} (${key})`, name: key, kind: 'other' };
      found.set(key, section);
    }
    if (section.kind === 'other' && isObject(value)) section.kind = kindOf(value);
  }
  return [...found.values()];
}

/** What an item is by its fields. */
function kindOf(item: Record<string, unknown>): Kind {
  if ('watched_at' in item) return 'history';
  if ('plays' in item && 'last_watched_at' in item) return 'watched';
  if ('rated_at' in item && 'rating' in item) return 'ratings';
  if ('listed_at' in item) return 'listed';
  if ('collected_at' in item || 'last_collected_at' in item) return 'collection';
  if (isObject(item.comment) || isObject(item.note)) return 'comments';
  if (typeof item.name === 'string' && isObject(item.ids) && ('privacy' in item || 'item_count' in item))
    return 'lists';
  return 'other';
}

/**
 * Which list listed items are on, which only the name tells: Trakt's watchlist (`lists-watchlist.json`,
 * `watchlist_movies.json`, a file sent without a name) or its favourites; any other is a list of the
 * user's (`lists-list-<id>-<slug>.json`, whatever its slug says).
 */
function listKindOf(name: string): ListKind {
  const stem = name.toLowerCase().replace(/\.json$/, '');
  if (stem.startsWith('lists-list-')) return 'list';
  if (stem.includes('watchlist')) return 'watchlist';
  if (/favou?rite/.test(stem)) return 'favourites';
  if (name === UNNAMED_JSON) return 'watchlist';
  return 'list';
}

async function readSection(section: Section, reader: Reader) {
  const { events, out } = reader;
  const listKind = section.kind === 'listed' ? listKindOf(section.name) : null;
  // A list's movies are put in `rank` order (the file's where it has none), each movie once.
  const list =
    listKind === 'list' || (section.kind === 'empty' && listKindOf(section.name) === 'list')
      ? importedListOf(section, reader.lists)
      : null;
  // Said even when it holds no movie (`[]`, or shows only): the user's list all the same.
  if (list) out.list(list);
  const ranked: { rank: number; index: number; row: ImportRow }[] = [];
  const itemReader: Reader = list
    ? {
        ...reader,
        out: {
          ...out,
          row: (row) => ranked.push({ rank: Number.MAX_SAFE_INTEGER, index: ranked.length, row }),
        },
      }
    : reader;
  for await (const { key, value } of jsonValues(section.file, [section.path])) {
    if (section.kind === 'other' || section.kind === 'empty' || section.kind === 'lists') continue;
    // A page of the history fetched while a play was added repeats the last event of the page before.
    if (
      section.kind === 'history' &&
      isObject(value) &&
      Number.isSafeInteger(value.id) &&
      (value.type === 'movie' || (value.type === undefined && 'movie' in value))
    ) {
      if (events.has(value.id as number)) continue;
      events.add(value.id as number);
    }
    const at: RowSource = { file: section.label, line: typeof key === 'number' ? key + 1 : 0 };
    try {
      if (!isObject(value)) throw new RowError(`item ${at.line} is ${describe(value)}, not an object`);
      const before = ranked.length;
      readItem(section.kind, listKind, value, at, itemReader, list);
      if (ranked.length > before && typeof value.rank === 'number') ranked.at(-1)!.rank = value.rank;
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      out.unreadable(at, error.message, namedMovie(value));
    }
  }
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
  for (const { row } of ranked) out.row(row);
}

function readItem(
  kind: Exclude<Kind, 'other'>,
  listKind: ListKind | null,
  item: Record<string, unknown>,
  at: RowSource,
  { context, out, shared }: Reader,
  list: ImportedList | null,
) {
  if (kind === 'comments') return out.skip('Trakt comments and notes');
  const media = mediaOf(item);
  if (media === 'tv') return out.skip(TV);
  if (media === 'person') {
    if (kind === 'listed') return out.skip('people on Trakt lists');
    throw new RowError('it is a person, not a movie');
  }
  // A movie.
  if (kind === 'collection') return out.skip('movies in the Trakt collection');
  const movie = shared.movie(movieOf(item.movie));
  if (kind === 'listed' && listKind === 'favourites') {
    return out.row({ ...at, kind: 'like', movie, likedAt: momentOf('listed_at', item.listed_at, context) });
  }
  if (kind === 'listed' && list) {
    const notes = typeof item.notes === 'string' && item.notes.trim() !== '' ? item.notes : null;
    return out.row({
      ...at,
      kind: 'list-movie',
      movie,
      list,
      note: notes === null ? null : clipped(notes.replace(/\r\n?/g, '\n'), MAX_LIST_NOTE_LENGTH),
      addedAt: momentOf('listed_at', item.listed_at, context),
    });
  }
  if (kind === 'history') {
    const watchedAt = shared.day(
      playDayOf('watched_at', instant('watched_at', item.watched_at), context.timezone, context.today),
    );
    out.row({ ...at, kind: 'play', movie, watchedAt, plays: 1, comment: null });
  } else if (kind === 'watched') {
    // `plays` plays: the last on its day, the others on no known date.
    const plays = playCount('plays', item.plays);
    const last =
      item.last_watched_at === null || item.last_watched_at === undefined
        ? null
        : playDayOf(
            'last_watched_at',
            instant('last_watched_at', item.last_watched_at),
            context.timezone,
            context.today,
          );
    if (last === null) {
      out.row({ ...at, kind: 'play', movie, watchedAt: null, plays, comment: null });
    } else {
      out.row({ ...at, kind: 'play', movie, watchedAt: last, plays: 1, comment: null });
      if (plays > 1)
        out.row({ ...at, kind: 'play', movie, watchedAt: null, plays: plays - 1, comment: null });
    }
  } else if (kind === 'ratings') {
    const rating = item.rating;
    if (typeof rating !== 'number' || ratingProblem(rating)) {
      throw new RowError(`rating is ${describe(rating)}: ${ratingProblem(Number.NaN)}`);
    }
    out.row({ ...at, kind: 'rating', movie, rating, ratedAt: momentOf('rated_at', item.rated_at, context) });
  } else {
    out.row({ ...at, kind: 'watchlist', movie, addedAt: momentOf('listed_at', item.listed_at, context) });
  }
}

/** A movie, a show (a season, an episode) or a person, by the item's `type` or its keys. */
function mediaOf(item: Record<string, unknown>): 'movie' | 'tv' | 'person' {
  const type = item.type;
  if (type === undefined || type === null) {
    if ('movie' in item) return 'movie';
    if ('show' in item || 'season' in item || 'episode' in item) return 'tv';
    if ('person' in item) return 'person';
    throw new RowError('it names no movie');
  }
  if (type === 'movie') return 'movie';
  if (type === 'show' || type === 'season' || type === 'episode') return 'tv';
  if (type === 'person') return 'person';
  throw badCell('type', describe(type), 'movie, show, season or episode');
}

/** The movie of an item, by its ids (Trakt's, TMDB's, IMDb's) and its title and year. */
function movieOf(value: unknown): MovieRef {
  if (value === undefined || value === null) throw new RowError('it has no movie');
  if (!isObject(value)) throw new RowError(`movie is ${describe(value)}, not an object`);
  const ids = value.ids ?? {};
  if (!isObject(ids)) throw new RowError(`movie.ids is ${describe(ids)}, not an object`);
  const imdb = ids.imdb;
  if (imdb !== undefined && imdb !== null && typeof imdb !== 'string') {
    throw badCell('movie.ids.imdb', describe(imdb), 'an IMDb id (tt…)');
  }
  const title = value.title;
  if (title !== undefined && title !== null && typeof title !== 'string') {
    throw new RowError(`movie.title is ${describe(title)}, not text`);
  }
  const year = value.year;
  if (year !== undefined && year !== null && (typeof year !== 'number' || !Number.isInteger(year))) {
    throw badCell('movie.year', describe(year), 'a year');
  }
  const traktId = optionalJsonId('movie.ids.trakt', ids.trakt);
  const tmdbId = optionalJsonId('movie.ids.tmdb', ids.tmdb);
  const imdbId = optionalImdbId('movie.ids.imdb', (imdb ?? '').trim());
  const name = typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined;
  const released = typeof year === 'number' ? optionalYear('movie.year', String(year)) : undefined;
  if (traktId === undefined && tmdbId === undefined && imdbId === undefined && name === undefined) {
    throw new RowError('its movie has no id and no title');
  }
  // Only the keys it has: the rows of a large history are many.
  const ref: MovieRef = {};
  if (traktId !== undefined) ref.traktId = traktId;
  if (tmdbId !== undefined) ref.tmdbId = tmdbId;
  if (imdbId !== undefined) ref.imdbId = imdbId;
  if (name !== undefined) ref.title = name;
  if (released !== undefined) ref.year = released;
  return ref;
}

/** An instant kept as it is (a rating's, a watchlist entry's), on a day a play could be on. */
function momentOf(column: string, value: unknown, context: ParseContext): string | undefined {
  if (value === undefined || value === null) return undefined;
  const moment = instant(column, value);
  playDayOf(column, moment, context.timezone, context.today);
  return moment.toISOString();
}

/** The title and year an unreadable item names, for the list of unmatched rows (never recursing). */
function namedMovie(value: unknown): { title?: string; year?: number } {
  const movie = isObject(value) && isObject(value.movie) ? value.movie : {};
  return {
    ...(typeof movie.title === 'string' && { title: movie.title }),
    ...(typeof movie.year === 'number' && Number.isInteger(movie.year) && { year: movie.year }),
  };
}
