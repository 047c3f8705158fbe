import { describe, expect, it } from 'vitest';
import {
  type FakeMediaServer,
  fakeMediaModel,
  mediaServerFixture,
  startFakeEmby,
  startFakeJellyfin,
} from '../../../test/fake-media-servers.js';
import { closedPort, fakeServerPerTest } from '../../../test/media-server-clients.js';
import { mediaServerClient } from './media-server.client.js';
import type {
  MediaServerClient,
  MediaServerClientOptions,
  MediaServerConnection,
  PlayedMovie,
} from './media-server.types.js';

/** Jellyfin and Emby answer the same API; each flavour is checked against its own fake. */
describe.each([
  {
    server: 'jellyfin' as const,
    label: 'Jellyfin',
    start: startFakeJellyfin,
    prefix: '',
    version: '10.9.11',
  },
  { server: 'emby' as const, label: 'Emby', start: startFakeEmby, prefix: '/emby', version: '4.8.8.0' },
])('the $label client', ({ server, label, start, prefix, version }) => {
  let fake: FakeMediaServer;
  const [anna, bernd] = fakeMediaModel(server).users as [
    { id: string; name: string },
    { id: string; name: string },
  ];
  const itemId = (n: number) => `${'a'.repeat(28)}${String(n).padStart(4, '0')}`;

  const { failure } = fakeServerPerTest(
    async () => {
      fake = await start();
      return fake;
    },
    // The key in a header only, never in a URL; every URL under the flavour's prefix.
    (url) => {
      expect(url).not.toMatch(/token|api_key/i);
      expect(url.startsWith(`${prefix}/`)).toBe(true);
    },
  );

  const connect = (
    overrides: Partial<MediaServerConnection> = {},
    options: MediaServerClientOptions = {},
  ): MediaServerClient =>
    mediaServerClient(
      { server, url: fake.url, token: fake.token, serverUser: anna.name, ...overrides },
      { pageSize: 2, ...options },
    );

  async function readAll(client: MediaServerClient, cursor: string | null = null) {
    const movies: PlayedMovie[] = [];
    const pages: { next: string | null; total: number | null }[] = [];
    for (let page = 0; page < 50; page += 1) {
      const result = await client.playedMovies(cursor);
      movies.push(...result.movies);
      pages.push({ next: result.next, total: result.total });
      if (result.next === null) return { movies, pages };
      cursor = result.next;
    }
    throw new Error('the pages never ended');
  }

  const ANNA_MOVIES: PlayedMovie[] = [
    {
      // A count and the last play only: 3 plays, 1 instant.
      itemId: itemId(2),
      title: 'Paper Comets',
      year: 2015,
      tmdbId: 912002,
      imdbId: 'tt1720002',
      views: ['2023-12-24T19:00:00.000Z'],
      playCount: 3,
      lastPlayedAt: '2023-12-24T19:00:00.000Z',
    },
    {
      itemId: itemId(4),
      title: 'Quiet Orchard',
      year: 2020,
      tmdbId: null,
      imdbId: null,
      views: ['2024-03-03T18:30:00.000Z'],
      playCount: 1,
      lastPlayedAt: '2024-03-03T18:30:00.000Z',
    },
    {
      itemId: itemId(1),
      title: 'The Lantern Keepers',
      year: 2011,
      tmdbId: 912001,
      imdbId: 'tt1720001',
      views: ['2024-05-29T20:12:25.000Z'],
      playCount: 2,
      lastPlayedAt: '2024-05-29T20:12:25.000Z',
    },
  ];

  it('checks the server: its name and version, the key in its header', async () => {
    expect(await connect().check()).toEqual({
      name: server === 'jellyfin' ? 'keller-jellyfin' : 'dachboden-emby',
      version,
    });
    const [request] = fake.requests;
    expect(request?.url).toBe(`${prefix}/System/Info`);
    if (server === 'jellyfin') {
      expect(request?.headers.authorization).toMatch(new RegExp(`^MediaBrowser .*Token="${fake.token}"`));
      expect(request?.headers['x-emby-token']).toBeUndefined();
    } else {
      expect(request?.headers['x-emby-token']).toBe(fake.token);
      expect(request?.headers.authorization).toBeUndefined();
    }
  });

  it("lists the server's users", async () => {
    expect(await connect().users()).toEqual([anna, bernd]);
    // Emby 4.8 documents /Users/Query; Jellyfin has /Users.
    expect(fake.requests.map((request) => request.url)).toEqual([
      server === 'jellyfin' ? '/Users' : '/emby/Users/Query',
    ]);
  });

  it("pages through the user's played movies, with the total, and resumes from a stored cursor", async () => {
    const { movies, pages } = await readAll(connect());
    expect(movies).toEqual(ANNA_MOVIES);
    expect(pages).toEqual([
      { next: '2', total: 3 },
      { next: null, total: 3 },
    ]);
    const items = fake.requests.filter((request) => request.url.includes('/Items'));
    const query = new URL(items[0]?.url ?? '', fake.url).searchParams;
    expect(query.get('IncludeItemTypes')).toBe('Movie');
    expect(query.get('Filters')).toBe('IsPlayed');
    expect(query.get('Recursive')).toBe('true');
    expect(query.get('Fields')).toContain('ProviderIds');
    if (server === 'jellyfin') {
      // 10.9 marked /Users/{id}/Items obsolete: the user goes in the query.
      expect(new URL(items[0]?.url ?? '', fake.url).pathname).toBe('/Items');
      expect(query.get('userId')).toBe(anna.id);
    } else {
      expect(new URL(items[0]?.url ?? '', fake.url).pathname).toBe(`/emby/Users/${anna.id}/Items`);
    }

    // After a restart: a new client from the stored cursor.
    expect((await readAll(connect(), '2')).movies).toEqual(ANNA_MOVIES.slice(2));
  });

  it('picks the user by id (with or without dashes) or by name in any case', async () => {
    const bernds = [
      {
        // Lower-case ProviderIds keys, as some servers send them.
        itemId: itemId(5),
        title: 'Old Agent Story',
        year: 1999,
        tmdbId: 912005,
        imdbId: null,
        views: ['2024-04-04T20:00:00.000Z'],
        playCount: 1,
        lastPlayedAt: '2024-04-04T20:00:00.000Z',
      },
      {
        itemId: itemId(1),
        title: 'The Lantern Keepers',
        year: 2011,
        tmdbId: 912001,
        imdbId: 'tt1720001',
        views: ['2024-02-02T21:00:00.000Z'],
        playCount: 1,
        lastPlayedAt: '2024-02-02T21:00:00.000Z',
      },
    ];
    expect((await readAll(connect({ serverUser: 'BERND' }))).movies).toEqual(bernds);
    expect((await readAll(connect({ serverUser: bernd.id }))).movies).toEqual(bernds);
    const dashed = bernd.id.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-').toUpperCase();
    expect((await readAll(connect({ serverUser: dashed }))).movies).toEqual(bernds);
  });

  it('refuses no user on a server with several, and a user it does not have, naming them', async () => {
    const ambiguous = await failure(connect({ serverUser: null }).playedMovies(null));
    expect(ambiguous.reason).toBe('ambiguous-user');
    expect(ambiguous.message).toContain('"anna", "Bernd"');
    const unknown = await failure(connect({ serverUser: 'carla' }).playedMovies(null));
    expect(unknown.reason).toBe('unknown-user');
    expect(unknown.message).toContain('"carla"');
    expect(unknown.message).toContain('"anna"');
  });

  it('takes the only user when none is named', async () => {
    fake.model.users = [anna];
    expect((await readAll(connect({ serverUser: null }))).movies).toEqual(ANNA_MOVIES);
  });

  it('says a user the server no longer knows is unknown (a 404 on its items)', async () => {
    const client = connect();
    await client.playedMovies(null);
    fake.model.users = [{ id: '0'.repeat(32), name: 'someone else' }];
    const error = await failure(client.playedMovies('2'));
    expect(error.reason).toBe('unknown-user');
    // "anna" made again, under a new id: the same client asks for the users again and finds her.
    const newId = 'b'.repeat(32);
    fake.model.users = [{ id: newId, name: 'anna' }];
    expect(await client.playedMovies(null)).toEqual({ movies: [], next: null, total: 0 });
    expect(fake.requests.at(-1)?.url).toContain(newId);
  });

  it('leaves out episodes and trailers a lax server lets through', async () => {
    fake.model.ignoreTypeFilter = true;
    const { movies, pages } = await readAll(connect());
    expect(movies).toEqual(ANNA_MOVIES);
    // The server counted them (5 items): the pages go on over them.
    expect(pages.at(-1)?.total).toBe(5);
  });

  it('reads a played movie without a last play or ids: nulls, counted once', async () => {
    fake.model.items.push({
      id: itemId(30),
      title: 'Zz No Date',
      plays: [{ user: anna.id, at: [], count: 0 }],
    });
    // The fake counts it unplayed; mark it played as a server would after "mark as watched".
    const item = fake.model.items.at(-1);
    if (item?.plays?.[0]) item.plays[0].count = 1;
    const movie = (await readAll(connect())).movies.at(-1);
    expect(movie).toEqual({
      itemId: itemId(30),
      title: 'Zz No Date',
      year: null,
      tmdbId: null,
      imdbId: null,
      views: [],
      playCount: 1,
      lastPlayedAt: null,
    });
  });

  it('says the server refused the key, without the key', async () => {
    const error = await failure(connect({ token: 'wrong-token-0000' }).check());
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('refused the token');
    expect(error.message).toContain(`${label} at`);
    expect(error.message).not.toContain('wrong-token-0000');
  });

  it('refuses a key pasted with a non-ASCII letter before asking, without quoting it', async () => {
    const error = await failure(connect({ token: 'token-ab\u00e9cd' }).users());
    expect(error.reason).toBe('unauthorized');
    expect(error.message).not.toContain('ab\u00e9cd');
    expect(fake.requests).toHaveLength(0);
  });

  it('says a closed port is unreachable', async () => {
    const port = await closedPort();
    const error = await failure(connect({ url: `http://127.0.0.1:${port}` }).check());
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('reads the recorded answers of a real server as they are', async () => {
    const recorded = (name: string) => ({ status: 200, body: mediaServerFixture(`${server}-${name}`) });
    const owner = server === 'jellyfin' ? anna : bernd;
    fake.setAnswer(
      server === 'jellyfin' ? '/Users' : '/emby/Users/Query',
      recorded(server === 'jellyfin' ? 'users' : 'users-query'),
    );
    fake.setAnswer(server === 'jellyfin' ? '/Items' : `/emby/Users/${owner.id}/Items`, recorded('items'));
    const page = await connect({ serverUser: null }).playedMovies(null);
    expect(page.next).toBe('2');
    expect(page.total).toBe(5);
    expect(page.movies).toEqual(
      server === 'jellyfin'
        ? [
            {
              itemId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
              title: 'The Lantern Keepers',
              year: 2011,
              tmdbId: 912001,
              imdbId: 'tt1720001',
              views: ['2024-05-29T20:12:25.463Z'],
              playCount: 2,
              lastPlayedAt: '2024-05-29T20:12:25.463Z',
            },
            {
              // Marked played, never played: no count, no date.
              itemId: 'b2c3d4e5f60718293a4b5c6d7e8f90a1',
              title: 'Paper Comets',
              year: 2015,
              tmdbId: null,
              imdbId: 'tt1720002',
              views: [],
              playCount: 1,
              lastPlayedAt: null,
            },
          ]
        : [
            {
              itemId: '10421',
              title: 'The Lantern Keepers',
              year: 2011,
              tmdbId: 912001,
              imdbId: 'tt1720001',
              views: ['2024-05-29T20:12:25.000Z'],
              playCount: 3,
              lastPlayedAt: '2024-05-29T20:12:25.000Z',
            },
            {
              itemId: '10422',
              title: 'Paper Comets',
              year: 2015,
              tmdbId: 912002,
              imdbId: 'tt1720002',
              views: ['2023-12-24T19:00:00.000Z'],
              playCount: 1,
              lastPlayedAt: '2023-12-24T19:00:00.000Z',
            },
          ],
    );
  });

  it('gives up on a server that starts an answer and never ends it', async () => {
    fake.setFailure({ mode: 'stall' });
    expect((await failure(connect({}, { timeoutMs: 300 }).check())).reason).toBe('timeout');
  });

  it('reports a redirect and does not follow it', async () => {
    fake.setFailure({ mode: 'redirect', location: '/web/index.html' });
    const error = await failure(connect().check());
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain(`redirect (HTTP 302) to ${fake.url}/web/index.html`);
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up on a slow server after timeoutMs', async () => {
    fake.setFailure({ mode: 'slow', delayMs: 3000 });
    const error = await failure(connect({}, { timeoutMs: 200 }).users());
    expect(error.reason).toBe('timeout');
  });

  it.each([
    ['html', 'a web page'],
    ['broken-json', 'not JSON'],
    ['wrong-shape', 'shape'],
    ['huge', 'more than 1 MB'],
  ] as const)('says a %s answer is a bad answer', async (mode, words) => {
    fake.setFailure({ mode, path: '/Items', bytes: 2 * 1024 * 1024 });
    const error = await failure(connect({}, { maxResponseBytes: 1024 * 1024 }).playedMovies(null));
    expect(error.reason).toBe('bad-answer');
    expect(error.message).toContain(words);
  });

  it('says a wrong shape of the users or the server info is a bad answer', async () => {
    fake.setFailure({ mode: 'wrong-shape' });
    expect((await failure(connect().users())).reason).toBe('bad-answer');
    expect((await failure(connect().check())).reason).toBe('bad-answer');
  });

  it('says which page an outage cut, and the cursor of the page before still resumes', async () => {
    fake.setFailure({ mode: 'status', status: 503, path: '/Items', after: 1 });
    const client = connect();
    const first = await client.playedMovies(null);
    expect(first.next).toBe('2');
    const error = await failure(client.playedMovies(first.next));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('from 2');

    fake.setFailure(null);
    const rest = await readAll(connect(), first.next);
    expect([...first.movies, ...rest.movies]).toEqual(ANNA_MOVIES);
  });

  it('reads many played movies page by page, each once, with the total', async () => {
    fake.model.items = Array.from({ length: 450 }, (_, n) => ({
      id: itemId(100 + n),
      title: `Movie ${String(n).padStart(3, '0')}`,
      tmdbId: 100_000 + n,
      plays: [{ user: anna.id, at: ['2023-03-10T20:00:00Z'], count: (n % 4) + 1 }],
    }));
    const { movies, pages } = await readAll(connect({}, { pageSize: 200 }));
    expect(pages).toEqual([
      { next: '200', total: 450 },
      { next: '400', total: 450 },
      { next: null, total: 450 },
    ]);
    expect(new Set(movies.map((movie) => movie.itemId)).size).toBe(450);
    expect(movies.reduce((sum, movie) => sum + movie.playCount, 0)).toBe(
      Array.from({ length: 450 }, (_, n) => (n % 4) + 1).reduce((a, b) => a + b, 0),
    );
  });

  it('refuses a cursor it did not make', async () => {
    await expect(connect().playedMovies('1:2')).rejects.toThrow(RangeError);
  });

  it("says a URL that is not the server's is not found", async () => {
    const error = await failure(connect({ url: `${fake.url}/elsewhere` }).check());
    expect(error.reason).toBe('not-found');
    expect(error.message).toContain('/System/Info');
    expect(fake.requests.map((request) => request.url)).toEqual([`/elsewhere${prefix}/System/Info`]);
    fake.requests.length = 0;
  });
});

describe('the Emby client', () => {
  it('lists the users of an older Emby at /Users when /Users/Query is not there', async () => {
    const emby = await startFakeEmby({ ...fakeMediaModel('emby'), embyWithoutUsersQuery: true });
    try {
      const client = mediaServerClient({
        server: 'emby',
        url: emby.url,
        token: emby.token,
        serverUser: null,
      });
      expect((await client.users()).map((user) => user.name)).toEqual(['anna', 'Bernd']);
      expect(emby.requests.map((request) => request.url)).toEqual(['/emby/Users/Query', '/emby/Users']);
    } finally {
      await emby.close();
    }
  });

  it('takes a URL that already ends with /emby', async () => {
    const emby = await startFakeEmby();
    try {
      const client = mediaServerClient({
        server: 'emby',
        url: `${emby.url}/emby/`,
        token: emby.token,
        serverUser: null,
      });
      expect((await client.check()).name).toBe('dachboden-emby');
      expect(emby.requests.map((request) => request.url)).toEqual(['/emby/System/Info']);
    } finally {
      await emby.close();
    }
  });
});
