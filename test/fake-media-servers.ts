import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for Plex, Jellyfin and Emby as a backfill reads them (issue 31): the endpoints of
 * src/integrations/media-servers/, answered in the servers' own shapes (the recorded answers in
 * test/fixtures/media-servers/ are the templates) from a small model: users, movies with their ids or
 * guids and plays, episodes and trailers to skip, a trimmed Plex history. Scripted failures: a cut
 * connection or an error status after N requests (an outage mid-way), slow answers, web pages, broken
 * JSON, wrong shapes, huge bodies. Every request is recorded, so a test can check where the token went.
 * Every value in it is invented.
 */

export const FAKE_MEDIA_TOKEN = 'fake-media-token-5f1e0c9a7b3d';

export interface FakeMediaUser {
  /** Plex: an account id ("1" is the owner, whose token the fake takes); Jellyfin, Emby: a 32-hex id. */
  id: string;
  name: string;
}

/** One user's plays of an item. */
export interface FakeMediaPlays {
  user: string;
  /** Each play as an ISO instant: Plex's history rows, Jellyfin's and Emby's last play. */
  at: string[];
  /** Plex `viewCount`, Jellyfin and Emby `PlayCount`; more than `at.length`: the history was trimmed. */
  count?: number;
  /** Plex `lastViewedAt`, Jellyfin and Emby `LastPlayedDate`; the last of `at` unless said. */
  lastAt?: string;
}

export interface FakeMediaItem {
  /** Plex `ratingKey` (digits), Jellyfin and Emby `Id`. */
  id: string;
  title: string;
  year?: number | null;
  tmdbId?: number | null;
  imdbId?: string | null;
  kind?: 'movie' | 'episode' | 'trailer';
  /**
   * Plex: how its guids look. `new` (the default): `plex://movie/...` and a `Guid` list with `imdb://`
   * and `tmdb://`; `plex-only`: the new agent's guid without the list; `legacy-imdb`, `legacy-tmdb`:
   * the old agents' `com.plexapp.agents...` guid.
   */
  plexGuids?: 'new' | 'plex-only' | 'legacy-imdb' | 'legacy-tmdb';
  /** Jellyfin, Emby: `ProviderIds` keys in lower case (`tmdb`, `imdb`), as some servers send them. */
  lowerCaseProviderIds?: boolean;
  /** Plex: the library (section key) it is in; "1" (movies) unless said. */
  section?: string;
  /**
   * Plex: deleted since it was played: in no library, its history rows without `ratingKey` and `key`
   * (as Plex keeps them). Jellyfin and Emby forget a deleted item's plays: it is not served.
   */
  deleted?: boolean;
  plays?: FakeMediaPlays[];
}

export interface FakeMediaModel {
  serverName?: string;
  users: FakeMediaUser[];
  items: FakeMediaItem[];
  /** Plex: the libraries; the default is the fixture's ("1" movies, "2" shows). */
  sections?: { key: string; type: 'movie' | 'show'; title: string }[];
  /** Jellyfin, Emby: answer every item type whatever `IncludeItemTypes` asks (a lax server). */
  ignoreTypeFilter?: boolean;
  /** Emby: an older server, without `/Users/Query` (404), with `/Users`. */
  embyWithoutUsersQuery?: boolean;
  /** Plex: the history answers every account and library whatever `accountID` and `librarySectionID` ask. */
  ignoreHistoryFilters?: boolean;
  /** Plex: every page starts at 0 whatever `X-Plex-Container-Start` asks. */
  ignorePagingStart?: boolean;
}

export interface FakeFailure {
  mode: 'drop' | 'status' | 'slow' | 'stall' | 'redirect' | 'html' | 'broken-json' | 'wrong-shape' | 'huge';
  /** Only requests whose path (without the query) contains this; all when absent. */
  path?: string;
  /** Answers this many matching requests normally first. */
  after?: number;
  /** `status`: the status (500 unless said). */
  status?: number;
  /** `slow`: the delay before the answer (5 s unless said). */
  delayMs?: number;
  /** `huge`: the body's size in bytes (21 MB unless said). */
  bytes?: number;
  /** `redirect`: where to (a 302). */
  location?: string;
}

