/**
 * Jellyfin and Emby, read for a backfill: both descend from Media Browser and share the API cinelog
 * reads. What differs is given by each (jellyfin.client.ts, emby.client.ts): the credential header and
 * the path prefix.
 *
 * - `check()`: `/System/Info`, the server's name and version (it needs the key, unlike `/System/Info/Public`).
 * - `users()`: `/Users`, or Emby's `/Users/Query` (an administrator's API key).
 * - `playedMovies()`: the user's items (`IncludeItemTypes=Movie&Recursive=true&Filters=IsPlayed...`, at
 *   the flavour's path), paged with `StartIndex`/`Limit`, sorted by name. The cursor is the next `StartIndex`. The servers keep a
 *   count and the last play only: `views` is [LastPlayedDate], `playCount` at least 1.
 */
import {
  asObject,
  badShape,
  count,
  DEFAULT_PAGE_SIZE,
  field,
  fieldAnyCase,
  identifier,
  imdbId,
  isoInstant,
  type Json,
  names,
  objects,
  serverHttp,
  text,
  tmdbId,
  year,
} from './media-server.http.js';
import {
  type BackfillServer,
  type MediaServerClient,
  type MediaServerClientOptions,
  type MediaServerConnection,
  MediaServerError,
  type PlayedMovie,
  type ServerUser,
} from './media-server.types.js';

export interface MediaBrowserFlavour {
  server: Extract<BackfillServer, 'jellyfin' | 'emby'>;
  /** "Jellyfin", "Emby": for messages. */
  serverName: string;
  /** Said after a 404 on the server's own info: what else the URL may need (Jellyfin's base path). */
  notFoundHint: string;
  /** The credential headers for a token: the token goes nowhere else. */
  headers(token: string): Record<string, string>;
  /** The base URL as the API wants it (Emby's API lives under `/emby`). */
  apiBase(url: string): string;
  /** Where the users are listed, the first path that is not a 404. */
  usersPaths: readonly string[];
  /** Where a user's items are listed: a path and the query that names the user. */
  userItems(userId: string): { path: string; query: Record<string, string> };
}

