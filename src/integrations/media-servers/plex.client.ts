/**
 * Plex Media Server, read for a backfill. Plex answers XML unless asked for JSON (`Accept`); the token
 * goes in the `X-Plex-Token` header, never in the URL.
 *
 * The played movies: the movie libraries (`/library/sections`, type `movie`), each paged through
 * (`/library/sections/{key}/all?type=1&includeGuids=1`), keeping the movies with a `viewCount` or a view
 * in the play history (`/status/sessions/history/all`, one account, one library). Each view of the
 * history is a play; `viewCount` and `lastViewedAt` cover the plays the history has lost (Plex trims
 * it). After a library's movies, the movies deleted since: history rows without their item. The cursor
 * is `<library key>:<offset>` (`<library key>:d<offset>` in the deleted ones), so a restart resumes in
 * the same library.
 *
 * Whose plays: the library's `viewCount` and `lastViewedAt` are the token's account's. A local server
 * numbers its accounts (`/accounts`), the owner is account 1: no server user means account 1, the owner
 * whose token this is. Any other account has only its history.
 */
import {
  asObject,
  badShape,
  count,
  DEFAULT_PAGE_SIZE,
  epochSeconds,
  field,
  identifier,
  imdbId,
  type Json,
  names,
  objects,
  serverHttp,
  text,
  tmdbId,
  year,
} from './media-server.http.js';
import {
  type MediaServerClient,
  type MediaServerClientOptions,
  type MediaServerConnection,
  MediaServerError,
  type PlayedMovie,
  type ServerUser,
} from './media-server.types.js';

/** The server owner's account on the owner's own server. */
const OWNER_ACCOUNT = '1';

