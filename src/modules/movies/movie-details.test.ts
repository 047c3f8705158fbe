import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_TMDB_API_KEY,
  FAKE_TMDB_MOVIES,
  FAKE_TMDB_PEOPLE,
  type FakeTmdb,
  type FakeTmdbCast,
  type FakeTmdbCrew,
  type FakeTmdbMovie,
  type FakeTmdbPerson,
  startFakeTmdb,
} from '../../../test/fake-tmdb.js';
import {
  createMovie,
  createUser,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { createTmdbClient } from '../../integrations/tmdb/tmdb.client.js';
import type { TmdbClient } from '../../integrations/tmdb/tmdb.types.js';
import { statisticsFollowCatalog } from '../library/statistics-aggregates.js';
import { createWebhooksService } from '../scrobble/webhooks.service.js';
import type { PersonRef } from './movie-details.js';
import { createMoviesService, type MoviesService } from './movies.service.js';
import { MAX_CAST } from './provider-movie.js';

const P = FAKE_TMDB_PEOPLE;
const seed = (id: number): FakeTmdbMovie => {
  const movie = FAKE_TMDB_MOVIES.find((m) => m.id === id);
  if (!movie) throw new Error(`no seed movie ${id}`);
  return structuredClone(movie);
};
const cast = (who: FakeTmdbPerson, character: string, order: number): FakeTmdbCast => ({
  ...who,
  character,
  order,
});
const crew = (who: FakeTmdbPerson, department: string, job: string): FakeTmdbCrew => ({
  ...who,
  department,
  job,
});

describe("a movie's details: cast, crew and the rest", () => {
  let fake: FakeTmdb;
  let ctx: TestContext;
  let tmdb: TmdbClient;
  let movies: MoviesService;
  let alice: TestUser;

  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    tmdb = createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 });
    ctx = await setupTestApp({ tmdb });
    // The movies service as the app builds it, on the same database and TMDB.
    movies = service(tmdb);
    alice = await createUser(ctx);
  });
  afterEach(async () => {
    await ctx.close();
  });

  const service = (client: TmdbClient | null) =>
    createMoviesService({
      catalog: statisticsFollowCatalog,
      db: ctx.db,
      clock: ctx.clock,
      tmdb: client,
      marks: ctx.library.marks,
    });

  const add = async (providerId: number): Promise<number> => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers: alice.auth,
      payload: { providerId },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().serviceId;
  };

  /** The person as credits show them, with cinelog's id. */
  const ref = async (who: FakeTmdbPerson): Promise<PersonRef> => {
    const row = await ctx.db
      .selectFrom('people')
      .select('id')
      .where('tmdb_id', '=', who.id)
      .executeTakeFirstOrThrow();
    return { id: row.id, providerId: who.id, name: who.name, profilePath: who.profile_path };
  };
  const personId = async (who: FakeTmdbPerson) => (await ref(who)).id;
  const count = async (table: 'people' | 'companies' | 'collections' | 'countries' | 'languages') =>
    Number(
      (
        await ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('adding', () => {
    it('stores the cast in billing order, the crew of the kept jobs, and the rest of the movie', async () => {
      const id = await add(710001);
      const [edda, tomas, ines, maren, jonas, sigrun, pavel] = await Promise.all(
        [P.edda, P.tomas, P.ines, P.maren, P.jonas, P.sigrun, P.pavel].map(ref),
      );
      const details = await movies.movieDetails(id);
      expect(details).toEqual({
        id,
        ids: { provider: 710001, tracker: null, catalog: 'tt9710001', journal: null },
        title: "The Lighthouse Keeper's Ledger",
        originalTitle: "The Lighthouse Keeper's Ledger",
        releaseDate: '2019-04-12',
        tagline: 'Every light keeps a record.',
        overview: 'A keeper on a northern island finds the entries in his logbook written a day ahead.',
        originalLanguage: { code: 'en', englishName: 'English', name: 'English' },
        runtime: 112,
        posterPath: '/fakeLedgerPoster01.jpg',
        backdropPath: '/fakeLedgerBackdrop01.jpg',
        externalRatings: {
          provider: { average: 7.314, count: 1842 },
          catalog: { average: null, count: null },
        },
        genres: [
          { id: expect.any(Number), providerId: 18, name: 'Drama' },
          { id: expect.any(Number), providerId: 9648, name: 'Mystery' },
        ],
        productionCountries: [
          { code: 'GB', name: 'United Kingdom' },
          { code: 'NO', name: 'Norway' },
        ],
        spokenLanguages: [
          { code: 'en', englishName: 'English', name: 'English' },
          { code: 'no', englishName: 'Norwegian', name: 'Norsk' },
        ],
        productionCompanies: [
          {
            id: expect.any(Number),
            providerId: 93001,
            name: 'Northlight Pictures',
            logoPath: '/fakeNorthlightLogo.png',
            originCountry: 'GB',
          },
          {
            id: expect.any(Number),
            providerId: 93002,
            name: 'Skerry Films',
            logoPath: null,
            originCountry: 'NO',
          },
        ],
        collection: null,
        directors: [maren],
        writers: [maren],
        cast: [
          { person: edda, character: 'Agnes Brekke', order: 0 },
          { person: tomas, character: 'Inspector Dahl', order: 1 },
          { person: ines, character: 'The Ferry Captain', order: 2 },
        ],
        // The key grip and the stunts are not kept; the jobs come in the order pages show them.
        crew: [
          { job: 'Director', department: 'Directing', people: [maren] },
          { job: 'Screenplay', department: 'Writing', people: [maren] },
          { job: 'Producer', department: 'Production', people: [jonas] },
          { job: 'Original Music Composer', department: 'Sound', people: [sigrun] },
          { job: 'Director of Photography', department: 'Camera', people: [pavel] },
        ],
        createdAt: '2024-06-15T12:00:00.000Z',
        updatedAt: null,
        detailsFetchedAt: '2024-06-15T12:00:00.000Z',
      });
      expect(
        await ctx.db
          .selectFrom('people')
          .select('tmdb_id')
          .where('tmdb_id', 'in', [P.grip.id, P.stunts.id])
          .execute(),
      ).toEqual([]);
      expect(
        await ctx.db
          .selectFrom('people')
          .select(['name', 'profile_path', 'known_for_department', 'updated_at'])
          .where('tmdb_id', '=', P.sigrun.id)
          .executeTakeFirst(),
      ).toEqual({
        name: 'Sigrún Eiríksdóttir',
        profile_path: '/fakeProfileEiriksdottir.jpg',
        known_for_department: 'Sound',
        updated_at: '2024-06-15T12:00:00.000Z',
      });
    });

    it('stores a person, a company, a collection, a country and a language once, however many movies they are in', async () => {
      const ledger = await add(710001);
      const kiel = await add(710002);
      const comets = await add(710003);
      const sequel = await add(710004);
      // Ledger 7 people; Kiel adds Greta and Friedrich (Tomás and Jonas again); Comets adds Ada, Kenji
      // and Zoë (Edda and Sigrún again); the sequel none.
      expect(await count('people')).toBe(12);
      expect(await count('companies')).toBe(5);
      expect(await count('collections')).toBe(1);
      expect(await count('countries')).toBe(5);
      expect(await count('languages')).toBe(4);

      const tomas = await movies.person(await personId(P.tomas));
      expect(tomas).toEqual({
        id: await personId(P.tomas),
        providerId: P.tomas.id,
        name: 'Tomás Ferreira',
        profilePath: '/fakeProfileFerreira.jpg',
        knownForDepartment: 'Acting',
        updatedAt: '2024-06-15T12:00:00.000Z',
        // Newest release first.
        cast: [
          {
            movie: {
              id: ledger,
              providerId: 710001,
              title: "The Lighthouse Keeper's Ledger",
              releaseDate: '2019-04-12',
              posterPath: '/fakeLedgerPoster01.jpg',
            },
            character: 'Inspector Dahl',
            order: 1,
          },
          {
            movie: {
              id: kiel,
              providerId: 710002,
              title: 'Night Train to Kiel',
              releaseDate: '2008-11-20',
              posterPath: '/fakeKielPoster02.jpg',
            },
            character: 'Der Schaffner',
            order: 1,
          },
        ],
        crew: [],
      });
      const jonas = await movies.person(await personId(P.jonas));
      expect(jonas?.cast).toEqual([]);
      expect(jonas?.crew.map((c) => [c.movie.id, c.job, c.department])).toEqual([
        [ledger, 'Producer', 'Production'],
        [kiel, 'Executive Producer', 'Production'],
      ]);
      // In the cast of one movie and the crew of none, or both: one person either way.
      const kenji = await movies.person(await personId(P.kenji));
      expect(kenji?.name).toBe('森 健二');
      expect(kenji?.crew.map((c) => [c.movie.id, c.job])).toEqual([
        [sequel, 'Director'],
        [comets, 'Director'],
        [comets, 'Screenplay'],
      ]);
      const edda = await movies.person(await personId(P.edda));
      expect(edda?.cast.map((c) => [c.movie.id, c.character])).toEqual([
        [comets, 'Grandmother (voice)'],
        [ledger, 'Agnes Brekke'],
      ]);

      const [cometsDetails, sequelDetails] = await Promise.all([
        movies.movieDetails(comets),
        movies.movieDetails(sequel),
      ]);
      expect(cometsDetails?.collection).toEqual({
        id: expect.any(Number),
        providerId: 94001,
        name: 'Paper Comets Collection',
        posterPath: '/fakeCometsCollectionPoster.jpg',
        backdropPath: '/fakeCometsCollectionBackdrop.jpg',
      });
      expect(sequelDetails?.collection).toEqual(cometsDetails?.collection);
      expect(sequelDetails?.productionCompanies[0]).toEqual(cometsDetails?.productionCompanies[0]);
      // Writers: the Writing department, each person once, in crew order.
      expect(cometsDetails?.writers.map((w) => w.name)).toEqual(['森 健二', "Zoë O'Connor-Ñúñez"]);
      expect(cometsDetails?.crew.map((c) => c.job)).toEqual([
        'Director',
        'Screenplay',
        'Story',
        'Original Music Composer',
      ]);
    });

    it('stores a movie without credits, countries, languages or companies', async () => {
      const id = await add(710005);
      expect(await movies.movieDetails(id)).toMatchObject({
        title: 'Untitled Harbor Project',
        originalLanguage: { code: 'en', englishName: null, name: null },
        backdropPath: null,
        genres: [],
        productionCountries: [],
        spokenLanguages: [],
        productionCompanies: [],
        collection: null,
        directors: [],
        writers: [],
        cast: [],
        crew: [],
      });
      // Another movie's spoken languages name the original language.
      await add(710001);
      expect((await movies.movieDetails(id))?.originalLanguage).toEqual({
        code: 'en',
        englishName: 'English',
        name: 'English',
      });
      expect(await count('people')).toBe(7);
    });

    it('keeps the first 100 places of the bill and the crew of the kept jobs, directors first', async () => {
      const extras = Array.from({ length: 150 }, (_, i) => ({
        id: 7_600_000 + i,
        name: `Extra ${i}`,
        profile_path: null,
        known_for_department: 'Acting',
      }));
      // TMDB's order, listed backwards; two places share an order and keep TMDB's sequence.
      const bill = extras.map((who, i) => cast(who, `Passer-by ${i}`, 149 - i)).reverse();
      bill.push(cast(P.edda, 'Also Passer-by 0', 0));
      const producers = extras.map((who) => crew(who, 'Production', 'Executive Producer'));
      fake.putMovie({
        ...seed(710001),
        cast: bill,
        crew: [
          ...producers,
          crew(P.grip, 'Camera', 'Key Grip'),
          crew(P.zoe, 'Writing', 'Adaptation'),
          crew(P.maren, 'Directing', 'Director'),
          crew(P.maren, 'Directing', 'Director'),
        ],
      });
      const id = await add(710001);
      const details = await movies.movieDetails(id);
      expect(details?.cast).toHaveLength(MAX_CAST);
      expect(details?.cast.slice(0, 3).map((c) => [c.order, c.person.name, c.character])).toEqual([
        [0, 'Extra 149', 'Passer-by 149'],
        [1, 'Edda Lindqvist', 'Also Passer-by 0'],
        [2, 'Extra 148', 'Passer-by 148'],
      ]);
      expect(details?.cast.at(-1)?.person.name).toBe('Extra 51');
      const crewRows = await ctx.db
        .selectFrom('movie_crew')
        .select(['job', 'position'])
        .where('movie_id', '=', id)
        .orderBy('position')
        .execute();
      expect(crewRows).toHaveLength(100);
      expect(crewRows.slice(0, 3)).toEqual([
        { job: 'Director', position: 0 },
        { job: 'Adaptation', position: 1 },
        { job: 'Executive Producer', position: 2 },
      ]);
      expect(details?.directors.map((d) => d.name)).toEqual(['Maren Holt']);
      expect(details?.writers.map((d) => d.name)).toEqual(["Zoë O'Connor-Ñúñez"]);
    });

    it('stores names in any script, and TMDB text without its NUL characters', async () => {
      const odd = (id: number, name: string): FakeTmdbPerson => ({
        id,
        name,
        profile_path: null,
        known_for_department: 'Acting',
      });
      fake.putMovie({
        ...seed(710006),
        title: 'Le Jardin\u0000 suspendu',
        belongs_to_collection: { id: 94_100, name: 'Jardins\u0000', poster_path: null, backdrop_path: null },
        production_companies: [
          { id: 93_100, name: 'Films\u0000 du Toit', logo_path: null, origin_country: 'FR' },
        ],
        cast: [
          cast(odd(7_700_001, 'Zoë “Zee” O’Brien \\ 🎬'), "Her\u0000self (l'autre)", 0),
          cast(odd(7_700_002, 'محمد الأحمد'), 'Line one\nline two\ttabbed', 1),
          cast(odd(7_700_003, 'Nul\u0000l Person'), '\u0000', 2),
          cast(odd(7_700_004, '山田 太郎'), '東京 👻', 3),
        ],
        crew: [crew(odd(7_700_005, 'Ágnes\u0000 Varenne'), 'Directing', 'Director')],
      });
      const id = await add(710006);
      const details = await movies.movieDetails(id);
      expect(details?.title).toBe('Le Jardin suspendu');
      expect(details?.collection?.name).toBe('Jardins');
      expect(details?.productionCompanies.map((c) => c.name)).toEqual(['Films du Toit']);
      expect(details?.cast.map((c) => [c.person.name, c.character])).toEqual([
        ['Zoë “Zee” O’Brien \\ 🎬', "Herself (l'autre)"],
        ['محمد الأحمد', 'Line one\nline two\ttabbed'],
        ['Null Person', null],
        ['山田 太郎', '東京 👻'],
      ]);
      expect(details?.directors.map((d) => d.name)).toEqual(['Ágnes Varenne']);
      expect(JSON.stringify(details)).not.toContain('\\u0000');
    });

    it('stores the credits of a movie a scrobble adds', async () => {
      const webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: 'http://cinelog.test' });
      const url = new URL((await webhooks.create(alice.user.id, 'kodi')).url).pathname;
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: { title: 'The Hanging Garden', uniqueIds: { tmdbId: '710006' } },
      });
      expect(res.json()).toMatchObject({ outcome: 'counted' });
      const details = await movies.movieDetails(res.json().serviceId);
      expect(details?.directors).toEqual([await ref(P.agnes)]);
      expect(details?.cast.map((c) => c.person.name)).toEqual(['Jean-Luc "JL" Mercier', 'Hélène Dubois']);
      expect(details?.spokenLanguages.map((l) => l.code)).toEqual(['fr', 'it']);
    });

    it('adds movies sharing people at the same time without a failure or a duplicate', async () => {
      const ids = await Promise.all([710001, 710002, 710003, 710004, 710006].map((id) => add(id)));
      expect(new Set(ids).size).toBe(5);
      expect(await count('people')).toBe(15);
      expect(await count('companies')).toBe(6);
      expect(await count('collections')).toBe(1);
    });
  });

  describe('refresh', () => {
    const history = () =>
      ctx.app.inject({
        method: 'GET',
        url: `/api/users/${alice.user.name}/history/movies`,
        headers: alice.auth,
      });

    it("replaces the data, cast and crew and keeps the movie's id, plays and ratings", async () => {
      const id = await add(710001);
      await add(710002);
      const played = await ctx.app.inject({
        method: 'POST',
        url: `/api/users/${alice.user.name}/history/movies`,
        headers: alice.auth,
        payload: [{ serviceId: id, watchedAt: '2024-05-01', plays: 2, comment: 'stormy' }],
      });
      expect(played.statusCode).toBe(204);
      const rated = await ctx.app.inject({
        method: 'PUT',
        url: `/api/users/${alice.user.name}/ratings/movies`,
        headers: alice.auth,
        payload: [{ serviceId: id, rating: 8 }],
      });
      expect(rated.statusCode).toBe(204);
      // A page read now is cached; the refresh must not leave it stale.
      expect((await history()).json().watchlist[0].movie.title).toBe("The Lighthouse Keeper's Ledger");
      const eddaId = await personId(P.edda);
      const playsBefore = await ctx.db.selectFrom('watch_dates').selectAll().execute();

      const renamed = { ...P.edda, name: 'Edda Lindqvist-Berg', profile_path: '/fakeProfileLindqvist2.jpg' };
      fake.putMovie({
        ...seed(710001),
        title: "The Lighthouse Keeper's Ledger (Director's Cut)",
        runtime: 131,
        vote_average: 7.5,
        belongs_to_collection: { id: 94_002, name: 'Ledger Saga', poster_path: null, backdrop_path: null },
        production_companies: [seed(710001).production_companies[1]!],
        production_countries: [{ iso_3166_1: 'NO', name: 'Norway' }],
        spoken_languages: [{ english_name: 'Norwegian', iso_639_1: 'no', name: 'Norsk' }],
        genres: [{ id: 53, name: 'Thriller' }],
        cast: [cast(renamed, 'Agnes Brekke', 0), cast(P.greta, 'The New Inspector', 1)],
        crew: [crew(P.agnes, 'Directing', 'Director')],
      });
      ctx.clock.set('2024-08-01T09:00:00.000Z');
      fake.requests.length = 0;

      expect(await movies.refresh(id)).toBe('refreshed');
      expect(fake.requests.map((r) => [r.path, r.query.append_to_response])).toEqual([
        ['/movie/710001', 'credits'],
      ]);

      const details = await movies.movieDetails(id);
      expect(details).toMatchObject({
        id,
        ids: { provider: 710001 },
        title: "The Lighthouse Keeper's Ledger (Director's Cut)",
        runtime: 131,
        genres: [{ providerId: 53, name: 'Thriller' }],
        productionCountries: [{ code: 'NO', name: 'Norway' }],
        spokenLanguages: [{ code: 'no' }],
        productionCompanies: [{ providerId: 93002 }],
        collection: { providerId: 94002, name: 'Ledger Saga' },
        directors: [await ref(P.agnes)],
        writers: [],
        crew: [{ job: 'Director', people: [await ref(P.agnes)] }],
        createdAt: '2024-06-15T12:00:00.000Z',
        updatedAt: '2024-08-01T09:00:00.000Z',
        detailsFetchedAt: '2024-08-01T09:00:00.000Z',
      });
      // Edda is the same person, renamed; Greta (from Kiel) is reused.
      expect(details?.cast).toEqual([
        {
          person: {
            id: eddaId,
            providerId: P.edda.id,
            name: 'Edda Lindqvist-Berg',
            profilePath: '/fakeProfileLindqvist2.jpg',
          },
          character: 'Agnes Brekke',
          order: 0,
        },
        { person: await ref(P.greta), character: 'The New Inspector', order: 1 },
      ]);
      expect(
        await ctx.db.selectFrom('people').select('updated_at').where('id', '=', eddaId).executeTakeFirst(),
      ).toEqual({
        updated_at: '2024-08-01T09:00:00.000Z',
      });
      // Tomás left this cast but stays, with his other movie.
      expect((await movies.person(await personId(P.tomas)))?.cast.map((c) => c.movie.providerId)).toEqual([
        710002,
      ]);
      expect(await count('people')).toBe(10);

      expect(await ctx.db.selectFrom('movies').select('id').orderBy('id').execute()).toHaveLength(2);
      expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual(playsBefore);
      expect(await ctx.db.selectFrom('ratings').select(['movie_id', 'rating']).execute()).toEqual([
        { movie_id: id, rating: 8 },
      ]);
      const movie = (await history()).json().watchlist[0].movie;
      expect(movie).toMatchObject({
        title: "The Lighthouse Keeper's Ledger (Director's Cut)",
        ids: { service: id, provider: 710001 },
        userRating: 8,
        runtime: 131,
        updatedAt: '2024-08-01',
        createdAt: '2024-06-15',
      });
    });

    it('moves updatedAt only when what the lists show of the movie changed, so cached pages stay', async () => {
      const id = await add(710002);
      const updatedAt = async () =>
        await ctx.db
          .selectFrom('movies')
          .select(['updated_at', 'details_fetched_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      const first = await updatedAt();
      ctx.clock.set('2024-08-01T09:00:00.000Z');
      expect(await movies.refresh(id)).toBe('refreshed');
      // The same data at TMDB: only the time of asking moves.
      expect(await updatedAt()).toEqual({
        updated_at: first.updated_at,
        details_fetched_at: '2024-08-01T09:00:00.000Z',
      });
      const seed = FAKE_TMDB_MOVIES.find((movie) => movie.id === 710002)!;
      fake.putMovie({ ...seed, vote_count: (seed.vote_count ?? 0) + 1 });
      ctx.clock.set('2024-08-02T09:00:00.000Z');
      expect(await movies.refresh(id)).toBe('refreshed');
      expect(await updatedAt()).toEqual({
        updated_at: '2024-08-02T09:00:00.000Z',
        details_fetched_at: '2024-08-02T09:00:00.000Z',
      });
    });

    it('keeps a movie TMDB no longer knows as it is, and does not ask again before the next period', async () => {
      const id = await add(710002);
      const before = await movies.movieDetails(id);
      fake.removeMovie(710002);
      ctx.clock.set('2024-08-01T09:00:00.000Z');

      expect(await movies.refresh(id)).toBe('not-found');
      expect(await movies.movieDetails(id)).toEqual({
        ...before,
        detailsFetchedAt: '2024-08-01T09:00:00.000Z',
      });
    });

    it('keeps the stored cast and crew when TMDB answers without credits', async () => {
      const id = await add(710001);
      const before = await movies.movieDetails(id);
      const withoutCredits: TmdbClient = {
        ...tmdb,
        getMovie: async (tmdbId) => {
          const movie = await tmdb.getMovie(tmdbId);
          return movie && { ...movie, title: 'Retitled', credits: null };
        },
      };
      expect(await service(withoutCredits).refresh(id)).toBe('refreshed');
      const after = await movies.movieDetails(id);
      expect(after?.title).toBe('Retitled');
      expect(after?.cast).toEqual(before?.cast);
      expect(after?.crew).toEqual(before?.crew);
    });

    it('answers 404 for an unknown movie and asks TMDB nothing for a movie without a TMDB id', async () => {
      await expect(movies.refresh(424242)).rejects.toMatchObject({ statusCode: 404, code: 'MovieNotFound' });
      const { id } = await createMovie(ctx);
      await ctx.db.updateTable('movies').set({ tmdb_id: null }).where('id', '=', id).execute();
      expect(await movies.refresh(id)).toBe('no-provider-id');
      expect(fake.requests).toEqual([]);
    });

    it('fails with a 503 and changes nothing when TMDB fails or is not configured', async () => {
      const id = await add(710003);
      const before = await movies.movieDetails(id);
      fake.failNext(1, 500);
      await expect(movies.refresh(id)).rejects.toMatchObject({
        statusCode: 503,
        code: 'ProviderUnavailable',
      });
      await expect(service(null).refresh(id)).rejects.toMatchObject({
        statusCode: 503,
        code: 'ProviderNotConfigured',
      });
      expect(await movies.movieDetails(id)).toEqual(before);
    });
  });

  describe('person', () => {
    it('answers null for an unknown person, and a movie not stored is null too', async () => {
      expect(await movies.person(424242)).toBeNull();
      expect(await movies.movieDetails(424242)).toBeNull();
    });
  });

  describe("the spec's Movie object", () => {
    const SPEC_KEYS = [
      'createdAt',
      'externalRatings',
      'ids',
      'originalLanguage',
      'originalTitle',
      'overview',
      'posterPath',
      'releaseDate',
      'runtime',
      'tagline',
      'title',
      'updatedAt',
      'userRating',
    ];

    it('keeps exactly its fields in every list, however much more is stored of the movie', async () => {
      const id = await add(710003);
      const base = `/api/users/${alice.user.name}`;
      const send = (method: 'POST' | 'PUT', url: string, payload: unknown) =>
        ctx.app.inject({ method, url: `${base}${url}`, headers: alice.auth, payload: payload as object });
      expect(
        (await send('POST', '/history/movies', [{ serviceId: id, watchedAt: '2024-05-01' }])).statusCode,
      ).toBe(204);
      expect((await send('POST', '/watchlist/movies', [{ serviceId: id }])).statusCode).toBe(204);
      expect((await send('PUT', '/ratings/movies', [{ serviceId: id, rating: 7 }])).statusCode).toBe(204);
      expect(await movies.refresh(id)).toBe('refreshed');

      const get = async (list: string) => {
        const res = await ctx.app.inject({
          method: 'GET',
          url: `${base}/${list}/movies`,
          headers: alice.auth,
        });
        expect(res.statusCode).toBe(200);
        return res.json();
      };
      const objects = [
        (await get('history')).watchlist[0].movie,
        (await get('watchlist')).watchlist[0].movie,
        (await get('played')).played[0].movie,
        (await get('ratings')).ratings[0].movie,
      ];
      for (const movie of objects) {
        expect(Object.keys(movie).sort()).toEqual(SPEC_KEYS);
        expect(Object.keys(movie.ids).sort()).toEqual([
          'catalog',
          'journal',
          'provider',
          'service',
          'tracker',
        ]);
        expect(Object.keys(movie.externalRatings).sort()).toEqual(['catalog', 'provider']);
        expect(movie.ids.service).toBe(id);
      }
    });
  });

  describe('GET /api/movies/{serviceId}', () => {
    const get = (url: string, headers: Record<string, string> = alice.auth) =>
      ctx.app.inject({ method: 'GET', url, headers });

    it('answers everything stored of the movie, images as absolute URLs', async () => {
      const id = await add(710003);
      const res = await get(`/api/movies/${id}`);
      expect(res.statusCode).toBe(200);
      const [ada, edda, kenji, zoe, sigrun] = await Promise.all(
        [P.ada, P.edda, P.kenji, P.zoe, P.sigrun].map(async (who) => {
          const person = await ref(who);
          return {
            ...person,
            profilePath: person.profilePath && `http://images.test/t/p/w185${person.profilePath}`,
          };
        }),
      );
      expect(res.json()).toEqual({
        ids: { service: id, provider: 710003, tracker: null, catalog: 'tt9710003', journal: null },
        title: 'Paper Comets',
        originalTitle: 'Paper Comets',
        releaseDate: '2019-09-01',
        tagline: 'Fold it. Throw it. Follow it.',
        overview: 'A girl folds a comet out of her grandfather’s maps and chases it across the county.',
        originalLanguage: { code: 'en', englishName: 'English', name: 'English' },
        runtime: 88,
        posterPath: 'http://images.test/t/p/w342/fakeCometsPoster03.jpg',
        backdropPath: 'http://images.test/t/p/w780/fakeCometsBackdrop03.jpg',
        externalRatings: { provider: { average: 7.9, count: 5120 }, catalog: { average: null, count: null } },
        genres: [
          { id: expect.any(Number), providerId: 16, name: 'Animation' },
          { id: expect.any(Number), providerId: 10751, name: 'Family' },
        ],
        productionCountries: [{ code: 'US', name: 'United States of America' }],
        spokenLanguages: [{ code: 'en', englishName: 'English', name: 'English' }],
        productionCompanies: [
          {
            id: expect.any(Number),
            providerId: 93004,
            name: 'Foldworks Animation',
            logoPath: 'http://images.test/t/p/w92/fakeFoldworksLogo.png',
            originCountry: 'US',
          },
        ],
        collection: {
          id: expect.any(Number),
          providerId: 94001,
          name: 'Paper Comets Collection',
          posterPath: 'http://images.test/t/p/w342/fakeCometsCollectionPoster.jpg',
          backdropPath: 'http://images.test/t/p/w780/fakeCometsCollectionBackdrop.jpg',
        },
        directors: [kenji],
        writers: [kenji, zoe],
        cast: [
          { person: ada, character: 'Wren (voice)', order: 0 },
          { person: edda, character: 'Grandmother (voice)', order: 1 },
        ],
        crew: [
          { job: 'Director', department: 'Directing', people: [kenji] },
          { job: 'Screenplay', department: 'Writing', people: [kenji] },
          { job: 'Story', department: 'Writing', people: [zoe] },
          { job: 'Original Music Composer', department: 'Sound', people: [sigrun] },
        ],
        updatedAt: null,
        createdAt: '2024-06-15',
      });
      expect(zoe?.profilePath).toBeNull();
    });

    it('requires a token: 401 with no body, before anything else', async () => {
      const id = await add(710001);
      const anonymous: Record<string, string>[] = [{}, { authorization: 'Bearer cinelog_not-a-real-token' }];
      for (const headers of anonymous) {
        for (const url of [`/api/movies/${id}`, '/api/movies/424242', '/api/movies/abc']) {
          const res = await get(url, headers);
          expect(res.statusCode, url).toBe(401);
          expect(res.headers['www-authenticate']).toBe('Bearer');
          expect(res.body).toBe('');
        }
      }
    });

    it('answers 404 MovieNotFound naming the id, and 400 for an id that is no id', async () => {
      const missing = await get('/api/movies/424242');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: 'MovieNotFound', message: 'no movie with serviceId 424242' });
      for (const url of ['/api/movies/abc', '/api/movies/0', '/api/movies/1.5', '/api/movies/2147483648']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error, url).toBe('InvalidPathParameter');
      }
      // The search keeps its own route.
      expect((await get('/api/movies/search?search=paper')).statusCode).toBe(200);
    });

    it('is documented in the OpenAPI document, with its response schema', async () => {
      const doc = (await get('/api/openapi.json')).json();
      const operation = doc.paths['/movies/{serviceId}'];
      expect(Object.keys(operation)).toEqual(['get']);
      expect(Object.keys(operation.get.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413']);
      const body = operation.get.responses['200'].content['application/json'].schema;
      expect(Object.keys(body.properties)).toEqual(
        expect.arrayContaining(['cast', 'crew', 'directors', 'writers', 'collection', 'productionCompanies']),
      );
      expect(operation.get.security).toEqual([{ bearerToken: [] }, { serviceToken: [] }]);
    });
  });
});