export function mediaBrowserClient(
  flavour: MediaBrowserFlavour,
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
): MediaServerClient {
  const http = serverHttp({
    serverName: flavour.serverName,
    refusedTokenHint:
      'check the API key in the connection (one made in the dashboard, which has an administrator\u2019s rights)',
    baseUrl: flavour.apiBase(connection.url),
    givenUrl: connection.url,
    headers: flavour.headers(connection.token.trim()),
    token: connection.token,
    options,
  });
  const pageSize = Math.max(1, Math.floor(options?.pageSize ?? DEFAULT_PAGE_SIZE));
  let user: Promise<ServerUser> | null = null;

  const notFound = (path: string) =>
    new MediaServerError(
      'not-found',
      `${http.label} does not know ${path} (HTTP 404): check that the URL is the ${flavour.serverName} server's address${flavour.notFoundHint}.`,
    );

  const listUsers = async (): Promise<ServerUser[]> => {
    let body: unknown = null;
    for (const path of flavour.usersPaths) {
      body = await http.getJson(path, {}, 'its users');
      if (body !== null) break;
    }
    if (body === null) throw notFound(flavour.usersPaths.join(' or '));
    // A list (`/Users`) or a query result (`{ Items, TotalRecordCount }`, Emby's `/Users/Query`).
    const list = Array.isArray(body) ? body : field(asObject(body), 'Items');
    if (!Array.isArray(list)) throw badShape(http, 'its users', 'not a list');
    return objects(list).flatMap((entry) => {
      const id = identifier(field(entry, 'Id'));
      const name = text(field(entry, 'Name'));
      return id === null || name === null ? [] : [{ id, name }];
    });
  };

  const resolveUser = (): Promise<ServerUser> => {
    user ??= (async () => {
      const users = await listUsers();
      const wanted = connection.serverUser?.trim() ?? '';
      if (wanted === '') {
        const [only, ...others] = users;
        if (only && others.length === 0) return only;
        throw new MediaServerError(
          users.length === 0 ? 'unknown-user' : 'ambiguous-user',
          users.length === 0
            ? `${http.label} lists no user: create one, or check the API key.`
            : `${http.label} has ${users.length} users: name the one whose plays to read (${names(users)}).`,
        );
      }
      // Jellyfin writes its ids with or without dashes, in any case.
      const bareId = (id: string) => id.replaceAll('-', '').toLowerCase();
      const match =
        users.find((candidate) => bareId(candidate.id) === bareId(wanted)) ??
        users.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase());
      if (!match) {
        throw new MediaServerError(
          'unknown-user',
          `${http.label} has no user "${wanted}": pick one of ${names(users)}.`,
        );
      }
      return match;
    })();
    // A failure is not kept: the next call asks again.
    user.catch(() => {
      user = null;
    });
    return user;
  };

  return {
    server: flavour.server,

    async check() {
      const answer = await http.getJson('/System/Info', {}, 'its name');
      if (answer === null) throw notFound('/System/Info');
      const body = asObject(answer);
      const name = text(field(body, 'ServerName'));
      if (name === null) throw badShape(http, 'its name', 'no ServerName');
      return { name, version: text(field(body, 'Version')) };
    },

    users: listUsers,

    async playedMovies(cursor) {
      const start = parseCursor(cursor);
      const { id, name } = await resolveUser();
      const what = `the played movies of "${name}" from ${start}`;
      const items = flavour.userItems(id);
      const body = await http.getJson(
        items.path,
        {
          ...items.query,
          IncludeItemTypes: 'Movie',
          Recursive: 'true',
          Filters: 'IsPlayed',
          Fields: 'ProviderIds,ProductionYear',
          SortBy: 'SortName',
          SortOrder: 'Ascending',
          EnableImages: 'false',
          EnableTotalRecordCount: 'true',
          StartIndex: String(start),
          Limit: String(pageSize),
        },
        what,
      );
      if (body === null) {
        user = null; // Asked again next time: the user may be back, or another of that name.
        throw new MediaServerError(
          'unknown-user',
          `${http.label} no longer knows the user "${name}" (HTTP 404): pick the user again.`,
        );
      }
      const result = asObject(body);
      const list = field(result, 'Items');
      if (!Array.isArray(list)) throw badShape(http, what, 'no Items list');
      const movies = objects(list).flatMap((item) => {
        const movie = toPlayedMovie(item);
        return movie ? [movie] : [];
      });
      const total = count(field(result, 'TotalRecordCount'));
      const after = start + list.length;
      const more = list.length > 0 && (total !== null ? after < total : list.length >= pageSize);
      return { movies, next: more ? String(after) : null, total };
    },
  };
}

function toPlayedMovie(item: Json): PlayedMovie | null {
  // Asked for movies only; a trailer, an extra or a folder that slips in is left out.
  if (text(field(item, 'Type')) !== 'Movie') return null;
  if (field(item, 'IsFolder') === true || text(field(item, 'ExtraType')) !== null) return null;
  const itemId = identifier(field(item, 'Id'));
  if (itemId === null) return null;
  const userData = asObject(field(item, 'UserData'));
  const playCount = count(field(userData, 'PlayCount')) ?? 0;
  // Filters=IsPlayed asks for played ones; one the server says is neither played nor counted is not.
  if (field(userData, 'Played') !== true && playCount === 0) return null;
  const lastPlayedAt = isoInstant(field(userData, 'LastPlayedDate'));
  const providerIds = asObject(field(item, 'ProviderIds'));
  return {
    itemId,
    title: text(field(item, 'Name')),
    year: year(field(item, 'ProductionYear')),
    tmdbId: tmdbId(fieldAnyCase(providerIds, 'Tmdb')),
    imdbId: imdbId(fieldAnyCase(providerIds, 'Imdb')),
    views: lastPlayedAt === null ? [] : [lastPlayedAt],
    playCount: Math.max(playCount, 1),
    lastPlayedAt,
  };
}

function parseCursor(cursor: string | null): number {
  if (cursor === null) return 0;
  if (!/^\d{1,9}$/.test(cursor)) {
    throw new RangeError(`Not a Jellyfin or Emby backfill cursor: ${JSON.stringify(cursor.slice(0, 40))}`);
  }
  return Number(cursor);
}
