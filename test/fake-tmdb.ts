import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';

/**
 * A local stand-in for TMDB API v3: `/movie/{id}` (with `append_to_response=credits`), `/search/movie`,
 * `/find/{imdbId}`, TMDB's error shapes, both kinds of credential, scripted failures and delays. Every
 * value in it is invented.
 */

/** A person as credits name them; the same person appears the same way in every movie. */
export interface FakeTmdbPerson {
  id: number;
  name: string;
  profile_path: string | null;
  /** `""` when unknown, as TMDB sends it. */
  known_for_department: string;
}

export interface FakeTmdbCast extends FakeTmdbPerson {
  character: string;
  order: number;
}

export interface FakeTmdbCrew extends FakeTmdbPerson {
  department: string;
  job: string;
}

/** A movie as the fake serves it from `/movie/{id}` (the fields cinelog reads, plus a few it ignores). */
export interface FakeTmdbMovie {
  id: number;
  title: string;
  original_title: string;
  /** `""` when unknown, as TMDB sends it. */
  release_date: string;
  tagline: string;
  overview: string;
  original_language: string;
  runtime: number;
  poster_path: string | null;
  backdrop_path: string | null;
  imdb_id: string | null;
  vote_average: number;
  vote_count: number;
  popularity: number;
  genres: { id: number; name: string }[];
  belongs_to_collection: {
    id: number;
    name: string;
    poster_path: string | null;
    backdrop_path: string | null;
  } | null;
  production_companies: { id: number; name: string; logo_path: string | null; origin_country: string }[];
  production_countries: { iso_3166_1: string; name: string }[];
  spoken_languages: { english_name: string; iso_639_1: string; name: string }[];
  /** Served under `credits` only when the request asks `append_to_response=credits`, as TMDB does. */
  cast: FakeTmdbCast[];
  crew: FakeTmdbCrew[];
}

export const FAKE_TMDB_API_KEY = 'fakev3key0000cinelog1111test2222';

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** Shaped like a v4 read-access token (a JWT); signed by nobody. */
export const FAKE_TMDB_READ_ACCESS_TOKEN = [
  base64url({ alg: 'HS256' }),
  base64url({ aud: 'cinelog-fake-tmdb', sub: 'fake-account', scopes: ['api_read'], version: 1 }),
  'ZmFrZS1zaWduYXR1cmUtZm9yLXRlc3Rz',
].join('.');

const person = (
  id: number,
  name: string,
  known_for_department: string,
  profile_path: string | null,
): FakeTmdbPerson => ({ id, name, known_for_department, profile_path });

/** The people of the seed catalogue; several are in more than one movie. */
export const FAKE_TMDB_PEOPLE = Object.freeze({
  edda: person(7_500_001, 'Edda Lindqvist', 'Acting', '/fakeProfileLindqvist.jpg'),
  tomas: person(7_500_002, 'Tomás Ferreira', 'Acting', '/fakeProfileFerreira.jpg'),
  ines: person(7_500_003, 'Ines Wolff', 'Acting', null),
  maren: person(7_500_004, 'Maren Holt', 'Directing', '/fakeProfileHolt.jpg'),
  jonas: person(7_500_005, 'Jonas Achterberg', 'Production', null),
  sigrun: person(7_500_006, 'Sigrún Eiríksdóttir', 'Sound', '/fakeProfileEiriksdottir.jpg'),
  pavel: person(7_500_007, 'Pavel Novák', 'Camera', null),
  grip: person(7_500_008, 'Bo Strand', 'Camera', null),
  stunts: person(7_500_009, 'Rik Vos', 'Crew', null),
  greta: person(7_500_010, 'Greta Baumann', 'Acting', '/fakeProfileBaumann.jpg'),
  friedrich: person(7_500_011, 'Friedrich Lange', 'Directing', null),
  ada: person(7_500_012, 'Ada Okafor', 'Acting', '/fakeProfileOkafor.jpg'),
  kenji: person(7_500_013, '森 健二', 'Directing', '/fakeProfileMori.jpg'),
  zoe: person(7_500_014, "Zoë O'Connor-Ñúñez", 'Writing', null),
  jeanluc: person(7_500_015, 'Jean-Luc "JL" Mercier', 'Acting', '/fakeProfileMercier.jpg'),
  helene: person(7_500_016, 'Hélène Dubois', '', null),
  agnes: person(7_500_017, 'Agnès Varenne', 'Directing', '/fakeProfileVarenne.jpg'),
});