export interface RecordedRequest {
  method: string;
  /** The path with its query, as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeMediaServer {
  url: string;
  token: string;
  model: FakeMediaModel;
  requests: RecordedRequest[];
  setFailure(failure: FakeFailure | null): void;
  /** Answers GETs of this path (without the query) with this status and JSON body (a string as is); null: the model again. */
  setAnswer(path: string, answer: { status: number; body: unknown } | null): void;
  close(): Promise<void>;
}

// ---- The recorded answers, used as templates ------------------------------------------------------

type Json = Record<string, unknown>;

function fixture(name: string): Json {
  const file = new URL(`./fixtures/media-servers/${name}.json`, import.meta.url);
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as { response: { body: unknown } };
  return structuredClone(recorded.response.body) as Json;
}

/** A fixture's answer as recorded, for a test that reads it verbatim. */
export function mediaServerFixture(name: string): unknown {
  return fixture(name);
}

const container = (body: Json): Json => body.MediaContainer as Json;
const firstOf = (list: unknown): Json => structuredClone((list as Json[])[0]) as Json;

// ---- The default model ---------------------------------------------------------------------------

/** A small world for each server: two users, played and unplayed movies, an episode and a trailer. */
export function fakeMediaModel(server: 'plex' | 'jellyfin' | 'emby'): FakeMediaModel {
  const [owner, partner] =
    server === 'plex'
      ? [
          { id: '1', name: 'wohnzimmer-owner' },
          { id: '52841977', name: 'Partner' },
        ]
      : [
          { id: '8d3c1b2a4f5e4d6c9b8a7f6e5d4c3b2a', name: 'anna' },
          { id: '3c2b1a0f9e8d4c7b6a5f4e3d2c1b0a9f', name: 'Bernd' },
        ];
  const id = (n: number) =>
    server === 'plex' ? String(4700 + n) : `${'a'.repeat(28)}${String(n).padStart(4, '0')}`;
  return {
    users: [owner, partner],
    items: [
      {
        id: id(1),
        title: 'The Lantern Keepers',
        year: 2011,
        tmdbId: 912001,
        imdbId: 'tt1720001',
        plays: [
          { user: owner.id, at: ['2024-01-11T19:06:40Z', '2024-05-29T20:12:25Z'] },
          { user: partner.id, at: ['2024-02-02T21:00:00Z'] },
        ],
      },
      {
        id: id(2),
        title: 'Paper Comets',
        year: 2015,
        tmdbId: 912002,
        imdbId: 'tt1720002',
        plexGuids: 'legacy-imdb',
        // Three plays, the history keeps the last one only.
        plays: [{ user: owner.id, at: ['2023-12-24T19:00:00Z'], count: 3 }],
      },
      { id: id(3), title: 'Unwatched Harbour', year: 2019, tmdbId: 912003, imdbId: 'tt1720003' },
      {
        id: id(4),
        title: 'Quiet Orchard',
        year: 2020,
        tmdbId: null,
        imdbId: null,
        plexGuids: 'plex-only',
        plays: [{ user: owner.id, at: ['2024-03-03T18:30:00Z'] }],
      },
      {
        id: id(5),
        title: 'Old Agent Story',
        year: 1999,
        tmdbId: 912005,
        imdbId: null,
        plexGuids: 'legacy-tmdb',
        lowerCaseProviderIds: true,
        plays: [{ user: partner.id, at: ['2024-04-04T20:00:00Z'] }],
      },
      {
        id: id(6),
        title: 'Pilot',
        kind: 'episode',
        section: '2',
        plays: [{ user: owner.id, at: ['2024-04-05T20:00:00Z'] }],
      },
      {
        id: id(7),
        title: 'The Lantern Keepers (Trailer)',
        kind: 'trailer',
        plays: [{ user: owner.id, at: ['2024-04-06T20:00:00Z'] }],
      },
    ],
  };
}

