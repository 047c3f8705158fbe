import { isCalendarDate } from '../../shared/dates.js';
import {
  type TmdbCastCredit,
  type TmdbClient,
  type TmdbCollection,
  type TmdbCompany,
  type TmdbCrewCredit,
  TmdbError,
  type TmdbMovie,
  type TmdbPerson,
  type TmdbSearchPage,
  type TmdbSearchResult,
} from './tmdb.types.js';

export interface TmdbClientOptions {
  /** A v3 API key (sent as `api_key`) or a v4 read-access token (a JWT, sent as `Authorization: Bearer`). */
  apiKey: string;
  /** The API root, e.g. `https://api.themoviedb.org/3`. */
  baseUrl: string;
  /** Per attempt, including reading the body. Default 10 s. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx, a network error or a timeout. Default 3. */
  maxRetries?: number;
  /** First backoff delay; it doubles with every retry. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Cap on any wait between attempts, `Retry-After` included. Default 10 s. */
  maxRetryDelayMs?: number;
  /** Requests in flight at once. Default 8. */
  maxConcurrency?: number;
}

const DEFAULTS = {
  timeoutMs: 10_000,
  maxRetries: 3,
  retryBaseDelayMs: 500,
  maxRetryDelayMs: 10_000,
  maxConcurrency: 8,
};

/** A v4 read-access token is a JWT: three base64url parts, the first a JSON header (`eyJ` = `{"`). */
const JWT = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type Json = Record<string, unknown>;
type TmdbResponse = { status: number; body: unknown };
type Attempt = { response: TmdbResponse; retryAfterMs: number | null } | { failure: string };