const P = FAKE_TMDB_PEOPLE;
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

const PAPER_COMETS_COLLECTION = {
  id: 94_001,
  name: 'Paper Comets Collection',
  poster_path: '/fakeCometsCollectionPoster.jpg',
  backdrop_path: '/fakeCometsCollectionBackdrop.jpg',
};
const FOLDWORKS = {
  id: 93_004,
  name: 'Foldworks Animation',
  logo_path: '/fakeFoldworksLogo.png',
  origin_country: 'US',
};
const ENGLISH = { english_name: 'English', iso_639_1: 'en', name: 'English' };

/** The seed catalogue. Ids, titles, people and every other value are made up for the tests. */
export const FAKE_TMDB_MOVIES: readonly FakeTmdbMovie[] = Object.freeze([
  {
    id: 710001,
    title: "The Lighthouse Keeper's Ledger",
    original_title: "The Lighthouse Keeper's Ledger",
    release_date: '2019-04-12',
    tagline: 'Every light keeps a record.',
    overview: 'A keeper on a northern island finds the entries in his logbook written a day ahead.',
    original_language: 'en',
    runtime: 112,
    poster_path: '/fakeLedgerPoster01.jpg',
    backdrop_path: '/fakeLedgerBackdrop01.jpg',
    imdb_id: 'tt9710001',
    vote_average: 7.314,
    vote_count: 1842,
    popularity: 21.5,
    genres: [
      { id: 18, name: 'Drama' },
      { id: 9648, name: 'Mystery' },
    ],
    belongs_to_collection: null,
    production_companies: [
      { id: 93_001, name: 'Northlight Pictures', logo_path: '/fakeNorthlightLogo.png', origin_country: 'GB' },
      { id: 93_002, name: 'Skerry Films', logo_path: null, origin_country: 'NO' },
    ],
    production_countries: [
      { iso_3166_1: 'GB', name: 'United Kingdom' },
      { iso_3166_1: 'NO', name: 'Norway' },
    ],
    spoken_languages: [ENGLISH, { english_name: 'Norwegian', iso_639_1: 'no', name: 'Norsk' }],
    cast: [
      cast(P.edda, 'Agnes Brekke', 0),
      cast(P.tomas, 'Inspector Dahl', 1),
      cast(P.ines, 'The Ferry Captain', 2),
    ],
    crew: [
      crew(P.grip, 'Camera', 'Key Grip'),
      crew(P.maren, 'Directing', 'Director'),
      crew(P.maren, 'Writing', 'Screenplay'),
      crew(P.jonas, 'Production', 'Producer'),
      crew(P.stunts, 'Crew', 'Stunts'),
      crew(P.sigrun, 'Sound', 'Original Music Composer'),
      crew(P.pavel, 'Camera', 'Director of Photography'),
    ],
  },
  {
    id: 710002,
    title: 'Night Train to Kiel',
    original_title: 'Nachtzug nach Kiel',
    release_date: '2008-11-20',
    tagline: 'Die letzte Verbindung.',
    overview: 'Two strangers share a sleeper compartment and a suitcase that belongs to neither of them.',
    original_language: 'de',
    runtime: 97,
    poster_path: '/fakeKielPoster02.jpg',
    backdrop_path: null,
    imdb_id: 'tt9710002',
    vote_average: 6.45,
    vote_count: 311,
    popularity: 8.25,
    genres: [{ id: 53, name: 'Thriller' }],
    belongs_to_collection: null,
    production_companies: [{ id: 93_003, name: 'Nordbahn Film GmbH', logo_path: null, origin_country: 'DE' }],
    production_countries: [{ iso_3166_1: 'DE', name: 'Germany' }],
    spoken_languages: [
      { english_name: 'German', iso_639_1: 'de', name: 'Deutsch' },
      { english_name: 'Danish', iso_639_1: 'da', name: 'Dansk' },
    ],
    cast: [cast(P.greta, 'Lene', 0), cast(P.tomas, 'Der Schaffner', 1)],
    crew: [
      crew(P.friedrich, 'Directing', 'Director'),
      crew(P.friedrich, 'Writing', 'Writer'),
      crew(P.jonas, 'Production', 'Executive Producer'),
    ],
  },
  {
    id: 710003,
    title: 'Paper Comets',
    original_title: 'Paper Comets',
    release_date: '2019-09-01',
    tagline: 'Fold it. Throw it. Follow it.',
    overview: 'A girl folds a comet out of her grandfather’s maps and chases it across the county.',
    original_language: 'en',
    runtime: 88,
    poster_path: '/fakeCometsPoster03.jpg',
    backdrop_path: '/fakeCometsBackdrop03.jpg',
    imdb_id: 'tt9710003',
    vote_average: 7.9,
    vote_count: 5120,
    popularity: 40.75,
    genres: [
      { id: 16, name: 'Animation' },
      { id: 10751, name: 'Family' },
    ],
    belongs_to_collection: PAPER_COMETS_COLLECTION,
    production_companies: [FOLDWORKS],
    production_countries: [{ iso_3166_1: 'US', name: 'United States of America' }],
    spoken_languages: [ENGLISH],
    cast: [cast(P.ada, 'Wren (voice)', 0), cast(P.edda, 'Grandmother (voice)', 1)],
    crew: [
      crew(P.kenji, 'Directing', 'Director'),
      crew(P.zoe, 'Writing', 'Story'),
      crew(P.kenji, 'Writing', 'Screenplay'),
      crew(P.sigrun, 'Sound', 'Original Music Composer'),
    ],
  },
  {
    id: 710004,
    title: 'Paper Comets II: Tailwind',
    original_title: 'Paper Comets II: Tailwind',
    release_date: '2022-06-17',
    tagline: '',
    overview: 'The comet comes back, and this time it brought friends.',
    original_language: 'en',
    runtime: 91,
    poster_path: '/fakeCometsPoster04.jpg',
    backdrop_path: null,
    imdb_id: 'tt9710004',
    vote_average: 6.8,
    vote_count: 977,
    popularity: 19.0,
    genres: [{ id: 16, name: 'Animation' }],
    belongs_to_collection: PAPER_COMETS_COLLECTION,
    production_companies: [
      FOLDWORKS,
      { id: 93_005, name: 'Tailwind Media', logo_path: null, origin_country: 'CA' },
    ],
    production_countries: [
      { iso_3166_1: 'CA', name: 'Canada' },
      { iso_3166_1: 'US', name: 'United States of America' },
    ],
    spoken_languages: [ENGLISH],
    cast: [cast(P.ada, 'Wren (voice)', 0)],
    crew: [crew(P.kenji, 'Directing', 'Director'), crew(P.zoe, 'Writing', 'Screenplay')],
  },
  {
    id: 710005,
    title: 'Untitled Harbor Project',
    original_title: 'Untitled Harbor Project',
    release_date: '',
    tagline: '',
    overview: '',
    original_language: 'en',
    runtime: 0,
    poster_path: null,
    backdrop_path: null,
    imdb_id: null,
    vote_average: 0,
    vote_count: 0,
    popularity: 0.6,
    genres: [],
    belongs_to_collection: null,
    production_companies: [],
    production_countries: [],
    spoken_languages: [],
    cast: [],
    crew: [],
  },
  {
    id: 710006,
    title: 'The Hanging Garden',
    original_title: 'Le Jardin suspendu',
    release_date: '1974-03-05',
    tagline: 'Rien ne pousse sans lumière.',
    overview: 'A botanist rents a Paris rooftop and finds that the previous tenant never left.',
    original_language: 'fr',
    runtime: 104,
    poster_path: '/fakeJardinPoster06.jpg',
    backdrop_path: '/fakeJardinBackdrop06.jpg',
    imdb_id: 'tt9710006',
    vote_average: 7.05,
    vote_count: 256,
    popularity: 4.1,
    genres: [
      { id: 18, name: 'Drama' },
      { id: 27, name: 'Horror' },
    ],
    belongs_to_collection: null,
    production_companies: [
      { id: 93_006, name: 'Les Films du Toit', logo_path: '/fakeToitLogo.png', origin_country: 'FR' },
    ],
    production_countries: [{ iso_3166_1: 'FR', name: 'France' }],
    spoken_languages: [
      { english_name: 'French', iso_639_1: 'fr', name: 'Français' },
      { english_name: 'Italian', iso_639_1: 'it', name: 'Italiano' },
    ],
    cast: [cast(P.jeanluc, 'Le botaniste', 0), cast(P.helene, '', 1)],
    crew: [
      crew(P.agnes, 'Directing', 'Director'),
      crew(P.agnes, 'Writing', 'Writer'),
      crew(P.pavel, 'Camera', 'Director of Photography'),
    ],
  },
]);

