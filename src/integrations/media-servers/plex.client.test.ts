import { describe, expect, it } from 'vitest';
import {
  type FakeMediaServer,
  fakeMediaModel,
  mediaServerFixture,
  startFakePlex,
} from '../../../test/fake-media-servers.js';
import { closedPort, fakeServerPerTest } from '../../../test/media-server-clients.js';
import { mediaServerClient } from './media-server.client.js';
import type {
  MediaServerClient,
  MediaServerClientOptions,
  MediaServerConnection,
  PlayedMovie,
} from './media-server.types.js';

let plex: FakeMediaServer;
const { failure } = fakeServerPerTest(
  async () => {
    plex = await startFakePlex();
    return plex;
  },
  // Both tokens of these tests, the right one and the wrong one, have "token" in them.
  (url) => expect(url).not.toMatch(/token/i),
);

const connect = (
  overrides: Partial<MediaServerConnection> = {},
  options: MediaServerClientOptions = {},
): MediaServerClient =>
  mediaServerClient(
    { server: 'plex', url: plex.url, token: plex.token, serverUser: null, ...overrides },
    { pageSize: 2, ...options },
  );

/** Every page from `cursor` on: the movies and the cursors handed back. */
async function readAll(client: MediaServerClient, cursor: string | null = null) {
  const movies: PlayedMovie[] = [];
  const cursors: (string | null)[] = [];
  for (let page = 0; page < 50; page += 1) {
    const result = await client.playedMovies(cursor);
    movies.push(...result.movies);
    cursors.push(result.next);
    if (result.next === null) return { movies, cursors };
    cursor = result.next;
  }
  throw new Error('the pages never ended');
}

const OWNER_MOVIES: PlayedMovie[] = [
  {
    // The old IMDb agent: `com.plexapp.agents.imdb://tt...`. The history kept 1 of 3 plays.
    itemId: '4702',
    title: 'Paper Comets',
    year: 2015,
    tmdbId: null,
    imdbId: 'tt1720002',
    views: ['2023-12-24T19:00:00.000Z'],
    playCount: 3,
    lastPlayedAt: '2023-12-24T19:00:00.000Z',
  },
  {
    // Only a `plex://` guid: no outside id, title and year only.
    itemId: '4704',
    title: 'Quiet Orchard',
    year: 2020,
    tmdbId: null,
    imdbId: null,
    views: ['2024-03-03T18:30:00.000Z'],
    playCount: 1,
    lastPlayedAt: '2024-03-03T18:30:00.000Z',
  },
  {
    itemId: '4701',
    title: 'The Lantern Keepers',
    year: 2011,
    tmdbId: 912001,
    imdbId: 'tt1720001',
    views: ['2024-01-11T19:06:40.000Z', '2024-05-29T20:12:25.000Z'],
    playCount: 2,
    lastPlayedAt: '2024-05-29T20:12:25.000Z',
  },
];

