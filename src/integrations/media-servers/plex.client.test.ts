import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMediaServer, fakeMediaModel, startFakePlex } from '../../../test/fake-media-servers.js';
import { mediaServerClient } from './media-server.client.js';
import {
  type MediaServerClient,
  type MediaServerClientOptions,
  type MediaServerConnection,
  MediaServerError,
  type PlayedMovie,
} from './media-server.types.js';

let plex: FakeMediaServer;
/** Every error a test saw: none may hold the token. */
const errors: unknown[] = [];

beforeEach(async () => {
  plex = await startFakePlex();
  errors.length = 0;
});

afterEach(async () => {
  // The token travelled in its header only: never in a URL the server saw, never in a message.
  for (const request of plex.requests) {
    // Both tokens of these tests, the right one and the wrong one, have "token" in them.
    expect(request.url).not.toMatch(/token/i);
  }
  for (const error of errors) expect(String((error as Error).message)).not.toMatch(/token-/i);
  await plex.close();
});

const connect = (
  overrides: Partial<MediaServerConnection> = {},
  options: MediaServerClientOptions = {},
): MediaServerClient =>
  mediaServerClient(
    { server: 'plex', url: plex.url, token: plex.token, serverUser: null, ...overrides },
    { pageSize: 2, ...options },
  );

async function failure(promise: Promise<unknown>): Promise<MediaServerError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  errors.push(error);
  expect(error).toBeInstanceOf(MediaServerError);
  return error as MediaServerError;
}

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

  it('keeps a movie with a viewCount and no history (the history trimmed to nothing)', async () => {
    plex.model.items.push({
      id: '4720',
      title: 'Trimmed Away',
      year: 2001,
      tmdbId: 912020,
      imdbId: null,
      plays: [{ user: '1', at: [], count: 4 }],
    });
    const movie = (await readAll(connect())).movies.find((candidate) => candidate.itemId === '4720');
    expect(movie).toEqual({
      itemId: '4720',
      title: 'Trimmed Away',
      year: 2001,
      tmdbId: 912020,
      imdbId: null,
      views: [],
      playCount: 4,
      lastPlayedAt: null,
    });
  });

  it('says the server refused the token, without the token', async () => {
    const error = await failure(connect({ token: 'wrong-token-0000' }).check());
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toContain('refused the token');
    expect(error.message).not.toContain('wrong-token-0000');
    expect(error.message).toContain(plex.url);
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

  it('refuses a cursor it did not make', async () => {
    await expect(connect().playedMovies('page two')).rejects.toThrow(RangeError);
  });

  it('serves a model without movies: one empty last page', async () => {
    plex.model.items = [];
    expect(await connect().playedMovies(null)).toEqual({ movies: [], next: null, total: null });
    expect(fakeMediaModel('plex').items.length).toBeGreaterThan(0);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