/** A request as the fake received it. `path` is relative to the API root (`/movie/710001`). */
export interface FakeTmdbRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  receivedAt: number;
}

export interface FakeTmdb {
  /** The API root to configure as TMDB_BASE_URL, e.g. `http://127.0.0.1:40123/3`. */
  readonly url: string;
  /**
   * The image root to configure as TMDB_IMAGE_BASE_URL (`.../t/p`). Any `/{size}/{name}.jpg` answers a
   * small PNG poster coloured by its name, except names starting with `missing` (404), `broken` (500),
   * `notimage` (an HTML page) and `huge` (11 MB, streamed without a length).
   */
  readonly imageUrl: string;
  /** Every request received since the last reset, in order, failed ones included. */
  readonly requests: FakeTmdbRequest[];
  /** Highest number of requests the fake was answering at once since the last reset. */
  readonly maxInFlight: number;
  /** The next `count` requests get `status` (429 and 5xx with TMDB's bodies), before any other check. */
  failNext(count: number, status: number, options?: { retryAfter?: string }): void;
  /** The next `count` requests are answered after `ms` milliseconds. */
  delayNext(count: number, ms: number): void;
  /** Adds the movie, or replaces the one with its id. */
  putMovie(movie: FakeTmdbMovie): void;
  removeMovie(id: number): void;
  /** Back to the seed catalogue, no scripted failures or delays, no recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeTmdbOptions {
  apiKey?: string;
  readAccessToken?: string;
  movies?: readonly FakeTmdbMovie[];
  /** Results per search page; TMDB uses 20. */
  pageSize?: number;
  /** The address to listen on (default 127.0.0.1); the URLs keep naming 127.0.0.1. */
  host?: string;
}

