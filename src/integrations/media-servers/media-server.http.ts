/**
 * What the Plex, Jellyfin and Emby clients share: one GET of a JSON answer with a timeout and a cap on
 * the bytes read, every failure turned into a MediaServerError whose message names the server and what
 * to do, and lenient readers of the answers' fields (no field's type is trusted).
 */
import { type MediaServerClientOptions, MediaServerError, type ServerUser } from './media-server.types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_PAGE_SIZE = 200;
/** A page of 200 movies is well under 1 MB; 20 MB is a server answering something else. */
export const DEFAULT_MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

export interface ServerHttp {
  /** "Plex at http://host:32400": for messages. The URL as given, without its query or credentials. */
  readonly label: string;
  /** GET `path` (below the base URL) with `query`; the parsed JSON body. 404 answers `null`. */
  getJson(path: string, query: Record<string, string>, what: string): Promise<unknown | null>;
}

export interface ServerHttpSettings {
  /** "Plex", "Jellyfin", "Emby". */
  serverName: string;
  /** What to do when the server refuses the token (each server's own credential). */
  refusedTokenHint: string;
  baseUrl: string;
  /** The URL as the user gave it, for messages (Emby's API base adds `/emby`); `baseUrl` when absent. */
  givenUrl?: string;
  /** The credential headers: the token travels only here, never in a URL. */
  headers: Record<string, string>;
  /** The token itself, only to check it is not empty. */
  token: string;
  options: MediaServerClientOptions | undefined;
}

export function serverHttp(settings: ServerHttpSettings): ServerHttp {
  const timeoutMs = positive(settings.options?.timeoutMs) ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = positive(settings.options?.maxResponseBytes) ?? DEFAULT_MAX_RESPONSE_BYTES;
  const base = parseBaseUrl(settings.baseUrl);
  const given = settings.givenUrl ?? settings.baseUrl;
  const givenBase = parseBaseUrl(given);
  const label = `${settings.serverName} at ${givenBase ? displayUrl(givenBase) : JSON.stringify(given.slice(0, 200))}`;
  // A header value fetch refuses (a line break, a non-ASCII letter) is a token pasted wrong, not a
  // network failure; fetch's own message would quote it.
  const badToken = Object.values(settings.headers).some((value) => !/^[\x20-\x7e]*$/.test(value));

  return {
    label,
    async getJson(path, query, what) {
      if (!base) {
        throw new MediaServerError(
          'unreachable',
          `${label} is not a server address: give its URL with http:// or https://, e.g. http://192.168.1.10:8096.`,
        );
      }
      if (badToken || settings.token.trim() === '') {
        throw new MediaServerError(
          'unauthorized',
          `${label} was not asked for ${what}: the ${settings.token.trim() === '' ? 'token is empty' : 'token holds characters a token cannot have (a line break or a non-ASCII letter)'}; paste it again.`,
        );
      }
      const url = new URL(base.href.replace(/\/+$/, '') + path);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      let response: Response;
      let body: Buffer;
      try {
        // Looked up per call, so a test's fetch guard sees every request. The signal also bounds
        // reading the body: a server that trickles its answer times out as one that never answers.
        response = await globalThis.fetch(url, {
          headers: { accept: 'application/json', ...settings.headers },
          signal: AbortSignal.timeout(timeoutMs),
          // fetch drops `Authorization` on a redirect to another origin but keeps X-Plex-Token and
          // X-Emby-Token: a redirect is reported, never followed, so the token goes to this URL only.
          redirect: 'manual',
        });
        if (response.status >= 300 && response.status < 400) {
          await response.body?.cancel().catch(() => {});
          throw redirected(response, url, label, what);
        }
        if (response.status === 404) {
          await response.body?.cancel().catch(() => {});
          return null;
        }
        if (response.status === 401 || response.status === 403) {
          await response.body?.cancel().catch(() => {});
          throw new MediaServerError(
            'unauthorized',
            `${label} refused the token (HTTP ${response.status}) when asked for ${what}: ${settings.refusedTokenHint}.`,
          );
        }
        body = await readCapped(response, maxBytes, label, what);
      } catch (error) {
        if (error instanceof MediaServerError) throw error;
        throw networkError(error, label, what, timeoutMs);
      }
      if (response.status < 200 || response.status >= 300) {
        const down = response.status === 502 || response.status === 503 || response.status === 504;
        throw new MediaServerError(
          down ? 'unreachable' : 'bad-answer',
          `${label} answered HTTP ${response.status} when asked for ${what}: ${down ? 'the server (or the proxy before it) is down; try again when it is up' : 'check the server\u2019s logs, or the URL if a proxy stands before it'}.`,
        );
      }
      const text = body.toString('utf8');
      try {
        return JSON.parse(text) as unknown;
      } catch {
        const html = /^\s*</.test(text);
        throw new MediaServerError(
          'bad-answer',
          `${label} answered ${what} with ${html ? 'a web page' : 'something'} that is not JSON: check that the URL is the server's own address (not its web app's page, a proxy's login page or another service).`,
        );
      }
    },
  };
}

/** A bad answer's error, for the clients' shape checks. */
export function badShape(http: ServerHttp, what: string, detail: string): MediaServerError {
  return new MediaServerError(
    'bad-answer',
    `${http.label} answered ${what} in a shape cinelog does not know (${detail}): check that the URL is the server's own address and that the server is up to date.`,
  );
}