// ---- The servers ---------------------------------------------------------------------------------

type Answer = { status: number; body: unknown } | null;
type Handler = (path: string, query: URLSearchParams, request: IncomingMessage) => Answer;

/** Plex refuses a token with a web page, not JSON. */
const plexUnauthorized = () => fixture('plex-unauthorized') as unknown as string;

export function startFakePlex(model: FakeMediaModel = fakeMediaModel('plex')): Promise<FakeMediaServer> {
  const plays = (item: FakeMediaItem, user: string) => item.plays?.find((entry) => entry.user === user);
  const sections = () =>
    model.sections ?? [
      { key: '1', type: 'movie' as const, title: 'Filme' },
      { key: '2', type: 'show' as const, title: 'Serien' },
    ];
  const paged = (list: Json[], query: URLSearchParams, request: IncomingMessage) => {
    const start = plexParameter(query, request, 'X-Plex-Container-Start');
    const size = plexParameter(query, request, 'X-Plex-Container-Size');
    if (start === null && size === null) return { page: list, paging: {} };
    const from = model.ignorePagingStart ? 0 : (start ?? 0);
    const page = list.slice(from, size === null ? undefined : from + size);
    return { page, paging: { totalSize: list.length, offset: from } };
  };

  const handler: Handler = (path, query, request) => {
    if (
      request.headers['x-plex-token'] !== FAKE_MEDIA_TOKEN &&
      query.get('X-Plex-Token') !== FAKE_MEDIA_TOKEN
    ) {
      return { status: 401, body: plexUnauthorized() };
    }
    if (path === '/') {
      const body = fixture('plex-root');
      if (model.serverName) container(body).friendlyName = model.serverName;
      return { status: 200, body };
    }
    if (path === '/accounts') {
      const body = fixture('plex-accounts');
      const accounts = container(body).Account as Json[];
      const template = structuredClone(accounts[1]) as Json;
      const list = [
        accounts[0] as Json,
        ...model.users.map((user) => ({
          ...template,
          id: Number(user.id),
          key: `/accounts/${user.id}`,
          name: user.name,
        })),
      ];
      Object.assign(container(body), { size: list.length, Account: list });
      return { status: 200, body };
    }
    if (path === '/library/sections') {
      const body = fixture('plex-sections');
      const [movies, shows] = container(body).Directory as Json[];
      const list = sections().map((section) => ({
        ...structuredClone(section.type === 'movie' ? movies : shows),
        key: section.key,
        type: section.type,
        title: section.title,
      }));
      Object.assign(container(body), { size: list.length, Directory: list });
      return { status: 200, body };
    }
    const all = /^\/library\/sections\/(\d+)\/all$/.exec(path);
    if (all) {
      const section = sections().find((candidate) => candidate.key === all[1]);
      if (!section) return { status: 404, body: '<html><body>404 Not Found</body></html>' };
      const body = fixture('plex-section-all');
      const template = firstOf(container(body).Metadata);
      const owner = '1';
      const items = model.items
        .filter((item) => (item.section ?? (item.kind === 'episode' ? '2' : '1')) === section.key)
        .filter((item) => item.kind !== 'episode' && !item.deleted)
        .sort((a, b) => a.title.localeCompare(b.title))
        .map((item) => {
          const own = plays(item, owner);
          const viewCount = own ? (own.count ?? own.at.length) : 0;
          const last = own?.lastAt ?? own?.at.at(-1);
          const entry: Json = {
            ...template,
            ratingKey: item.id,
            key: `/library/metadata/${item.id}`,
            title: item.title,
            year: item.year ?? undefined,
            thumb: `/library/metadata/${item.id}/thumb/1717400000`,
            art: `/library/metadata/${item.id}/art/1717400000`,
            ...plexGuids(item),
          };
          delete entry.viewCount;
          delete entry.lastViewedAt;
          if (viewCount > 0) entry.viewCount = viewCount;
          if (last) entry.lastViewedAt = epoch(last);
          // A trailer that a lax server lets through a type=1 listing.
          if (item.kind === 'trailer') Object.assign(entry, { type: 'clip', subtype: 'trailer' });
          return entry;
        });
      const { page, paging } = paged(items, query, request);
      Object.assign(container(body), {
        size: page.length,
        totalSize: undefined,
        offset: undefined,
        librarySectionID: Number(section.key),
        librarySectionTitle: section.title,
        title1: section.title,
        ...paging,
        Metadata: page,
      });
      return { status: 200, body };
    }
    if (path === '/status/sessions/history/all') {
      const body = fixture('plex-history');
      const template = firstOf(container(body).Metadata);
      const account = model.ignoreHistoryFilters ? null : query.get('accountID');
      const sectionKey = model.ignoreHistoryFilters ? null : query.get('librarySectionID');
      const rows: Json[] = [];
      for (const item of model.items) {
        const itemSection = item.section ?? (item.kind === 'episode' ? '2' : '1');
        if (sectionKey !== null && itemSection !== sectionKey) continue;
        for (const entry of item.plays ?? []) {
          if (account !== null && entry.user !== account) continue;
          for (const at of entry.at) {
            const row: Json = {
              ...template,
              key: `/library/metadata/${item.id}`,
              ratingKey: item.id,
              librarySectionID: itemSection,
              title: item.title,
              type: item.kind === 'episode' ? 'episode' : item.kind === 'trailer' ? 'clip' : 'movie',
              thumb: `/library/metadata/${item.id}/thumb/1717400000`,
              viewedAt: epoch(at),
              accountID: Number(entry.user),
              originallyAvailableAt: item.year ? `${item.year}-06-01` : undefined,
            };
            if (item.deleted) {
              delete row.key;
              delete row.ratingKey;
              delete row.thumb;
            }
            rows.push(row);
          }
        }
      }
      rows.sort((a, b) => (a.viewedAt as number) - (b.viewedAt as number));
      if (query.get('sort') !== 'viewedAt:asc') rows.reverse();
      rows.forEach((row, index) => {
        row.historyKey = `/status/sessions/history/${3300 + index}`;
      });
      const { page, paging } = paged(rows, query, request);
      Object.assign(container(body), {
        size: page.length,
        totalSize: undefined,
        offset: undefined,
        ...paging,
      });
      container(body).Metadata = page;
      return { status: 200, body };
    }
    return { status: 404, body: '<html><body>404 Not Found</body></html>' };
  };
  return start(model, handler);
}