const API_ROOT = '/3';
const MAX_PAGE = 500;

const error = (status_code: number, status_message: string) => ({
  status_code,
  status_message,
  success: false,
});
const INVALID_KEY = error(7, 'Invalid API key: You must be granted a valid key.');
const NOT_FOUND = error(34, 'The resource you requested could not be found.');
const INVALID_PAGE = error(
  22,
  'Invalid page: Pages start at 1 and max at 500. They are expected to be an integer.',
);
const FAILURES: Record<number, object> = {
  429: error(25, 'Your request count (#) is over the allowed limit of (40).'),
  500: error(11, 'Internal error: Something went wrong, contact TMDB.'),
  502: error(24, 'Your request to the backend server timed out. Try again.'),
  503: error(9, 'Service offline: This service is temporarily offline, try again later.'),
};

export async function startFakeTmdb(options: FakeTmdbOptions = {}): Promise<FakeTmdb> {
  const apiKey = options.apiKey ?? FAKE_TMDB_API_KEY;
  const readAccessToken = options.readAccessToken ?? FAKE_TMDB_READ_ACCESS_TOKEN;
  const seed = options.movies ?? FAKE_TMDB_MOVIES;
  const pageSize = options.pageSize ?? 20;

  const movies = new Map<number, FakeTmdbMovie>();
  const requests: FakeTmdbRequest[] = [];
  const failures: { status: number; retryAfter: string | undefined }[] = [];
  const delays: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;

  const reset = () => {
    movies.clear();
    for (const movie of seed) movies.set(movie.id, structuredClone(movie));
    requests.length = 0;
    failures.length = 0;
    delays.length = 0;
    maxInFlight = 0;
  };
  reset();

  const answer = (req: IncomingMessage, url: URL): { status: number; body: unknown; headers?: object } => {
    const failure = failures.shift();
    if (failure) {
      return {
        status: failure.status,
        body: FAILURES[failure.status] ?? error(11, 'Internal error'),
        headers: failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter },
      };
    }
    // TMDB's image server: public, no key.
    const image = /^\/t\/p\/(w\d+|original)\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && image) return imageAnswer(image[2]!);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (url.searchParams.get('api_key') !== apiKey && bearer !== readAccessToken) {
      return { status: 401, body: INVALID_KEY };
    }
    if (req.method !== 'GET' || !url.pathname.startsWith(`${API_ROOT}/`))
      return { status: 404, body: NOT_FOUND };
    const path = url.pathname.slice(API_ROOT.length);

    const movieMatch = /^\/movie\/(\d+)$/.exec(path);
    if (movieMatch) {
      const movie = movies.get(Number(movieMatch[1]));
      if (!movie) return { status: 404, body: NOT_FOUND };
      const appended = (url.searchParams.get('append_to_response') ?? '').split(',');
      return { status: 200, body: movieDetails(movie, { credits: appended.includes('credits') }) };
    }
    if (path === '/search/movie') return search(url.searchParams);
    if (path === '/configuration') {
      return {
        status: 200,
        body: {
          images: {
            secure_base_url: 'https://image.tmdb.org/t/p/',
            poster_sizes: ['w92', 'w342', 'original'],
          },
          change_keys: [],
        },
      };
    }
    const findMatch = /^\/find\/([^/]+)$/.exec(path);
    if (findMatch) {
      if (url.searchParams.get('external_source') !== 'imdb_id') {
        return { status: 400, body: error(5, 'Invalid parameters: Your request parameters are incorrect.') };
      }
      const imdbId = decodeURIComponent(findMatch[1] ?? '');
      const found = [...movies.values()].filter((m) => m.imdb_id === imdbId);
      return {
        status: 200,
        body: {
          movie_results: found.map((m) => ({ ...searchResult(m), media_type: 'movie' })),
          person_results: [],
          tv_results: [],
          tv_episode_results: [],
          tv_season_results: [],
        },
      };
    }
    return { status: 404, body: NOT_FOUND };
  };

  const search = (params: URLSearchParams): { status: number; body: unknown } => {
    const query = (params.get('query') ?? '').trim().toLowerCase();
    if (query === '') return { status: 422, body: { errors: ['query must be provided'] } };
    const pageParam = params.get('page') ?? '1';
    const page = Number(pageParam);
    if (!/^\d+$/.test(pageParam) || page < 1 || page > MAX_PAGE) return { status: 400, body: INVALID_PAGE };
    const year = params.get('primary_release_year') ?? params.get('year');
    const matches = [...movies.values()].filter(
      (m) =>
        (m.title.toLowerCase().includes(query) || m.original_title.toLowerCase().includes(query)) &&
        (year === null || m.release_date.startsWith(`${year}-`)),
    );
    return {
      status: 200,
      body: {
        page,
        results: matches.slice((page - 1) * pageSize, page * pageSize).map(searchResult),
        // TMDB reports one page for an empty result.
        total_pages: Math.max(1, Math.ceil(matches.length / pageSize)),
        total_results: matches.length,
      },
    };
  };

  const imageAnswer = (name: string): { status: number; body: unknown; headers?: object } => {
    if (name.startsWith('missing')) return { status: 404, body: NOT_FOUND };
    if (name.startsWith('broken')) return { status: 500, body: FAILURES[500] };
    if (name.startsWith('notimage')) {
      return {
        status: 200,
        body: Buffer.from('<!doctype html><p>hello'),
        headers: { 'content-type': 'image/jpeg' },
      };
    }
    if (name.startsWith('huge')) {
      return {
        status: 200,
        body: Buffer.alloc(11 * 1024 * 1024, 0xff),
        headers: { 'content-type': 'image/jpeg' },
      };
    }
    return { status: 200, body: posterPng(name), headers: { 'content-type': 'image/png' } };
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: object = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
    if (Buffer.isBuffer(body)) {
      // Written, then ended: sent in chunks, with no Content-Length to trust.
      res.write(body);
      res.end();
      return;
    }
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake-tmdb.local');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname.startsWith(`${API_ROOT}/`) ? url.pathname.slice(API_ROOT.length) : url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization ?? null,
      receivedAt: Date.now(),
    });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Fires once the answer is sent or the client gave up waiting.
    res.on('close', () => {
      inFlight -= 1;
    });
    const delay = delays.shift();
    const respond = () => {
      const { status, body, headers } = answer(req, url);
      send(res, status, body, headers);
    };
    if (delay === undefined) {
      respond();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond();
    }, delay);
    timers.add(timer);
  });

  // An idle connection is kept for a minute, as TMDB's own servers do: with Node's 5 s the fake could
  // close a connection just as the app's fetch (which keeps one 4 s) sends on it again, on a busy
  // machine, and the app would see ECONNRESET from a server that is up.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${API_ROOT}`,
    imageUrl: `http://127.0.0.1:${port}/t/p`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    failNext(count, status, failOptions = {}) {
      for (let i = 0; i < count; i += 1) failures.push({ status, retryAfter: failOptions.retryAfter });
    },
    delayNext(count, ms) {
      for (let i = 0; i < count; i += 1) delays.push(ms);
    },
    putMovie(movie) {
      movies.set(movie.id, structuredClone(movie));
    },
    removeMovie(id) {
      movies.delete(id);
    },
    reset,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function movieDetails(movie: FakeTmdbMovie, append: { credits: boolean }) {
  const details = {
    adult: false,
    backdrop_path: movie.backdrop_path,
    belongs_to_collection: movie.belongs_to_collection,
    budget: 0,
    genres: movie.genres,
    homepage: '',
    id: movie.id,
    imdb_id: movie.imdb_id,
    origin_country: movie.production_countries.map((c) => c.iso_3166_1),
    original_language: movie.original_language,
    original_title: movie.original_title,
    overview: movie.overview,
    popularity: movie.popularity,
    poster_path: movie.poster_path,
    production_companies: movie.production_companies,
    production_countries: movie.production_countries,
    release_date: movie.release_date,
    revenue: 0,
    runtime: movie.runtime,
    spoken_languages: movie.spoken_languages,
    status: 'Released',
    tagline: movie.tagline,
    title: movie.title,
    video: false,
    vote_average: movie.vote_average,
    vote_count: movie.vote_count,
  };
  if (!append.credits) return details;
  // As TMDB appends it: no `id` inside, person fields plus the credit's own.
  return {
    ...details,
    credits: {
      cast: movie.cast.map((credit, i) => ({
        ...personFields(credit),
        cast_id: i + 1,
        character: credit.character,
        credit_id: creditId(movie.id, 'cast', i),
        order: credit.order,
      })),
      crew: movie.crew.map((credit, i) => ({
        ...personFields(credit),
        credit_id: creditId(movie.id, 'crew', i),
        department: credit.department,
        job: credit.job,
      })),
    },
  };
}