export function createTmdbClient(options: TmdbClientOptions): TmdbClient {
  const settings = { ...DEFAULTS, ...withoutUndefined(options) };
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const isReadAccessToken = JWT.test(options.apiKey);
  const limit = createLimiter(Math.max(1, settings.maxConcurrency));

  const attempt = (path: string, params: Record<string, string>): Promise<Attempt> =>
    limit(async () => {
      const url = new URL(baseUrl + path);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (isReadAccessToken) headers.authorization = `Bearer ${options.apiKey}`;
      else url.searchParams.set('api_key', options.apiKey);
      try {
        // Looked up per call, so a test's fetch guard sees every request.
        const res = await globalThis.fetch(url, {
          headers,
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        const text = await res.text();
        return {
          response: { status: res.status, body: parseJson(text) },
          retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
        };
      } catch (error) {
        return { failure: describeNetworkError(error, settings.timeoutMs) };
      }
    });

  /** GET with retries; answers every status but 401, 429 and 5xx to the caller. */
  async function get(path: string, params: Record<string, string> = {}): Promise<TmdbResponse> {
    for (let retry = 0; ; retry += 1) {
      const result = await attempt(path, params);
      const attempts = retry + 1;
      if ('failure' in result) {
        if (retry >= settings.maxRetries) {
          throw new TmdbError(null, `${result.failure} (${plural(attempts, 'attempt')})`);
        }
        await sleep(backoff(retry));
        continue;
      }
      const { response, retryAfterMs } = result;
      if (response.status === 401) {
        throw new TmdbError(401, `TMDB rejected the API key: ${statusMessage(response)}`);
      }
      if (response.status === 429 || response.status >= 500) {
        if (retry >= settings.maxRetries) {
          throw new TmdbError(
            response.status,
            `TMDB answered ${response.status} (${statusMessage(response)}) ${plural(attempts, 'time')}`,
          );
        }
        await sleep(Math.min(retryAfterMs ?? backoff(retry), settings.maxRetryDelayMs));
        continue;
      }
      return response;
    }
  }

  /** Exponential, with jitter so that parallel callers do not retry in lockstep. */
  const backoff = (retry: number) =>
    Math.min(settings.retryBaseDelayMs * 2 ** retry * (0.5 + Math.random() / 2), settings.maxRetryDelayMs);

  const expectOk = (response: TmdbResponse, what: string): Json => {
    if (response.status < 200 || response.status >= 300) {
      throw new TmdbError(
        response.status,
        `TMDB answered ${response.status} to ${what}: ${statusMessage(response)}`,
      );
    }
    if (!isObject(response.body))
      throw new TmdbError(response.status, `TMDB answered ${what} without a JSON object`);
    return response.body;
  };

  return {
    async getMovie(tmdbId) {
      // Credits in the same request: one call per movie, within the same rate limit.
      const response = await get(`/movie/${encodeURIComponent(String(tmdbId))}`, {
        append_to_response: 'credits',
      });
      if (response.status === 404) return null;
      const movie = toMovie(expectOk(response, `movie ${tmdbId}`));
      if (!movie)
        throw new TmdbError(response.status, `TMDB answered movie ${tmdbId} without an id or a title`);
      return movie;
    },

    async searchMovies({ query, page, year }) {
      const params: Record<string, string> = { query, page: String(page), include_adult: 'false' };
      // primary_release_year, not year: the filter then matches the release date a result shows.
      if (year !== undefined) params.primary_release_year = String(year);
      const body = expectOk(await get('/search/movie', params), 'a search');
      return toSearchPage(body, page);
    },

    async ping() {
      expectOk(await get('/configuration', {}), 'the configuration');
    },

    async findByImdbId(imdbId) {
      const body = expectOk(
        await get(`/find/${encodeURIComponent(imdbId)}`, { external_source: 'imdb_id' }),
        `a lookup of ${imdbId}`,
      );
      return toSearchResults(body.movie_results);
    },
  };
}

// --- mapping TMDB's JSON, trusting no field ---

function toMovie(body: Json): TmdbMovie | null {
  const id = positiveInteger(body.id);
  const title = text(body.title) ?? text(body.original_title);
  if (id === null || title === null) return null;
  return {
    id,
    title,
    original_title: text(body.original_title),
    release_date: calendarDate(body.release_date),
    tagline: text(body.tagline),
    overview: text(body.overview),
    original_language: text(body.original_language),
    runtime: positiveInteger(body.runtime),
    poster_path: text(body.poster_path),
    imdb_id: text(body.imdb_id),
    vote_average: finiteNumber(body.vote_average),
    vote_count: nonNegativeInteger(body.vote_count),
    genres: objects(body.genres).flatMap((genre) => {
      const genreId = positiveInteger(genre.id);
      const name = text(genre.name);
      return genreId === null || name === null ? [] : [{ id: genreId, name }];
    }),
    backdrop_path: text(body.backdrop_path),
    belongs_to_collection: isObject(body.belongs_to_collection)
      ? toCollection(body.belongs_to_collection)
      : null,
    production_companies: objects(body.production_companies).flatMap((company) => {
      const mapped = toCompany(company);
      return mapped ? [mapped] : [];
    }),
    production_countries: objects(body.production_countries).flatMap((country) => {
      const code = text(country.iso_3166_1);
      const name = text(country.name);
      return code === null || name === null ? [] : [{ iso_3166_1: code.toUpperCase(), name }];
    }),
    spoken_languages: objects(body.spoken_languages).flatMap((language) => {
      const code = text(language.iso_639_1);
      if (code === null) return [];
      return [
        {
          iso_639_1: code.toLowerCase(),
          english_name: text(language.english_name),
          name: text(language.name),
        },
      ];
    }),
    credits: isObject(body.credits) ? toCredits(body.credits) : null,
  };
}

function toCollection(body: Json): TmdbCollection | null {
  const id = positiveInteger(body.id);
  const name = text(body.name);
  if (id === null || name === null) return null;
  return { id, name, poster_path: text(body.poster_path), backdrop_path: text(body.backdrop_path) };
}

function toCompany(body: Json): TmdbCompany | null {
  const id = positiveInteger(body.id);
  const name = text(body.name);
  if (id === null || name === null) return null;
  return { id, name, logo_path: text(body.logo_path), origin_country: text(body.origin_country) };
}

function toPerson(body: Json): TmdbPerson | null {
  const id = positiveInteger(body.id);
  const name = text(body.name) ?? text(body.original_name);
  if (id === null || name === null) return null;
  return {
    id,
    name,
    profile_path: text(body.profile_path),
    known_for_department: text(body.known_for_department),
  };
}

function toCredits(body: Json): { cast: TmdbCastCredit[]; crew: TmdbCrewCredit[] } {
  return {
    cast: objects(body.cast).flatMap((credit) => {
      const person = toPerson(credit);
      return person
        ? [{ ...person, character: text(credit.character), order: nonNegativeInteger(credit.order) }]
        : [];
    }),
    crew: objects(body.crew).flatMap((credit) => {
      const person = toPerson(credit);
      const department = text(credit.department);
      const job = text(credit.job);
      return person && department !== null && job !== null ? [{ ...person, department, job }] : [];
    }),
  };
}

function toSearchPage(body: Json, requestedPage: number): TmdbSearchPage {
  return {
    page: positiveInteger(body.page) ?? requestedPage,
    results: toSearchResults(body.results),
    total_pages: nonNegativeInteger(body.total_pages) ?? 0,
    total_results: nonNegativeInteger(body.total_results) ?? 0,
  };
}

function toSearchResults(value: unknown): TmdbSearchResult[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (!isObject(item)) return [];
    const id = positiveInteger(item.id);
    if (id === null) return [];
    return [
      {
        id,
        title: text(item.title) ?? text(item.original_title) ?? '',
        original_title: text(item.original_title),
        release_date: calendarDate(item.release_date),
        overview: text(item.overview),
        original_language: text(item.original_language),
        poster_path: text(item.poster_path),
      },
    ];
  });
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The objects of an array; anything else (a missing list, null entries) is none. */
const objects = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

/**
 * A non-blank string; TMDB sends `""` for many unknown values. TMDB's text is foreign: NUL characters,
 * which PostgreSQL cannot store, are dropped here, so no caller ever sees one.
 */
const text = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const clean = value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  return clean.trim() === '' ? null : clean;
};

const calendarDate = (value: unknown): string | null =>
  typeof value === 'string' && isCalendarDate(value) ? value : null;

const finiteNumber = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

const nonNegativeInteger = (value: unknown): number | null =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;

const positiveInteger = (value: unknown): number | null => {
  const n = nonNegativeInteger(value);
  return n === null || n === 0 ? null : n;
};

// --- HTTP details ---

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** TMDB's own explanation (`status_message`, or `errors[]` of a 422), or a generic one. */
function statusMessage(response: TmdbResponse): string {
  const body = response.body;
  if (isObject(body)) {
    if (typeof body.status_message === 'string') return body.status_message;
    if (Array.isArray(body.errors) && body.errors.every((e) => typeof e === 'string')) {
      return body.errors.join('; ');
    }
  }
  return 'no TMDB error message';
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(header: string | null): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** Never includes the URL: with a v3 key, it carries the key. */
function describeNetworkError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `TMDB did not answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : 'network error';
  return `TMDB is unreachable (${code})`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** At most `max` tasks run at once; the rest wait in order. */
function createLimiter(max: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