export function startFakeJellyfin(
  model: FakeMediaModel = fakeMediaModel('jellyfin'),
): Promise<FakeMediaServer> {
  return start(model, mediaBrowserHandler('jellyfin', model));
}

export function startFakeEmby(model: FakeMediaModel = fakeMediaModel('emby')): Promise<FakeMediaServer> {
  return start(model, mediaBrowserHandler('emby', model));
}

function mediaBrowserHandler(server: 'jellyfin' | 'emby', model: FakeMediaModel): Handler {
  return (fullPath, query, request) => {
    if (!mediaBrowserToken(server, request, query)) return { status: 401, body: '' };
    // Emby answers under /emby/ (and, like Jellyfin, at the root).
    const path = server === 'emby' ? fullPath.replace(/^\/emby(?=\/)/i, '') : fullPath;
    if (path === '/System/Info') {
      const body = fixture(`${server}-system-info`);
      if (model.serverName) body.ServerName = model.serverName;
      return { status: 200, body };
    }
    if (server === 'emby' && path === '/Users/Query') {
      if (model.embyWithoutUsersQuery) return { status: 404, body: '' };
      const body = fixture('emby-users-query');
      const template = firstOf(body.Items);
      body.Items = model.users.map((user) => ({ ...template, Id: user.id, Name: user.name }));
      body.TotalRecordCount = model.users.length;
      return { status: 200, body };
    }
    if (path === '/Users') {
      const template = firstOf(fixture(`${server}-users`));
      return {
        status: 200,
        body: model.users.map((user) => ({ ...template, Id: user.id, Name: user.name })),
      };
    }
    // Jellyfin: `/Items?userId=` (10.9 marked `/Users/{id}/Items` obsolete, still served); Emby: `/Users/{id}/Items`.
    const legacy = /^\/Users\/([^/]+)\/Items$/.exec(path);
    const userId =
      legacy !== null
        ? decodeURIComponent(legacy[1] ?? '')
        : server === 'jellyfin' && path === '/Items'
          ? (query.get('userId') ?? query.get('UserId'))
          : null;
    if (userId !== null) {
      const user = model.users.find((candidate) => candidate.id === userId);
      if (!user) return { status: 404, body: '' };
      const body = fixture(`${server}-items`);
      const template = firstOf(body.Items);
      const types = (query.get('IncludeItemTypes') ?? '').split(',').filter(Boolean);
      const playedOnly = (query.get('Filters') ?? '').split(',').includes('IsPlayed');
      const list = model.items
        .filter((item) => !item.deleted)
        .map((item) => ({ item, plays: item.plays?.find((entry) => entry.user === user.id) }))
        .filter(({ item }) => {
          const type = mediaBrowserType(item);
          return model.ignoreTypeFilter || types.length === 0 || types.includes(type);
        })
        .filter(({ plays }) => !playedOnly || (plays !== undefined && (plays.count ?? plays.at.length) > 0))
        .sort((a, b) => a.item.title.localeCompare(b.item.title))
        .map(({ item, plays }) => {
          const providerIds: Json = {};
          const [tmdbKey, imdbKey] = item.lowerCaseProviderIds ? ['tmdb', 'imdb'] : ['Tmdb', 'Imdb'];
          if (item.tmdbId) providerIds[tmdbKey] = String(item.tmdbId);
          if (item.imdbId) providerIds[imdbKey] = item.imdbId;
          const last = plays?.lastAt ?? plays?.at.at(-1);
          const userData: Json = {
            ...(template.UserData as Json),
            PlayCount: plays ? (plays.count ?? plays.at.length) : 0,
            Played: plays !== undefined,
          };
          delete userData.LastPlayedDate;
          if (last) userData.LastPlayedDate = dotNetInstant(last);
          if (server === 'jellyfin')
            Object.assign(userData, { Key: item.id, ItemId: '00000000000000000000000000000000' });
          const entry: Json = {
            ...template,
            Name: item.title,
            Id: item.id,
            ProductionYear: item.year ?? undefined,
            ProviderIds: providerIds,
            Type: mediaBrowserType(item),
            UserData: userData,
          };
          if (item.kind === 'trailer') entry.ExtraType = 'Trailer';
          return entry;
        });
      const startIndex = Number(query.get('StartIndex') ?? '0');
      const limit = query.get('Limit') === null ? list.length : Number(query.get('Limit'));
      body.Items = list.slice(startIndex, startIndex + limit);
      body.TotalRecordCount = list.length;
      if (server === 'jellyfin') body.StartIndex = startIndex;
      return { status: 200, body };
    }
    return { status: 404, body: '' };
  };
}