async function readCapped(
  response: Response,
  maxBytes: number,
  label: string,
  what: string,
): Promise<Buffer> {
  const tooBig = () =>
    new MediaServerError(
      'bad-answer',
      `${label} answered ${what} with more than ${Math.round(maxBytes / 1024 / 1024) || 1} MB: that is not a page of movies; check the URL.`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooBig();
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function redirected(response: Response, from: URL, label: string, what: string): MediaServerError {
  let target = '';
  try {
    const location = new URL(response.headers.get('location') ?? '', from);
    target = ` to ${location.origin}${location.pathname}`;
  } catch {
    // No usable Location: the message says so without one.
  }
  return new MediaServerError(
    'unreachable',
    `${label} answered ${what} with a redirect (HTTP ${response.status})${target}: give the server's own address (https:// if it redirects there), which cinelog calls without following redirects.`,
  );
}

function networkError(error: unknown, label: string, what: string, timeoutMs: number): MediaServerError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new MediaServerError(
      'timeout',
      `${label} did not answer ${what} within ${formatSeconds(timeoutMs)}: the server may be busy or asleep; try again later.`,
    );
  }
  // undici puts the system error (ECONNREFUSED, ENOTFOUND...) in `cause`; its message names the host,
  // never our headers.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
  const code = cause && 'code' in cause && typeof cause.code === 'string' ? cause.code : null;
  const reason =
    code === 'ECONNREFUSED'
      ? 'the connection was refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name is unknown'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? 'the connection was cut'
          : code
            ? `the connection failed (${code})`
            : 'the connection failed';
  return new MediaServerError(
    'unreachable',
    `${label} could not be reached for ${what}: ${reason}. Check the URL (host, port, http or https) and that the server is running.`,
  );
}

function parseBaseUrl(value: string): URL | null {
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.search = '';
    url.hash = '';
    url.username = '';
    url.password = '';
    return url;
  } catch {
    return null;
  }
}

function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function positive(value: number | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : null;
}

/** The users' names, for a message that asks to pick one. */
export function names(users: readonly ServerUser[]): string {
  if (users.length === 0) return 'none (the server lists no user)';
  const shown = users.slice(0, 20).map((user) => `"${user.name}"`);
  return users.length > shown.length
    ? `${shown.join(', ')} and ${users.length - shown.length} more`
    : shown.join(', ');
}

// ---- Reading the answers leniently --------------------------------------------------------------

export type Json = { readonly [key: string]: unknown };

export function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

/** An own property only, so `constructor` and friends never reach the prototype. */
export function field(object: Json | null, key: string): unknown {
  return object !== null && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `field`, falling back to a key that differs only in letter case (`Tmdb`, `tmdb`). */
export function fieldAnyCase(object: Json | null, key: string): unknown {
  if (object === null) return undefined;
  if (Object.hasOwn(object, key)) return object[key];
  const lower = key.toLowerCase();
  const match = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return match === undefined ? undefined : object[match];
}

export function objects(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const object = asObject(entry);
    return object ? [object] : [];
  });
}

/** A string with something in it. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** An id: a string, or a whole number as its decimal text (Plex sends account ids as numbers). */
export function identifier(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : null;
  return text(value);
}

/** A non-negative integer, as a number or a string of digits. */
export function count(value: unknown): number | null {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : null;
}

/** A release year that can be one. */
export function year(value: unknown): number | null {
  const number = count(value);
  return number !== null && number >= 1870 && number <= 2200 ? number : null;
}

export function tmdbId(value: unknown): number | null {
  const id = count(value);
  return id !== null && id > 0 && id <= 2_147_483_647 ? id : null;
}

export function imdbId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^\s*tt(\d{5,10})\s*$/i.exec(value);
  return match ? `tt${match[1]}` : null;
}

// Before 1970 is .NET's DateTime.MinValue (0001-01-01) or epoch 0: a placeholder, not a play.
const EARLIEST_PLAY = Date.UTC(1970, 0, 2);
const LATEST_PLAY = Date.UTC(9999, 11, 31);

/** Plex's `viewedAt` and `lastViewedAt`: UTC epoch seconds, as a number or a string of digits. */
export function epochSeconds(value: unknown): string | null {
  const seconds =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isFinite(seconds)) return null;
  return plausible(Math.round(seconds * 1000));
}

// Date.parse is unreliable with .NET's 7 fraction digits, hence a strict pattern of our own.
const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})?)?$/;

/** An ISO 8601 instant (Jellyfin, Emby: `2024-05-01T20:15:30.1234567Z`); without a zone it is UTC. */
export function isoInstant(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = ISO_TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, , sign, offsetHours, offsetMinutes] = match;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) {
    return null;
  }
  const date = new Date(0);
  date.setUTCFullYear(Number(y), month - 1, day);
  if (date.getUTCMonth() !== month - 1) return null; // 02-30 rolled into March
  date.setUTCHours(
    Number(h),
    Number(mi),
    Number(s ?? 0),
    Number((fraction ?? '').slice(0, 3).padEnd(3, '0')),
  );
  const offsetMs = (Number(offsetHours ?? 0) * 60 + Number(offsetMinutes ?? 0)) * 60_000;
  return plausible(date.getTime() - (sign === '-' ? -offsetMs : offsetMs));
}

function plausible(ms: number): string | null {
  return Number.isFinite(ms) && ms >= EARLIEST_PLAY && ms <= LATEST_PLAY ? new Date(ms).toISOString() : null;
}