describe('the Plex client', () => {
  it('checks the server: its name and version, asked as JSON with the token in X-Plex-Token', async () => {
    expect(await connect().check()).toEqual({ name: 'Wohnzimmer', version: '1.40.3.8555-fef15d30c' });
    const [request] = plex.requests;
    expect(request?.url).toBe('/');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['x-plex-token']).toBe(plex.token);
  });

  it("lists the server's accounts, without Plex's nameless account 0", async () => {
    expect(await connect().users()).toEqual([
      { id: '1', name: 'wohnzimmer-owner' },
      { id: '52841977', name: 'Partner' },
    ]);
  });

  it("pages through the movie libraries: the owner's played movies with each view of the history", async () => {
    const { movies, cursors } = await readAll(connect());
    expect(movies).toEqual(OWNER_MOVIES);
    // 6 items in library 1, 2 a page; the show library is never read.
    expect(cursors).toEqual(['1:2', '1:4', null]);
    expect(plex.requests.some((request) => request.url.startsWith('/library/sections/2'))).toBe(false);
    // The history is read once (in pages of 2: 4 views and the trailer's), not once a page of the library.
    const history = plex.requests.filter((request) => request.url.startsWith('/status/sessions/history/all'));
    expect(
      history.map((request) => new URL(request.url, plex.url).searchParams.get('X-Plex-Container-Start')),
    ).toEqual(['0', '2', '4']);
    for (const request of history) {
      const query = new URL(request.url, plex.url).searchParams;
      expect(query.get('accountID')).toBe('1');
      expect(query.get('librarySectionID')).toBe('1');
    }
  });

  it('goes on into the next movie library, and resumes from a stored cursor with a new client', async () => {
    plex.model.sections = [
      { key: '1', type: 'movie', title: 'Filme' },
      { key: '2', type: 'show', title: 'Serien' },
      { key: '7', type: 'movie', title: 'Kinder' },
    ];
    plex.model.items.push({
      id: '4790',
      title: 'Kite Weather',
      year: 2018,
      tmdbId: 912090,
      imdbId: 'tt1720090',
      section: '7',
      plays: [{ user: '1', at: ['2024-06-01T10:00:00Z'] }],
    });
    const whole = await readAll(connect());
    expect(whole.cursors).toEqual(['1:2', '1:4', '7:0', null]);
    expect(whole.movies.map((movie) => movie.title)).toEqual([
      'Paper Comets',
      'Quiet Orchard',
      'The Lantern Keepers',
      'Kite Weather',
    ]);

    // After a restart: a new client from the first page's cursor reads what was left.
    const resumed = await readAll(connect(), '1:2');
    expect(resumed.movies.map((movie) => movie.title)).toEqual([
      'Quiet Orchard',
      'The Lantern Keepers',
      'Kite Weather',
    ]);
    // A library that is gone: the next one.
    plex.model.sections = plex.model.sections.filter((section) => section.key !== '1');
    const gone = await readAll(connect(), '1:2');
    expect(gone.movies.map((movie) => movie.title)).toEqual(['Kite Weather']);
  });

  it("reads another account's plays from the history only, the account picked by name or id", async () => {
    const expected = [
      {
        // The old TheMovieDB agent: `com.plexapp.agents.themoviedb://...`.
        itemId: '4705',
        title: 'Old Agent Story',
        year: 1999,
        tmdbId: 912005,
        imdbId: null,
        views: ['2024-04-04T20:00:00.000Z'],
        playCount: 1,
        lastPlayedAt: '2024-04-04T20:00:00.000Z',
      },
      {
        // The library's viewCount (2) is the owner's, not the partner's.
        itemId: '4701',
        title: 'The Lantern Keepers',
        year: 2011,
        tmdbId: 912001,
        imdbId: 'tt1720001',
        views: ['2024-02-02T21:00:00.000Z'],
        playCount: 1,
        lastPlayedAt: '2024-02-02T21:00:00.000Z',
      },
    ];
    expect((await readAll(connect({ serverUser: 'partner' }))).movies).toEqual(expected);
    expect((await readAll(connect({ serverUser: '52841977' }))).movies).toEqual(expected);
    // The owner named explicitly is the owner.
    expect((await readAll(connect({ serverUser: 'wohnzimmer-owner' }))).movies).toEqual(OWNER_MOVIES);
  });

  it('refuses an account the server does not have, naming those it has', async () => {
    const error = await failure(connect({ serverUser: 'nobody' }).playedMovies(null));
    expect(error.reason).toBe('unknown-user');
    expect(error.message).toContain('"nobody"');
    expect(error.message).toContain('"Partner"');
  });

  it('leaves out trailers and episodes, even when a lax server lets them through', async () => {
    // An episode filed in the movie library's history, a trailer listed as a clip of it.
    const episode = plex.model.items.find((item) => item.kind === 'episode');
    if (episode) episode.section = '1';
    const { movies } = await readAll(connect());
    expect(movies).toEqual(OWNER_MOVIES);
    expect(movies.map((movie) => movie.itemId)).not.toContain('4706');
    expect(movies.map((movie) => movie.itemId)).not.toContain('4707');
  });

  it('keeps a movie with a viewCount and no history: lastViewedAt is its one view', async () => {
    plex.model.items.push(
      {
        id: '4720',
        title: 'Trimmed Away',
        year: 2001,
        tmdbId: 912020,
        imdbId: null,
        plays: [{ user: '1', at: [], count: 4, lastAt: '2024-02-10T20:00:00Z' }],
      },
      {
        // The history lost the last play but kept an older one.
        id: '4721',
        title: 'Trimmed Last',
        year: 2002,
        tmdbId: 912021,
        imdbId: null,
        plays: [{ user: '1', at: ['2023-01-01T20:00:00Z'], count: 3, lastAt: '2024-02-11T20:00:00Z' }],
      },
      {
        // No instant at all: a count only.
        id: '4722',
        title: 'Trimmed Bare',
        year: 2003,
        tmdbId: 912022,
        imdbId: null,
        plays: [{ user: '1', at: [], count: 2 }],
      },
    );
    const { movies } = await readAll(connect());
    const byId = (id: string) => movies.find((candidate) => candidate.itemId === id);
    expect(byId('4720')).toEqual({
      itemId: '4720',
      title: 'Trimmed Away',
      year: 2001,
      tmdbId: 912020,
      imdbId: null,
      views: ['2024-02-10T20:00:00.000Z'],
      playCount: 4,
      lastPlayedAt: '2024-02-10T20:00:00.000Z',
    });
    expect(byId('4721')).toMatchObject({
      views: ['2023-01-01T20:00:00.000Z', '2024-02-11T20:00:00.000Z'],
      playCount: 3,
      lastPlayedAt: '2024-02-11T20:00:00.000Z',
    });
    expect(byId('4722')).toMatchObject({ views: [], playCount: 2, lastPlayedAt: null });
  });

  it('reads the movies deleted since from their history rows: title, year and views, no ids', async () => {
    plex.model.sections = [
      { key: '1', type: 'movie', title: 'Filme' },
      { key: '7', type: 'movie', title: 'Kinder' },
    ];
    plex.model.items.push(
      {
        id: '4730',
        title: 'Gone Tomorrow',
        year: 2005,
        tmdbId: 912030,
        imdbId: 'tt1720030',
        deleted: true,
        plays: [{ user: '1', at: ['2022-05-05T20:00:00Z', '2021-04-04T20:00:00Z'] }],
      },
      {
        id: '4731',
        title: 'Also Gone',
        year: 2006,
        deleted: true,
        plays: [{ user: '52841977', at: ['2022-06-06T20:00:00Z'] }],
      },
      {
        id: '4790',
        title: 'Kite Weather',
        year: 2018,
        tmdbId: 912090,
        imdbId: 'tt1720090',
        section: '7',
        plays: [{ user: '1', at: ['2024-06-01T10:00:00Z'] }],
      },
    );
    const { movies, cursors } = await readAll(connect());
    expect(cursors).toEqual(['1:2', '1:4', '1:d0', '7:0', null]);
    expect(movies.map((movie) => movie.title)).toEqual([
      'Paper Comets',
      'Quiet Orchard',
      'The Lantern Keepers',
      'Gone Tomorrow',
      'Kite Weather',
    ]);
    expect(movies[3]).toEqual({
      itemId: 'deleted:1:Gone Tomorrow:2005',
      title: 'Gone Tomorrow',
      year: 2005,
      tmdbId: null,
      imdbId: null,
      views: ['2021-04-04T20:00:00.000Z', '2022-05-05T20:00:00.000Z'],
      playCount: 2,
      lastPlayedAt: '2022-05-05T20:00:00.000Z',
    });
    // Resumed at the deleted movies with a new client: the same, and on.
    const resumed = await readAll(connect(), '1:d0');
    expect(resumed.movies.map((movie) => movie.itemId)).toEqual(['deleted:1:Gone Tomorrow:2005', '4790']);
    // Another account's deleted movies are its own.
    const partner = (await readAll(connect({ serverUser: 'Partner' }))).movies.map((movie) => movie.itemId);
    expect(partner).toContain('deleted:1:Also Gone:2006');
    expect(partner).not.toContain('deleted:1:Gone Tomorrow:2005');
  });

  it("checks the history's rows itself: a server that ignores the account and library filters", async () => {
    plex.model.ignoreHistoryFilters = true;
    plex.model.sections = [
      { key: '1', type: 'movie', title: 'Filme' },
      { key: '7', type: 'movie', title: 'Kinder' },
    ];
    plex.model.items.push({
      id: '4730',
      title: 'Gone Tomorrow',
      year: 2005,
      deleted: true,
      plays: [{ user: '1', at: ['2022-05-05T20:00:00Z'] }],
    });
    const { movies } = await readAll(connect());
    // The partner's view of The Lantern Keepers is not the owner's; the deleted movie is library 1's only.
    expect(movies).toEqual([
      ...OWNER_MOVIES,
      expect.objectContaining({
        itemId: 'deleted:1:Gone Tomorrow:2005',
        views: ['2022-05-05T20:00:00.000Z'],
      }),
    ]);
  });

  it('says a history whose pages repeat is a bad answer, instead of reading it forever', async () => {
    plex.model.ignorePagingStart = true;
    const error = await failure(connect().playedMovies(null));
    expect(error.reason).toBe('bad-answer');
    expect(error.message).toContain('the same page twice');
  });

  it('reads the recorded answers of a real server as they are', async () => {
    const body = (name: string) => ({ status: 200, body: mediaServerFixture(name) });
    plex.setAnswer('/library/sections', body('plex-sections'));
    plex.setAnswer('/library/sections/1/all', body('plex-section-all'));
    plex.setAnswer('/status/sessions/history/all', body('plex-history'));
    const page = await connect().playedMovies(null);
    // The recording: 2 of 5 movies, one with two views, one never played (no viewCount).
    expect(page).toEqual({
      movies: [
        {
          itemId: '4711',
          title: 'The Lantern Keepers',
          year: 2011,
          tmdbId: 912001,
          imdbId: 'tt1720001',
          views: ['2024-01-11T19:06:40.000Z', '2024-05-29T19:52:25.000Z'],
          playCount: 2,
          lastPlayedAt: '2024-05-29T19:52:25.000Z',
        },
      ],
      next: '1:2',
      total: null,
    });
  });

  it('says the server refused the token, without the token', async () => {
    const error = await failure(connect({ token: 'wrong-token-0000' }).check());
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('refused the token');
    expect(error.message).not.toContain('wrong-token-0000');
    expect(error.message).toContain(plex.url);
  });

  it('refuses an empty token or one pasted with a line break before asking, without quoting it', async () => {
    const empty = await failure(connect({ token: '  ' }).check());
    expect(empty.reason).toBe('unauthorized');
    expect(empty.message).toContain('empty');
    const broken = await failure(connect({ token: 'token-abc\ndef' }).check());
    expect(broken.reason).toBe('unauthorized');
    expect(broken.message).not.toContain('abc');
    expect(plex.requests).toHaveLength(0);
    // Spaces around a pasted token are not part of it.
    expect((await connect({ token: ` ${plex.token} ` }).check()).name).toBe('Wohnzimmer');
  });

  it('says a closed port or a wrong URL is unreachable', async () => {
    const port = await closedPort();
    const error = await failure(connect({ url: `http://127.0.0.1:${port}` }).check());
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('refused');
    const notAUrl = await failure(connect({ url: 'plex.local:32400' }).check());
    expect(notAUrl.reason).toBe('unreachable');
    expect(notAUrl.message).toContain('http://');
  });

  it('gives up on a server that starts an answer and never ends it', async () => {
    plex.setFailure({ mode: 'stall' });
    const error = await failure(connect({}, { timeoutMs: 300 }).check());
    expect(error.reason).toBe('timeout');
  });

  it('reports a redirect and does not follow it: the token goes to the URL given only', async () => {
    plex.setFailure({ mode: 'redirect', location: 'https://elsewhere.invalid/login?next=%2F' });
    const error = await failure(connect().check());
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('redirect (HTTP 302) to https://elsewhere.invalid/login');
    expect(error.message).not.toContain('next=');
    expect(plex.requests).toHaveLength(1);
  });

  it('gives up on a slow server after timeoutMs', async () => {
    plex.setFailure({ mode: 'slow', delayMs: 3000 });
    const started = Date.now();
    const error = await failure(connect({}, { timeoutMs: 200 }).check());
    expect(error.reason).toBe('timeout');
    expect(error.message).toContain('200 ms');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it.each([
    ['html', 'a web page'],
    ['broken-json', 'not JSON'],
    ['wrong-shape', 'shape'],
    ['huge', 'more than 1 MB'],
    ['status', 'HTTP 500'],
  ] as const)('says a %s answer is a bad answer', async (mode, words) => {
    plex.setFailure({ mode, bytes: 2 * 1024 * 1024 });
    const error = await failure(connect({}, { maxResponseBytes: 1024 * 1024 }).playedMovies(null));
    expect(error.reason).toBe('bad-answer');
    expect(error.message).toContain(words);
    expect(error.message).toContain('Plex at');
  });

  it('says which page an outage cut, and the cursor of the page before still resumes', async () => {
    // The second request for a page of the library has its connection cut.
    plex.setFailure({ mode: 'drop', path: '/library/sections/1/all', after: 1 });
    const client = connect();
    const first = await client.playedMovies(null);
    expect(first.next).toBe('1:2');
    const error = await failure(client.playedMovies(first.next));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('from 2');

    plex.setFailure(null);
    const rest = await readAll(connect(), first.next);
    expect([...first.movies, ...rest.movies]).toEqual(OWNER_MOVIES);
  });

  it('reads a large library page by page, each played movie once', async () => {
    plex.model.items = Array.from({ length: 450 }, (_, n) => ({
      id: String(10_000 + n),
      title: `Movie ${String(n).padStart(3, '0')}`,
      year: 2000 + (n % 20),
      tmdbId: 100_000 + n,
      imdbId: null,
      // Every third movie played, by the owner, n % 4 + 1 times.
      plays:
        n % 3 === 0
          ? [{ user: '1', at: Array.from({ length: (n % 4) + 1 }, (_, k) => `2023-0${k + 1}-10T20:00:00Z`) }]
          : [],
    }));
    const { movies, cursors } = await readAll(connect({}, { pageSize: 200 }));
    expect(cursors).toEqual(['1:200', '1:400', null]);
    expect(movies).toHaveLength(150);
    expect(new Set(movies.map((movie) => movie.itemId)).size).toBe(150);
    expect(movies.reduce((sum, movie) => sum + movie.playCount, 0)).toBe(
      Array.from({ length: 450 }, (_, n) => (n % 3 === 0 ? (n % 4) + 1 : 0)).reduce((a, b) => a + b, 0),
    );
  });

  it('refuses a cursor it did not make', async () => {
    await expect(connect().playedMovies('page two')).rejects.toThrow(RangeError);
  });

  it('serves a model without movies: one empty last page', async () => {
    plex.model.items = [];
    expect(await connect().playedMovies(null)).toEqual({ movies: [], next: null, total: null });
    expect(fakeMediaModel('plex').items.length).toBeGreaterThan(0);
  });
});