function mediaBrowserType(item: FakeMediaItem): string {
  return item.kind === 'episode' ? 'Episode' : item.kind === 'trailer' ? 'Trailer' : 'Movie';
}

/** Jellyfin: `Authorization: MediaBrowser ... Token="..."` or `X-Emby-Token`; Emby: `X-Emby-Token`; both `api_key`. */
function mediaBrowserToken(
  server: 'jellyfin' | 'emby',
  request: IncomingMessage,
  query: URLSearchParams,
): boolean {
  if (request.headers['x-emby-token'] === FAKE_MEDIA_TOKEN || query.get('api_key') === FAKE_MEDIA_TOKEN)
    return true;
  if (server !== 'jellyfin') return false;
  const authorization = request.headers.authorization ?? '';
  const token = /^MediaBrowser\s.*\bToken="([^"]*)"/i.exec(authorization)?.[1];
  return token === FAKE_MEDIA_TOKEN;
}

function plexGuids(item: FakeMediaItem): Json {
  const plexGuid = `plex://movie/5d7768${item.id.padStart(18, '0')}`;
  switch (item.plexGuids ?? 'new') {
    case 'plex-only':
      return { guid: plexGuid, Guid: undefined };
    case 'legacy-imdb':
      return {
        guid: item.imdbId ? `com.plexapp.agents.imdb://${item.imdbId}?lang=de` : 'local://1',
        Guid: undefined,
      };
    case 'legacy-tmdb':
      return {
        guid: item.tmdbId ? `com.plexapp.agents.themoviedb://${item.tmdbId}?lang=de` : 'local://1',
        Guid: undefined,
      };
    default: {
      const guids = [
        ...(item.imdbId ? [{ id: `imdb://${item.imdbId}` }] : []),
        ...(item.tmdbId ? [{ id: `tmdb://${item.tmdbId}` }] : []),
      ];
      return { guid: plexGuid, Guid: guids.length > 0 ? guids : undefined };
    }
  }
}

