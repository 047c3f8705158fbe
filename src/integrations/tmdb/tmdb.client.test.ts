import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_READ_ACCESS_TOKEN,
  type FakeTmdb,
  startFakeTmdb,
} from '../../../test/fake-tmdb.js';
import { createTmdbClient, type TmdbClientOptions } from './tmdb.client.js';
import { TmdbError } from './tmdb.types.js';

describe('TMDB client', () => {
  let fake: FakeTmdb;
  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
  });

  const client = (overrides: Partial<TmdbClientOptions> = {}) =>
    createTmdbClient({
      apiKey: FAKE_TMDB_API_KEY,
      baseUrl: fake.url,
      timeoutMs: 2000,
      retryBaseDelayMs: 1,
      ...overrides,
    });

  const failure = async (promise: Promise<unknown>): Promise<TmdbError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TmdbError);
    return error as TmdbError;
  };

  it('sends a v3 key as the api_key parameter, asks for the credits and maps the movie', async () => {
    const movie = await client().getMovie(710001);
    expect(movie).toEqual({
      id: 710001,
      title: "The Lighthouse Keeper's Ledger",
      original_title: "The Lighthouse Keeper's Ledger",
      release_date: '2019-04-12',
      tagline: 'Every light keeps a record.',
      overview: 'A keeper on a northern island finds the entries in his logbook written a day ahead.',
      original_language: 'en',
      runtime: 112,
      poster_path: '/fakeLedgerPoster01.jpg',
      imdb_id: 'tt9710001',
      vote_average: 7.314,
      vote_count: 1842,
      genres: [
        { id: 18, name: 'Drama' },
        { id: 9648, name: 'Mystery' },
      ],
      backdrop_path: '/fakeLedgerBackdrop01.jpg',
      belongs_to_collection: null,
      production_companies: [
        {
          id: 93001,
          name: 'Northlight Pictures',
          logo_path: '/fakeNorthlightLogo.png',
          origin_country: 'GB',
        },
        { id: 93002, name: 'Skerry Films', logo_path: null, origin_country: 'NO' },
      ],
      production_countries: [
        { iso_3166_1: 'GB', name: 'United Kingdom' },
        { iso_3166_1: 'NO', name: 'Norway' },
      ],
      spoken_languages: [
        { iso_639_1: 'en', english_name: 'English', name: 'English' },
        { iso_639_1: 'no', english_name: 'Norwegian', name: 'Norsk' },
      ],
      credits: {
        cast: [
          {
            id: 7500001,
            name: 'Edda Lindqvist',
            profile_path: '/fakeProfileLindqvist.jpg',
            known_for_department: 'Acting',
            character: 'Agnes Brekke',
            order: 0,
          },
          {
            id: 7500002,
            name: 'Tomás Ferreira',
            profile_path: '/fakeProfileFerreira.jpg',
            known_for_department: 'Acting',
            character: 'Inspector Dahl',
            order: 1,
          },
          {
            id: 7500003,
            name: 'Ines Wolff',
            profile_path: null,
            known_for_department: 'Acting',
            character: 'The Ferry Captain',
            order: 2,
          },
        ],
        crew: [
          ['Bo Strand', 'Camera', 'Key Grip'],
          ['Maren Holt', 'Directing', 'Director'],
          ['Maren Holt', 'Writing', 'Screenplay'],
          ['Jonas Achterberg', 'Production', 'Producer'],
          ['Rik Vos', 'Crew', 'Stunts'],
          ['Sigrún Eiríksdóttir', 'Sound', 'Original Music Composer'],
          ['Pavel Novák', 'Camera', 'Director of Photography'],
        ].map(([name, department, job]) => expect.objectContaining({ name, department, job })),
      },
    });
    expect(movie?.credits?.crew[1]).toEqual({
      id: 7500004,
      name: 'Maren Holt',
      profile_path: '/fakeProfileHolt.jpg',
      known_for_department: 'Directing',
      department: 'Directing',
      job: 'Director',
    });
    expect(fake.requests).toEqual([
      {
        method: 'GET',
        path: '/movie/710001',
        query: { append_to_response: 'credits', api_key: FAKE_TMDB_API_KEY },
        authorization: null,
        receivedAt: expect.any(Number),
      },
    ]);
  });

  it('sends a v4 read-access token as a Bearer credential, not as a parameter', async () => {
    const movie = await client({ apiKey: FAKE_TMDB_READ_ACCESS_TOKEN }).getMovie(710002);
    expect(movie?.title).toBe('Night Train to Kiel');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${FAKE_TMDB_READ_ACCESS_TOKEN}`);
    expect(fake.requests[0]?.query).toEqual({ append_to_response: 'credits' });
  });

  it('maps TMDB’s empty strings and zero runtime to null', async () => {
    expect(await client().getMovie(710005)).toEqual({
      id: 710005,
      title: 'Untitled Harbor Project',
      original_title: 'Untitled Harbor Project',
      release_date: null,
      tagline: null,
      overview: null,
      original_language: 'en',
      runtime: null,
      poster_path: null,
      imdb_id: null,
      vote_average: 0,
      vote_count: 0,
      genres: [],
      backdrop_path: null,
      belongs_to_collection: null,
      production_companies: [],
      production_countries: [],
      spoken_languages: [],
      credits: { cast: [], crew: [] },
    });
  });

  it('maps the collection, and TMDB’s blank names and characters to null', async () => {
    const comets = await client().getMovie(710003);
    expect(comets?.belongs_to_collection).toEqual({
      id: 94001,
      name: 'Paper Comets Collection',
      poster_path: '/fakeCometsCollectionPoster.jpg',
      backdrop_path: '/fakeCometsCollectionBackdrop.jpg',
    });
    const garden = await client().getMovie(710006);
    expect(garden?.credits?.cast[1]).toEqual({
      id: 7500016,
      name: 'Hélène Dubois',
      profile_path: null,
      known_for_department: null,
      character: null,
      order: 1,
    });
  });

  describe('with whatever TMDB answers', () => {
    /** A stand-in that answers every request with `body`: shapes the fake never sends. */
    async function answering(body: unknown) {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        return await client({ baseUrl: `http://127.0.0.1:${port}/3` }).getMovie(1);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }

    it('leaves out list entries without an id, a name or a job, and ignores lists that are no lists', async () => {
      const movie = await answering({
        id: 1,
        title: 'Odd Lists',
        belongs_to_collection: { id: 0, name: 'No Id' },
        production_companies: [null, 'Studio', { id: 5 }, { id: 6, name: 'Kept', logo_path: '' }],
        production_countries: [
          { iso_3166_1: 'de', name: 'Germany' },
          { iso_3166_1: '', name: 'Nowhere' },
        ],
        spoken_languages: { iso_639_1: 'en' },
        credits: {
          cast: [
            { id: 10, name: '', original_name: 'Original Only', character: 'A', order: 3 },
            { id: 11, name: '   ', character: 'B', order: -1 },
            { name: 'No Id', character: 'C', order: 0 },
            { id: 12, name: 'Ordered Nowhere', order: 'first' },
          ],
          crew: [
            { id: 20, name: 'No Job', department: 'Directing' },
            { id: 21, name: 'No Department', job: 'Director' },
            { id: 22, name: 'Kept', department: 'Directing', job: 'Director', known_for_department: '' },
          ],
        },
      });
      expect(movie).toMatchObject({
        belongs_to_collection: null,
        production_companies: [{ id: 6, name: 'Kept', logo_path: null, origin_country: null }],
        production_countries: [{ iso_3166_1: 'DE', name: 'Germany' }],
        spoken_languages: [],
        credits: {
          cast: [
            {
              id: 10,
              name: 'Original Only',
              profile_path: null,
              known_for_department: null,
              character: 'A',
              order: 3,
            },
            {
              id: 12,
              name: 'Ordered Nowhere',
              profile_path: null,
              known_for_department: null,
              character: null,
              order: null,
            },
          ],
          crew: [
            {
              id: 22,
              name: 'Kept',
              profile_path: null,
              known_for_department: null,
              department: 'Directing',
              job: 'Director',
            },
          ],
        },
      });
    });

    it('answers credits null when TMDB sends none, and empty lists when it sends empty ones', async () => {
      expect((await answering({ id: 1, title: 'No Credits' }))?.credits).toBeNull();
      expect((await answering({ id: 1, title: 'No Credits', credits: 'none' }))?.credits).toBeNull();
      expect((await answering({ id: 1, title: 'Empty', credits: {} }))?.credits).toEqual({
        cast: [],
        crew: [],
      });
    });

    it('drops NUL characters from every text, and a text of NULs alone is null', async () => {
      const movie = await answering({
        id: 1,
        title: 'Nul\u0000 Title',
        tagline: '\u0000\u0000',
        belongs_to_collection: { id: 2, name: 'Saga\u0000' },
        production_companies: [{ id: 3, name: '\u0000Studio' }],
        spoken_languages: [{ iso_639_1: 'en', english_name: 'Eng\u0000lish', name: '\u0000' }],
        credits: {
          cast: [{ id: 4, name: 'Ann\u0000a', character: 'Her\u0000self', order: 0 }],
          crew: [{ id: 5, name: 'Bo', department: 'Direc\u0000ting', job: 'Director\u0000' }],
        },
      });
      expect(movie).toMatchObject({
        title: 'Nul Title',
        tagline: null,
        belongs_to_collection: { name: 'Saga' },
        production_companies: [{ name: 'Studio' }],
        spoken_languages: [{ english_name: 'English', name: null }],
        credits: {
          cast: [{ name: 'Anna', character: 'Herself' }],
          crew: [{ department: 'Directing', job: 'Director' }],
        },
      });
      expect(JSON.stringify(movie)).not.toContain('\\u0000');
    });
  });

  it('pings TMDB through its configuration, failing on a rejected key', async () => {
    await client().ping();
    expect(fake.requests.map((request) => request.path)).toEqual(['/configuration']);
    expect((await failure(client({ apiKey: 'not-a-valid-key-4711' }).ping())).status).toBe(401);
  });

  it('answers null for an id TMDB does not know, without retrying', async () => {
    expect(await client().getMovie(99)).toBeNull();
    expect(fake.requests).toHaveLength(1);
  });

  it('fails with status 401 on a rejected key, without retrying and without the key in the message', async () => {
    const error = await failure(client({ apiKey: 'not-a-valid-key-4711' }).getMovie(710001));
    expect(error.status).toBe(401);
    expect(error.message).toBe(
      'TMDB rejected the API key: Invalid API key: You must be granted a valid key.',
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('searches with the query, page and primary release year and maps the page', async () => {
    const page = await client().searchMovies({ query: 'paper comets', page: 1, year: 2022 });
    expect(page).toEqual({
      page: 1,
      results: [
        {
          id: 710004,
          title: 'Paper Comets II: Tailwind',
          original_title: 'Paper Comets II: Tailwind',
          release_date: '2022-06-17',
          overview: 'The comet comes back, and this time it brought friends.',
          original_language: 'en',
          poster_path: '/fakeCometsPoster04.jpg',
        },
      ],
      total_pages: 1,
      total_results: 1,
    });
    expect(fake.requests[0]?.path).toBe('/search/movie');
    expect(fake.requests[0]?.query).toEqual({
      query: 'paper comets',
      page: '1',
      include_adult: 'false',
      primary_release_year: '2022',
      api_key: FAKE_TMDB_API_KEY,
    });
  });

  it('sends no year filter when none is asked for', async () => {
    const page = await client().searchMovies({ query: 'paper comets', page: 1 });
    expect(page.results.map((r) => r.id)).toEqual([710003, 710004]);
    expect(fake.requests[0]?.query).not.toHaveProperty('primary_release_year');
    expect(fake.requests[0]?.query).not.toHaveProperty('year');
  });

  it('finds movies by IMDb id', async () => {
    const found = await client().findByImdbId('tt9710006');
    expect(found).toEqual([
      {
        id: 710006,
        title: 'The Hanging Garden',
        original_title: 'Le Jardin suspendu',
        release_date: '1974-03-05',
        overview: 'A botanist rents a Paris rooftop and finds that the previous tenant never left.',
        original_language: 'fr',
        poster_path: '/fakeJardinPoster06.jpg',
      },
    ]);
    expect(fake.requests[0]).toMatchObject({
      path: '/find/tt9710006',
      query: { external_source: 'imdb_id' },
    });
    expect(await client().findByImdbId('tt0000001')).toEqual([]);
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    fake.failNext(1, 429, { retryAfter: '1' });
    const movie = await client().getMovie(710003);
    expect(movie?.title).toBe('Paper Comets');
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('caps a long Retry-After', async () => {
    fake.failNext(1, 429, { retryAfter: '3600' });
    const movie = await client({ maxRetryDelayMs: 50 }).getMovie(710003);
    expect(movie?.id).toBe(710003);
    const [first, second] = fake.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeLessThan(1000);
  });

  it('retries 5xx answers with backoff', async () => {
    fake.failNext(2, 500);
    const movie = await client().getMovie(710002);
    expect(movie?.id).toBe(710002);
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after the last retry with the last status', async () => {
    fake.failNext(10, 503);
    const error = await failure(client({ maxRetries: 2 }).getMovie(710002));
    expect(error.status).toBe(503);
    expect(error.message).toBe(
      'TMDB answered 503 (Service offline: This service is temporarily offline, try again later.) 3 times',
    );
    expect(fake.requests).toHaveLength(3);
  });

  it('times out a slow answer and retries it', async () => {
    fake.delayNext(2, 1000);
    const error = await failure(client({ timeoutMs: 100, maxRetries: 1 }).getMovie(710001));
    expect(error.status).toBeNull();
    expect(error.message).toBe('TMDB did not answer within 100 ms (2 attempts)');
    expect(fake.requests).toHaveLength(2);

    fake.delayNext(1, 1000);
    const movie = await client({ timeoutMs: 100, maxRetries: 1 }).getMovie(710001);
    expect(movie?.id).toBe(710001);
  });

  it('reports an unreachable server without the key', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const error = await failure(
      client({ baseUrl: `http://127.0.0.1:${port}/3`, maxRetries: 1 }).getMovie(710001),
    );
    expect(error.status).toBeNull();
    expect(error.message).toBe('TMDB is unreachable (ECONNREFUSED) (2 attempts)');
    expect(error.message).not.toContain(FAKE_TMDB_API_KEY);
  });

  it('keeps at most maxConcurrency requests in flight', async () => {
    fake.delayNext(6, 80);
    const tmdb = client({ maxConcurrency: 2 });
    const ids = [710001, 710002, 710003, 710004, 710005, 710006];
    const movies = await Promise.all(ids.map((id) => tmdb.getMovie(id)));
    expect(movies.map((m) => m?.id)).toEqual(ids);
    expect(fake.requests).toHaveLength(6);
    expect(fake.maxInFlight).toBe(2);
  });
});