function personFields(who: FakeTmdbPerson) {
  return {
    adult: false,
    gender: 0,
    id: who.id,
    known_for_department: who.known_for_department,
    name: who.name,
    original_name: who.name,
    popularity: 1.5,
    profile_path: who.profile_path,
  };
}

/** A 24-hex-digit id shaped like TMDB's credit ids. */
const creditId = (movieId: number, kind: 'cast' | 'crew', index: number) =>
  `${kind === 'cast' ? 'ca' : 'cr'}${String(movieId).padStart(10, '0')}${String(index).padStart(12, '0')}`;

function searchResult(movie: FakeTmdbMovie) {
  return {
    adult: false,
    backdrop_path: movie.backdrop_path,
    genre_ids: movie.genres.map((g) => g.id),
    id: movie.id,
    original_language: movie.original_language,
    original_title: movie.original_title,
    overview: movie.overview,
    popularity: movie.popularity,
    poster_path: movie.poster_path,
    release_date: movie.release_date,
    title: movie.title,
    video: false,
    vote_average: movie.vote_average,
    vote_count: movie.vote_count,
  };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Buffer) => {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const pngChunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/** A real 40×60 PNG (a poster's 2:3) in one colour chosen by `name`, darker towards the bottom. */
export function posterPng(name: string): Buffer {
  const width = 40;
  const height = 60;
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const [r, g, b] = [hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff];
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const shade = 1 - (y / height) * 0.6;
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      row[1 + x * 3] = Math.round(r * shade);
      row[2 + x * 3] = Math.round(g * shade);
      row[3 + x * 3] = Math.round(b * shade);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