function plexParameter(query: URLSearchParams, request: IncomingMessage, name: string): number | null {
  const header = request.headers[name.toLowerCase()];
  const value = query.get(name) ?? (typeof header === 'string' ? header : null);
  return value === null || !/^\d+$/.test(value) ? null : Number(value);
}

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** As .NET writes an instant: seven fraction digits and `Z`. */
function dotNetInstant(iso: string): string {
  const date = new Date(iso);
  return `${date.toISOString().slice(0, 19)}.${String(date.getUTCMilliseconds()).padStart(3, '0')}0000Z`;
}

// ---- The HTTP server -----------------------------------------------------------------------------

async function start(model: FakeMediaModel, handler: Handler): Promise<FakeMediaServer> {
  const requests: RecordedRequest[] = [];
  let failure: FakeFailure | null = null;
  let matched = 0;
  const answers = new Map<string, { status: number; body: unknown }>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    requests.push({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      headers: { ...request.headers },
    });
    const answer = (status: number, body: unknown, contentType?: string) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      response.writeHead(status, {
        'content-type':
          contentType ?? (typeof body === 'string' ? 'text/html' : 'application/json; charset=utf-8'),
      });
      response.end(text);
    };
    const normal = () => {
      const result =
        request.method !== 'GET'
          ? null
          : (answers.get(url.pathname) ?? handler(url.pathname, url.searchParams, request));
      if (!result) answer(405, '');
      else answer(result.status, result.body);
    };

    const scripted = failure && (failure.path === undefined || url.pathname.includes(failure.path));
    if (!failure || !scripted || matched++ < (failure.after ?? 0)) {
      normal();
      return;
    }
    switch (failure.mode) {
      case 'drop':
        request.socket.destroy();
        return;
      case 'status':
        answer(failure.status ?? 500, '<html><body>Server error</body></html>');
        return;
      case 'redirect':
        response.writeHead(302, { location: failure.location ?? '/web/index.html' });
        response.end();
        return;
      case 'stall':
        // The headers and a start, then nothing: the body never ends.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"MediaContainer": {"size": 2, ');
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) normal();
        }, failure.delayMs ?? 5000);
        timers.add(timer);
        return;
      }
      case 'html':
        answer(
          200,
          '<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in</body></html>',
          'text/html',
        );
        return;
      case 'broken-json':
        answer(200, '{"MediaContainer": {"size": 2, "Metadata": [{"ratingKey": "47', 'application/json');
        return;
      case 'wrong-shape':
        answer(200, { Items: 'none', MediaContainer: { Metadata: 'none', Directory: 7 }, ServerName: 12 });
        return;
      case 'huge': {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let left = failure.bytes ?? 21 * 1024 * 1024;
        response.write('{"padding":"');
        const pump = () => {
          while (left > 0) {
            left -= chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end('"}');
        };
        response.on('error', () => {});
        pump();
        return;
      }
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: FAKE_MEDIA_TOKEN,
    model,
    requests,
    setFailure(next) {
      failure = next;
      matched = 0;
    },
    setAnswer(path, next) {
      if (next === null) answers.delete(path);
      else answers.set(path, next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
