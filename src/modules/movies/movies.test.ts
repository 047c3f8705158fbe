import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  type FakeTmdbMovie,
  startFakeTmdb,
} from '../../../test/fake-tmdb.js';
import { createUser, setupTestApp, type TestContext, type TestUser } from '../../../test/harness.js';
import { createTmdbClient, type TmdbClientOptions } from '../../integrations/tmdb/tmdb.client.js';

const seed = (id: number): FakeTmdbMovie => {
  const movie = FAKE_TMDB_MOVIES.find((m) => m.id === id);
  if (!movie) throw new Error(`no seed movie ${id}`);
  return structuredClone(movie);
};

describe('movies through the provider', () => {
  let fake: FakeTmdb;
  let ctx: TestContext;

  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await fake.close();
  });

  const tmdbClient = (overrides: Partial<TmdbClientOptions> = {}) =>
    createTmdbClient({
      apiKey: FAKE_TMDB_API_KEY,
      baseUrl: fake.url,
      timeoutMs: 2000,
      maxRetries: 1,
      retryBaseDelayMs: 1,
      ...overrides,
    });

  beforeEach(async () => {
    fake.reset();
    ctx = await setupTestApp({ tmdb: tmdbClient() });
  });
  afterEach(async () => {
    await ctx.close();
  });

  const add = (headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const search = (headers: Record<string, string>, query: string) =>
    ctx.app.inject({ method: 'GET', url: `/api/movies/search?${query}`, headers });
  const addOk = async (user: TestUser, providerId: number): Promise<number> => {
    const res = await add(user.auth, { providerId });
    expect(res.statusCode).toBe(200);
    return res.json().serviceId;
  };
  const storedMovie = (id: number) =>
    ctx.db.selectFrom('movies').selectAll().where('id', '=', id).executeTakeFirst();
  const storedGenres = (movieId: number) =>
    ctx.db
      .selectFrom('movie_genres as mg')
      .innerJoin('genres as g', 'g.id', 'mg.genre_id')
      .select(['g.tmdb_id', 'g.name', 'mg.position'])
      .where('mg.movie_id', '=', movieId)
      .orderBy('mg.position')
      .execute();

  describe('authentication', () => {
    it('requires a token for both endpoints: 401, empty body, WWW-Authenticate, TMDB not asked', async () => {
      for (const res of [
        await add({}, { providerId: 710001 }),
        await search({}, 'search=paper'),
        await add({ authorization: 'Bearer cinelog_not-a-real-token' }, { providerId: 710001 }),
        await search({ 'x-service-token': 'cinelog_not-a-real-token' }, 'search=paper'),
      ]) {
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.body).toBe('');
      }
      expect(fake.requests).toEqual([]);
    });

    it('accepts both credential headers, with no session', async () => {
      const alice = await createUser(ctx);
      const viaHeader = { 'x-service-token': alice.token };
      expect((await search(alice.auth, 'search=paper')).statusCode).toBe(200);
      expect((await search(viaHeader, 'search=paper')).statusCode).toBe(200);
      expect((await add(alice.auth, { providerId: 710001 })).statusCode).toBe(200);
      expect((await add(viaHeader, { providerId: 710002 })).statusCode).toBe(200);
    });
  });

  describe('POST /movies/add', () => {
    it('stores every field TMDB gives and returns the service id', async () => {
      const alice = await createUser(ctx);
      const serviceId = await addOk(alice, 710001);

      expect(await storedMovie(serviceId)).toEqual({
        id: serviceId,
        title: "The Lighthouse Keeper's Ledger",
        original_title: "The Lighthouse Keeper's Ledger",
        release_date: '2019-04-12',
        tagline: 'Every light keeps a record.',
        overview: 'A keeper on a northern island finds the entries in his logbook written a day ahead.',
        original_language: 'en',
        runtime: 112,
        poster_path: '/fakeLedgerPoster01.jpg',
        tmdb_id: 710001,
        trakt_id: null,
        imdb_id: 'tt9710001',
        letterboxd_id: null,
        tmdb_vote_average: 7.314,
        tmdb_vote_count: 1842,
        imdb_rating_average: null,
        imdb_rating_count: null,
        imdb_rating_updated_at: null,
        created_at: '2024-06-15T12:00:00.000Z',
        updated_at: null,
        backdrop_path: '/fakeLedgerBackdrop01.jpg',
        collection_id: null,
        details_fetched_at: '2024-06-15T12:00:00.000Z',
      });
      expect(await storedGenres(serviceId)).toEqual([
        { tmdb_id: 18, name: 'Drama', position: 0 },
        { tmdb_id: 9648, name: 'Mystery', position: 1 },
      ]);
      expect(fake.requests.map((r) => [r.path, r.query.append_to_response])).toEqual([
        ['/movie/710001', 'credits'],
      ]);
    });

    it('serves the added movie as a Movie object with an absolute poster URL', async () => {
      const alice = await createUser(ctx);
      const serviceId = await addOk(alice, 710002);
      const history = `/api/users/${alice.user.name}/history/movies`;
      const played = await ctx.app.inject({
        method: 'POST',
        url: history,
        headers: alice.auth,
        payload: [{ serviceId, watchedAt: '2024-05-01' }],
      });
      expect(played.statusCode).toBe(204);

      const res = await ctx.app.inject({ method: 'GET', url: history, headers: alice.auth });
      expect(res.statusCode).toBe(200);
      expect(res.json().watchlist[0].movie).toEqual({
        title: 'Night Train to Kiel',
        originalTitle: 'Nachtzug nach Kiel',
        releaseDate: '2008-11-20',
        tagline: 'Die letzte Verbindung.',
        overview: 'Two strangers share a sleeper compartment and a suitcase that belongs to neither of them.',
        originalLanguage: 'de',
        runtime: 97,
        posterPath: 'http://images.test/t/p/w342/fakeKielPoster02.jpg',
        ids: { service: serviceId, provider: 710002, tracker: null, catalog: 'tt9710002', journal: null },
        userRating: null,
        externalRatings: { provider: { average: 6.45, count: 311 }, catalog: { average: null, count: null } },
        updatedAt: null,
        createdAt: '2024-06-15',
      });
    });

    it('stores TMDB’s blanks as nulls', async () => {
      const alice = await createUser(ctx);
      const serviceId = await addOk(alice, 710005);
      expect(await storedMovie(serviceId)).toMatchObject({
        title: 'Untitled Harbor Project',
        release_date: null,
        tagline: null,
        overview: null,
        runtime: null,
        poster_path: null,
        imdb_id: null,
        tmdb_vote_average: 0,
        tmdb_vote_count: 0,
      });
      expect(await storedGenres(serviceId)).toEqual([]);
    });

    it('refreshes a stored movie on a second add and keeps its id', async () => {
      const alice = await createUser(ctx);
      const first = await addOk(alice, 710003);
      fake.putMovie({
        ...seed(710003),
        title: 'Paper Comets (Restored)',
        runtime: 90,
        vote_average: 8.1,
        vote_count: 6001,
        genres: [{ id: 12, name: 'Adventure' }],
      });
      ctx.clock.set('2024-07-01T08:30:00.000Z');

      const second = await addOk(alice, 710003);
      expect(second).toBe(first);
      expect(await ctx.db.selectFrom('movies').select('id').execute()).toEqual([{ id: first }]);
      expect(await storedMovie(first)).toMatchObject({
        title: 'Paper Comets (Restored)',
        runtime: 90,
        tmdb_vote_average: 8.1,
        tmdb_vote_count: 6001,
        created_at: '2024-06-15T12:00:00.000Z',
        updated_at: '2024-07-01T08:30:00.000Z',
        details_fetched_at: '2024-07-01T08:30:00.000Z',
      });
      expect(await storedGenres(first)).toEqual([{ tmdb_id: 12, name: 'Adventure', position: 0 }]);
    });

    it('answers 400 ProviderIdNotFound for an id TMDB does not know, storing nothing', async () => {
      const alice = await createUser(ctx);
      const res = await add(alice.auth, { providerId: 424242 });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'ProviderIdNotFound',
        message: 'TMDB has no movie with id 424242',
      });
      expect(await ctx.db.selectFrom('movies').selectAll().execute()).toEqual([]);
    });

    it('rejects bad bodies with 400 InvalidRequestBody before asking TMDB', async () => {
      const alice = await createUser(ctx);
      for (const payload of [
        { providerId: '710001' },
        {},
        { providerId: -5 },
        { providerId: 0 },
        { providerId: 1.5 },
        { providerId: null },
        [{ providerId: 710001 }],
      ]) {
        const res = await add(alice.auth, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().error, JSON.stringify(payload)).toBe('InvalidRequestBody');
      }
      const noBody = await add(alice.auth);
      expect(noBody.statusCode).toBe(400);
      expect(noBody.json().error).toBe('InvalidRequestBody');
      expect(fake.requests).toEqual([]);
    });
  });

  describe('GET /movies/search', () => {
    it('answers TMDB’s results in the API shape', async () => {
      const alice = await createUser(ctx);
      const res = await search(alice.auth, 'search=garden');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        results: [
          {
            title: 'The Hanging Garden',
            originalTitle: 'Le Jardin suspendu',
            releaseDate: '1974-03-05',
            overview: 'A botanist rents a Paris rooftop and finds that the previous tenant never left.',
            originalLanguage: 'fr',
            providerPosterPath: '/fakeJardinPoster06.jpg',
            ids: { service: null, provider: 710006 },
            isWatched: false,
            isOnWatchlist: false,
          },
        ],
        currentPage: 1,
        maxPage: 1,
      });
      expect(fake.requests[0]?.query).toEqual({
        query: 'garden',
        page: '1',
        include_adult: 'false',
        api_key: FAKE_TMDB_API_KEY,
      });
    });

    it('answers blanks as null', async () => {
      const alice = await createUser(ctx);
      const res = await search(alice.auth, 'search=harbor');
      expect(res.json().results).toEqual([
        {
          title: 'Untitled Harbor Project',
          originalTitle: 'Untitled Harbor Project',
          releaseDate: null,
          overview: null,
          originalLanguage: 'en',
          providerPosterPath: null,
          ids: { service: null, provider: 710005 },
          isWatched: false,
          isOnWatchlist: false,
        },
      ]);
    });

    it('pages through TMDB’s results and echoes the page asked for', async () => {
      const alice = await createUser(ctx);
      for (let n = 1; n <= 25; n += 1) {
        fake.putMovie({
          ...seed(710001),
          id: 720000 + n,
          title: `Sequel Factory ${n}`,
          original_title: `Sequel Factory ${n}`,
        });
      }
      const first = (await search(alice.auth, 'search=sequel%20factory')).json();
      expect(first.results).toHaveLength(20);
      expect(first.currentPage).toBe(1);
      expect(first.maxPage).toBe(2);

      const second = (await search(alice.auth, 'search=sequel%20factory&page=2')).json();
      expect(second.results.map((r: { ids: { provider: number } }) => r.ids.provider)).toEqual([
        720021, 720022, 720023, 720024, 720025,
      ]);
      expect(second.currentPage).toBe(2);
      expect(second.maxPage).toBe(2);

      const beyond = (await search(alice.auth, 'search=sequel%20factory&page=3')).json();
      expect(beyond).toEqual({ results: [], currentPage: 3, maxPage: 2 });
      expect(fake.requests.map((r) => r.query.page)).toEqual(['1', '2', '3']);
    });

    it('answers maxPage 0 when nothing matches', async () => {
      const alice = await createUser(ctx);
      const res = await search(alice.auth, 'search=no%20such%20film');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ results: [], currentPage: 1, maxPage: 0 });
    });

    it('passes releaseYear to TMDB as the primary release year', async () => {
      const alice = await createUser(ctx);
      const res = await search(alice.auth, 'search=paper%20comets&releaseYear=2022');
      expect(res.json().results.map((r: { title: string }) => r.title)).toEqual([
        'Paper Comets II: Tailwind',
      ]);
      expect(fake.requests[0]?.query.primary_release_year).toBe('2022');

      const unfiltered = await search(alice.auth, 'search=paper%20comets');
      expect(unfiltered.json().results.map((r: { title: string }) => r.title)).toEqual([
        'Paper Comets',
        'Paper Comets II: Tailwind',
      ]);
    });

    it("marks stored movies with their service id and only the caller's plays and watchlist", async () => {
      const alice = await createUser(ctx);
      const bob = await createUser(ctx);
      const carol = await createUser(ctx);
      const comets = await addOk(alice, 710003);
      const sequel = await addOk(alice, 710004);
      const play = (user: TestUser, serviceId: number) =>
        ctx.app.inject({
          method: 'POST',
          url: `/api/users/${user.user.name}/history/movies`,
          headers: user.auth,
          payload: [{ serviceId, watchedAt: '2024-05-01' }],
        });
      expect((await play(alice, comets)).statusCode).toBe(204);
      expect((await play(bob, sequel)).statusCode).toBe(204);
      await ctx.db
        .insertInto('watchlist')
        .values([
          { user_id: alice.user.id, movie_id: sequel, added_at: '2024-05-02T10:00:00.000Z' },
          { user_id: bob.user.id, movie_id: comets, added_at: '2024-05-02T10:00:00.000Z' },
        ])
        .execute();

      const marks = async (user: TestUser) =>
        (await search(user.auth, 'search=paper%20comets'))
          .json()
          .results.map(
            (r: { ids: { service: number | null }; isWatched: boolean; isOnWatchlist: boolean }) => ({
              service: r.ids.service,
              isWatched: r.isWatched,
              isOnWatchlist: r.isOnWatchlist,
            }),
          );
      expect(await marks(alice)).toEqual([
        { service: comets, isWatched: true, isOnWatchlist: false },
        { service: sequel, isWatched: false, isOnWatchlist: true },
      ]);
      expect(await marks(bob)).toEqual([
        { service: comets, isWatched: false, isOnWatchlist: true },
        { service: sequel, isWatched: true, isOnWatchlist: false },
      ]);
      expect(await marks(carol)).toEqual([
        { service: comets, isWatched: false, isOnWatchlist: false },
        { service: sequel, isWatched: false, isOnWatchlist: false },
      ]);
    });

    it('rejects a missing, blank or too long search and out-of-range page or year with 400', async () => {
      const alice = await createUser(ctx);
      for (const query of [
        '',
        'search=',
        'search=%20%20',
        `search=${'a'.repeat(201)}`,
        'search=paper&page=0',
        'search=paper&page=501',
        'search=paper&page=two',
        'search=paper&releaseYear=99',
        'search=paper&releaseYear=20222',
      ]) {
        const res = await search(alice.auth, query);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error, query).toBe('InvalidQueryParameter');
      }
      expect(fake.requests).toEqual([]);
    });
  });

  describe('when TMDB is not there', () => {
    it('answers 503 ProviderNotConfigured naming TMDB_API_KEY when no key is set', async () => {
      await ctx.close();
      ctx = await setupTestApp({ tmdb: null });
      const alice = await createUser(ctx);
      for (const res of [
        await add(alice.auth, { providerId: 710001 }),
        await search(alice.auth, 'search=paper'),
      ]) {
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({
          error: 'ProviderNotConfigured',
          message:
            'TMDB_API_KEY is not set: movie search and add need a TMDB API key (v3 key or v4 read-access token)',
        });
      }
    });

    it('answers 503 ProviderUnavailable when TMDB keeps failing', async () => {
      const alice = await createUser(ctx);
      fake.failNext(4, 500);
      const added = await add(alice.auth, { providerId: 710001 });
      expect(added.statusCode).toBe(503);
      expect(added.json()).toEqual({
        error: 'ProviderUnavailable',
        message:
          'TMDB is unavailable: TMDB answered 500 (Internal error: Something went wrong, contact TMDB.) 2 times',
      });
      const searched = await search(alice.auth, 'search=paper');
      expect(searched.statusCode).toBe(503);
      expect(searched.json().error).toBe('ProviderUnavailable');
      expect(fake.requests).toHaveLength(4);
      expect(await ctx.db.selectFrom('movies').selectAll().execute()).toEqual([]);
    });

    it('answers 503 ProviderUnavailable when TMDB is unreachable', async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ctx.close();
      ctx = await setupTestApp({ tmdb: tmdbClient({ baseUrl: `http://127.0.0.1:${port}/3` }) });
      const alice = await createUser(ctx);

      const res = await search(alice.auth, 'search=paper');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'ProviderUnavailable',
        message: 'TMDB is unavailable: TMDB is unreachable (ECONNREFUSED) (2 attempts)',
      });
    });

    it('answers 503 ProviderUnavailable naming the variable, never the key, when TMDB refuses the key', async () => {
      const wrongKey = 'wrong-key-5f3a9c0d1e';
      await ctx.close();
      ctx = await setupTestApp({ tmdb: tmdbClient({ apiKey: wrongKey }) });
      const alice = await createUser(ctx);

      for (const res of [
        await add(alice.auth, { providerId: 710001 }),
        await search(alice.auth, 'search=paper'),
      ]) {
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({
          error: 'ProviderUnavailable',
          message:
            'TMDB refused the configured TMDB_API_KEY (TMDB rejected the API key: Invalid API key: You must be granted a valid key.)',
        });
        expect(res.body).not.toContain(wrongKey);
      }
      expect(fake.requests).toHaveLength(2);
    });
  });
});