// The new agent lists `tmdb://6978` in `Guid[]`; legacy agents put theirs in `guid` with a query
// (`com.plexapp.agents.themoviedb://6978?lang=en`). `plex://movie/...` names no outside id.
const TMDB_GUID = /^(?:com\.plexapp\.agents\.)?(?:tmdb|themoviedb):\/\/(\d+)(?:[?#/].*)?$/i;
const IMDB_GUID = /^(?:com\.plexapp\.agents\.)?imdb:\/\/(tt\d+)(?:[?#/].*)?$/i;

/** A guard against a server that ignores the paging and answers the same page forever. */
const MAX_HISTORY_PAGES = 10_000;

interface Section {
  key: string;
  title: string;
}

interface SectionHistory {
  /** By ratingKey, oldest first. */
  views: Map<string, string[]>;
  /** The movies deleted since, from their history rows only. */
  deleted: PlayedMovie[];
}

export function plexClient(
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
): MediaServerClient {
  const http = serverHttp({
    serverName: 'Plex',
    refusedTokenHint: 'check the token in the connection (the server owner\u2019s X-Plex-Token)',
    baseUrl: connection.url,
    headers: {
      'x-plex-token': connection.token.trim(),
      'x-plex-product': 'cinelog',
      'x-plex-client-identifier': 'cinelog-backfill',
    },
    token: connection.token,
    options,
  });
  const pageSize = Math.max(1, Math.floor(options?.pageSize ?? DEFAULT_PAGE_SIZE));
  let account: Promise<string> | null = null;
  /** One history per library, read once per client: a page of the library needs its views. */
  const histories = new Map<string, Promise<SectionHistory>>();

  const container = async (path: string, query: Record<string, string>, what: string): Promise<Json> => {
    const body = await http.getJson(path, query, what);
    if (body === null) {
      throw new MediaServerError(
        'not-found',
        `${http.label} does not know ${what} (HTTP 404): check that the URL is the Plex server's own address (port 32400).`,
      );
    }
    const mediaContainer = asObject(field(asObject(body), 'MediaContainer'));
    if (!mediaContainer) throw badShape(http, what, 'no MediaContainer');
    return mediaContainer;
  };

  const resolveAccount = (): Promise<string> => {
    account ??= (async () => {
      const wanted = connection.serverUser?.trim() ?? '';
      if (wanted === '') return OWNER_ACCOUNT;
      const accounts = await listAccounts();
      const match =
        accounts.find((candidate) => candidate.id === wanted) ??
        accounts.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase());
      if (!match) {
        throw new MediaServerError(
          'unknown-user',
          `${http.label} has no account "${wanted}": pick one of ${names(accounts)}.`,
        );
      }
      return match.id;
    })();
    // A failure is not kept: the next call asks again.
    account.catch(() => {
      account = null;
    });
    return account;
  };

  const listAccounts = async (): Promise<ServerUser[]> => {
    const body = await container('/accounts', {}, 'its accounts');
    if (!Array.isArray(field(body, 'Account')) && field(body, 'Account') !== undefined) {
      throw badShape(http, 'its accounts', 'Account is not a list');
    }
    return objects(field(body, 'Account')).flatMap((entry) => {
      const id = identifier(field(entry, 'id'));
      const name = text(field(entry, 'name'));
      // Account 0 is Plex's own placeholder, without a name.
      return id === null || name === null || id === '0' ? [] : [{ id, name }];
    });
  };

  const movieSections = async (): Promise<Section[]> => {
    const body = await container('/library/sections', {}, 'its libraries');
    const directories = field(body, 'Directory');
    if (directories !== undefined && !Array.isArray(directories)) {
      throw badShape(http, 'its libraries', 'Directory is not a list');
    }
    const sections = objects(directories).flatMap((entry) => {
      const key = identifier(field(entry, 'key'));
      if (key === null || !/^\d+$/.test(key) || text(field(entry, 'type')) !== 'movie') return [];
      return [{ key, title: text(field(entry, 'title')) ?? key }];
    });
    // By key, a number that never changes: a stored cursor finds its place again.
    return sections.sort((a, b) => Number(a.key) - Number(b.key));
  };

  const history = (accountId: string, section: Section): Promise<SectionHistory> => {
    const cacheKey = `${accountId}:${section.key}`;
    let found = histories.get(cacheKey);
    if (!found) {
      found = readHistory(accountId, section);
      histories.set(cacheKey, found);
      found.catch(() => histories.delete(cacheKey));
    }
    return found;
  };

  const readHistory = async (accountId: string, section: Section): Promise<SectionHistory> => {
    const views = new Map<string, string[]>();
    const deleted = new Map<string, PlayedMovie>();
    const what = `the play history of library "${section.title}"`;
    let previousFirst: string | null = null;
    for (let offset = 0, pages = 0; ; pages += 1) {
      if (pages >= MAX_HISTORY_PAGES) throw badShape(http, what, 'the pages never end');
      const body = await container(
        '/status/sessions/history/all',
        {
          accountID: accountId,
          librarySectionID: section.key,
          sort: 'viewedAt:asc',
          'X-Plex-Container-Start': String(offset),
          'X-Plex-Container-Size': String(pageSize),
        },
        what,
      );
      const metadata = field(body, 'Metadata');
      if (metadata !== undefined && !Array.isArray(metadata))
        throw badShape(http, what, 'Metadata is not a list');
      const rows = objects(metadata);
      // A server that ignores the start answers the first page again and again.
      const first = rows[0] ? text(field(rows[0], 'historyKey')) : null;
      if (first !== null && first === previousFirst) throw badShape(http, what, 'the same page twice');
      previousFirst = first;
      for (const row of rows) {
        // The filters are the server's; checked again here, as every field is.
        if (text(field(row, 'type')) !== 'movie') continue;
        const rowAccount = identifier(field(row, 'accountID'));
        if (rowAccount !== null && rowAccount !== accountId) continue;
        const rowSection = identifier(field(row, 'librarySectionID'));
        if (rowSection !== null && rowSection !== section.key) continue;
        const itemId = identifier(field(row, 'ratingKey')) ?? ratingKeyOf(text(field(row, 'key')));
        const viewedAt = epochSeconds(field(row, 'viewedAt'));
        if (viewedAt === null) continue;
        if (itemId === null) {
          addDeleted(deleted, section, row, viewedAt);
          continue;
        }
        const list = views.get(itemId) ?? [];
        list.push(viewedAt);
        views.set(itemId, list);
      }
      const returned = Array.isArray(metadata) ? metadata.length : 0;
      offset += returned;
      const total = count(field(body, 'totalSize'));
      if (returned === 0 || returned < pageSize || returned > pageSize || (total !== null && offset >= total))
        break;
    }
    for (const list of views.values()) list.sort();
    const gone = [...deleted.values()].sort((a, b) => a.itemId.localeCompare(b.itemId));
    for (const movie of gone) {
      movie.views.sort();
      movie.playCount = movie.views.length;
      movie.lastPlayedAt = movie.views.at(-1) ?? null;
    }
    return { views, deleted: gone };
  };

  return {
    server: 'plex',

    async check() {
      const body = await container('/', {}, 'its name');
      const name = text(field(body, 'friendlyName'));
      if (name === null) throw badShape(http, 'its name', 'no friendlyName');
      return { name, version: text(field(body, 'version')) };
    },

    users: listAccounts,

    async playedMovies(cursor) {
      const position = parseCursor(cursor);
      const accountId = await resolveAccount();
      const sections = await movieSections();
      // The stored library, or the next one when it is gone.
      const index = position
        ? sections.findIndex((section) => Number(section.key) >= Number(position.key))
        : 0;
      const section = index === -1 ? undefined : sections[index];
      if (!section) return { movies: [], next: null, total: null };
      const offset = position && position.key === section.key ? position.offset : 0;
      const following = sections[index + 1];
      const afterSection = following ? `${following.key}:0` : null;

      if (position?.deleted && position.key === section.key) {
        // The movies deleted since, known from the history only: after the library's own.
        const { deleted } = await history(accountId, section);
        const movies = deleted.slice(offset, offset + pageSize);
        const after = offset + movies.length;
        return {
          movies,
          next: after < deleted.length ? `${section.key}:d${after}` : afterSection,
          total: null,
        };
      }

      const what = `the movies of library "${section.title}" from ${offset}`;
      const body = await container(
        `/library/sections/${section.key}/all`,
        {
          type: '1',
          includeGuids: '1',
          sort: 'titleSort:asc',
          'X-Plex-Container-Start': String(offset),
          'X-Plex-Container-Size': String(pageSize),
        },
        what,
      );
      const metadata = field(body, 'Metadata');
      if (metadata !== undefined && !Array.isArray(metadata))
        throw badShape(http, what, 'Metadata is not a list');
      const { views, deleted } = await history(accountId, section);
      const own = accountId === OWNER_ACCOUNT;
      const movies = objects(metadata).flatMap((item) => {
        const movie = toPlayedMovie(item, views, own);
        return movie ? [movie] : [];
      });

      const returned = Array.isArray(metadata) ? metadata.length : 0;
      const total = count(field(body, 'totalSize'));
      const nextOffset = offset + returned;
      const sectionDone =
        returned === 0 ||
        returned < pageSize ||
        returned > pageSize ||
        (total !== null && nextOffset >= total);
      const next = !sectionDone
        ? `${section.key}:${nextOffset}`
        : deleted.length > 0
          ? `${section.key}:d0`
          : afterSection;
      return { movies, next, total: null };
    },
  };
}

function toPlayedMovie(item: Json, history: Map<string, string[]>, ownAccount: boolean): PlayedMovie | null {
  const type = text(field(item, 'type'));
  // type=1 asks for movies; a clip, trailer or extra that slips in is left out.
  if (type !== null && type !== 'movie') return null;
  if (text(field(item, 'subtype')) !== null) return null;
  const itemId = identifier(field(item, 'ratingKey'));
  if (itemId === null) return null;
  // viewCount and lastViewedAt are the token's account's: another account has its history only.
  const viewCount = ownAccount ? (count(field(item, 'viewCount')) ?? 0) : 0;
  const lastViewedAt = ownAccount ? epochSeconds(field(item, 'lastViewedAt')) : null;
  const viewed = history.get(itemId) ?? [];
  // With the history trimmed, lastViewedAt is still a play with its instant: one of the views, unless
  // a view of the history is that same play (within minutes: Plex writes the two apart).
  const views =
    lastViewedAt !== null && viewCount > viewed.length && !viewed.some((view) => near(view, lastViewedAt))
      ? [...viewed, lastViewedAt].sort()
      : viewed;
  const playCount = Math.max(viewCount, views.length);
  if (playCount === 0) return null;
  const lastView = views.at(-1) ?? null;
  const lastPlayedAt =
    lastViewedAt !== null && (lastView === null || lastViewedAt > lastView) ? lastViewedAt : lastView;

  const guids: string[] = [];
  for (const entry of Array.isArray(field(item, 'Guid')) ? (field(item, 'Guid') as unknown[]) : []) {
    const id = text(field(asObject(entry), 'id'));
    if (id !== null) guids.push(id);
  }
  const guid = text(field(item, 'guid'));
  if (guid !== null) guids.push(guid);

  return {
    itemId,
    title: text(field(item, 'title')),
    year: year(field(item, 'year')),
    tmdbId: firstMatch(guids, TMDB_GUID, tmdbId),
    imdbId: firstMatch(guids, IMDB_GUID, imdbId),
    views,
    playCount,
    lastPlayedAt,
  };
}

const SAME_PLAY_MS = 10 * 60_000;

function near(a: string, b: string): boolean {
  return Math.abs(Date.parse(a) - Date.parse(b)) <= SAME_PLAY_MS;
}

function firstMatch<T>(guids: readonly string[], pattern: RegExp, read: (id: string) => T | null): T | null {
  for (const guid of guids) {
    const id = pattern.exec(guid)?.[1];
    const value = id === undefined ? null : read(id);
    if (value !== null) return value;
  }
  return null;
}

/** `/library/metadata/123` → `123`: a history row without its ratingKey still names its item. */
function ratingKeyOf(key: string | null): string | null {
  return key === null ? null : (/^\/library\/metadata\/(\d+)$/.exec(key)?.[1] ?? null);
}

/** `<library key>:<offset>` in the library, `<library key>:d<offset>` in its deleted movies. */
function parseCursor(cursor: string | null): { key: string; offset: number; deleted: boolean } | null {
  if (cursor === null) return null;
  const match = /^(\d{1,9}):(d?)(\d{1,9})$/.exec(cursor);
  if (!match) throw new RangeError(`Not a Plex backfill cursor: ${JSON.stringify(cursor.slice(0, 40))}`);
  return { key: String(Number(match[1])), offset: Number(match[3]), deleted: match[2] === 'd' };
}

/**
 * A history row without its item (no `ratingKey`, no `key`): the movie was deleted since, or re-added
 * under a new key. Its views are grouped by title and year into one movie without ids, whose itemId
 * (`deleted:<library>:<title>:<year>`) is cinelog's own and stays the same from one read to the next.
 */
function addDeleted(deleted: Map<string, PlayedMovie>, section: Section, row: Json, viewedAt: string): void {
  const title = text(field(row, 'title'));
  if (title === null) return; // Nothing to show or match it by.
  const released = text(field(row, 'originallyAvailableAt'));
  const movieYear = year(field(row, 'year')) ?? (released ? year(released.slice(0, 4)) : null);
  const itemId = `deleted:${section.key}:${title}:${movieYear ?? ''}`;
  const movie = deleted.get(itemId) ?? {
    itemId,
    title,
    year: movieYear,
    tmdbId: null,
    imdbId: null,
    views: [],
    playCount: 0,
    lastPlayedAt: null,
  };
  movie.views.push(viewedAt);
  deleted.set(itemId, movie);
}
