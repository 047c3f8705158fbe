import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';

/** The whole of cinelog's configuration, read once from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** PostgreSQL connections per process. */
  readonly databasePoolSize: number;
  /** SQLite's commit durability: `normal` survives a crash of cinelog, `full` also a power loss. */
  readonly sqliteSynchronous: 'normal' | 'full';
  readonly appUrl: string;
  readonly timezone: string;
  readonly tmdb: {
    readonly apiKey: string | null;
    readonly baseUrl: string;
    readonly imageBaseUrl: string;
  };
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly logLevel: LogLevel;
  readonly trustProxy: boolean;
  /** Anyone may create an account on the web app's sign-up page (otherwise only admins create users). */
  readonly enableRegistration: boolean;
  /** A movie reported again for the same user within this many hours counts once (0: never deduplicate). */
  readonly scrobbleDedupeHours: number;
  /** Open connections this process accepts at once; past it, a new connection is closed at once. */
  readonly maxConnections: number;
  /** Open connections one client address may hold; past it, its new connection is closed at once. */
  readonly maxConnectionsPerClient: number;
  /**
   * SECRET_KEY: encrypts the two-factor secrets. Null when not set: SQLite then keeps a key file of its
   * own beside the database (see modules/auth/secret-box.ts); PostgreSQL offers no two-factor sign-in.
   */
  readonly secretKey: string | null;
  /** Background jobs this instance runs at once (JOBS_CONCURRENCY); 0: none, another instance runs them. */
  readonly jobsConcurrency: number;
  /** A movie's TMDB data is refreshed in the background once it is this many days old. */
  readonly metadataRefreshDays: number;
  /**
   * IMDB_RATINGS_URL: where the daily job downloads IMDb's `title.ratings.tsv.gz` from. Null when set
   * empty: no daily download (`cinelog imdb import <file>` still works).
   */
  readonly imdbRatingsUrl: string | null;
  /** IMAGE_CACHE: posters and profile pictures are kept locally and served under `/images`. */
  readonly imageCache: boolean;
  /** IMAGE_CACHE_DIR: where the cached images are kept (default: `images` beside the SQLite file). */
  readonly imageCacheDir: string;
  /** BACKUP_DIR: where scheduled SQLite backups go; null: no scheduled backups. */
  readonly backupDir: string | null;
  /** BACKUP_KEEP: scheduled backups kept in BACKUP_DIR; older ones are deleted. */
  readonly backupKeep: number;
  /** BACKUP_INTERVAL_HOURS: hours between two scheduled backups. */
  readonly backupIntervalHours: number;
  /** METRICS: serve Prometheus metrics at GET /metrics. */
  readonly metrics: boolean;
  /** METRICS_TOKEN: the Bearer token /metrics asks for; null: none asked. */
  readonly metricsToken: string | null;
  /** IMPORTS_DIR: where uploaded imports wait for their job (default: `imports` beside the SQLite file). */
  readonly importsDir: string;
  /** Forward auth (AUTH_PROXY_*, docs/reverse-proxy.md): null when AUTH_PROXY_HEADER is not set. */
  readonly authProxy: AuthProxyConfig | null;
  /** OpenID Connect sign-in (OIDC_*); null when OIDC_ISSUER_URL is not set (docs/sso.md). */
  readonly oidc: OidcConfig | null;
}

/** A reverse proxy that signed the user in names them in a header; trusted from its addresses only. */
export interface AuthProxyConfig {
  /** AUTH_PROXY_HEADER, lower case (as Node names headers): the signed-in user's name. */
  readonly header: string;
  /** AUTH_PROXY_EMAIL_HEADER, lower case: their e-mail address, for an account made on first sight. */
  readonly emailHeader: string | null;
  /** AUTH_PROXY_TRUSTED: the proxies' addresses and networks; the header from anywhere else is ignored. */
  readonly trusted: readonly TrustedNetwork[];
  /** AUTH_PROXY_AUTO_REGISTER: a name without an account gets one (otherwise a 403 page). */
  readonly autoRegister: boolean;
  /** AUTH_PROXY_LOGOUT_URL: where Sign out goes after ending cinelog's session (the proxy's logout). */
  readonly logoutUrl: string | null;
}

export interface TrustedNetwork {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** OIDC_*: sign-in through an OpenID provider (Authelia, Authentik, Keycloak, Pocket ID...). */
export interface OidcConfig {
  readonly issuerUrl: string;
  readonly clientId: string;
  /** OIDC_CLIENT_SECRET (or _FILE); null: a public client (PKCE only). */
  readonly clientSecret: string | null;
  readonly buttonLabel: string;
  readonly scopes: string;
  /** OIDC_AUTO_REGISTER: a first sign-in that matches no account creates one. */
  readonly autoRegister: boolean;
  /** OIDC_ADMIN_GROUP: a `groups` claim value that makes the user an administrator at sign-in. */
  readonly adminGroup: string | null;
  /** OIDC_ONLY: the password sign-in form is off (the CLI is the way back in: docs/cli.md). */
  readonly only: boolean;
  /**
   * Plain-http issuer allowed: only for 127.0.0.1/localhost, or with OIDC_ALLOW_HTTP=true (tests, a
   * provider on a private network). Everything else must be https.
   */
  readonly allowHttp: boolean;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Variables that may also be given as `<NAME>_FILE`, pointing at a file holding the value. */
const SECRET_VARIABLES = [
  'DATABASE_URL',
  'TMDB_API_KEY',
  'SMTP_URL',
  'SECRET_KEY',
  'METRICS_TOKEN',
  'OIDC_CLIENT_SECRET',
] as const;

/** IMDb's official non-commercial dataset of ratings, refreshed by IMDb once a day. */
export const IMDB_RATINGS_DEFAULT_URL = 'https://datasets.imdbws.com/title.ratings.tsv.gz';

/** SECRET_KEY's shortest length: `openssl rand -base64 32` gives 44 characters. */
export const MIN_SECRET_KEY_LENGTH = 32;

/** Thrown for a bad variable; its message is the one line the process prints before it stops. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env): Config {
  const read = (name: string): string | undefined => {
    const direct = env[name];
    const file = (SECRET_VARIABLES as readonly string[]).includes(name) ? env[`${name}_FILE`] : undefined;
    if (direct !== undefined && direct !== '' && file) {
      throw new ConfigError(`${name} and ${name}_FILE are both set: set only one of them`);
    }
    if (file) {
      try {
        return readFileSync(file, 'utf8').trim();
      } catch (error) {
        throw new ConfigError(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
      }
    }
    return direct === '' ? undefined : direct?.trim();
  };

  const port = parsePort(read('PORT'));
  const databaseUrl = read('DATABASE_URL') ?? 'sqlite:./data/cinelog.sqlite';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be sqlite:<path> or postgres://user:pass@host:port/db');
  }
  const appUrl = parseUrl('APP_URL', read('APP_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const timezone = read('TIMEZONE') ?? 'UTC';
  if (!isValidTimeZone(timezone)) {
    throw new ConfigError(`TIMEZONE must be an IANA time zone such as Europe/Berlin (got "${timezone}")`);
  }
  const logLevel = (read('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const smtpUrl = read('SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\/.+/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must look like smtp://user:pass@host:587 or smtps://...');
  }
  const secretKey = read('SECRET_KEY') ?? null;
  if (secretKey !== null && secretKey.length < MIN_SECRET_KEY_LENGTH) {
    // Never the value itself: it is a secret.
    throw new ConfigError(
      `SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters (got ${secretKey.length})`,
    );
  }

  const backupDir = read('BACKUP_DIR') ?? null;
  if (backupDir !== null && !/^sqlite:(?!:memory:$)/.test(databaseUrl)) {
    throw new ConfigError(
      'BACKUP_DIR: scheduled backups are for a SQLite file; back up PostgreSQL with pg_dump (docs/deployment.md)',
    );
  }
  const metricsToken = read('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) {
    // Never the value itself: it is a secret.
    throw new ConfigError(
      `METRICS_TOKEN must be at least 16 visible ASCII characters without spaces (got ${metricsToken.length} characters)`,
    );
  }

  const authProxy = parseAuthProxy(read);

  return Object.freeze({
    port,
    host: read('HOST') ?? '0.0.0.0',
    databaseUrl,
    databasePoolSize: parsePoolSize(read('DATABASE_POOL_SIZE') ?? '10'),
    sqliteSynchronous: parseSynchronous(read('SQLITE_SYNCHRONOUS') ?? 'normal'),
    appUrl,
    timezone,
    tmdb: Object.freeze({
      apiKey: read('TMDB_API_KEY') ?? null,
      baseUrl: parseUrl('TMDB_BASE_URL', read('TMDB_BASE_URL') ?? 'https://api.themoviedb.org/3').replace(
        /\/+$/,
        '',
      ),
      imageBaseUrl: parseUrl(
        'TMDB_IMAGE_BASE_URL',
        read('TMDB_IMAGE_BASE_URL') ?? 'https://image.tmdb.org/t/p',
      ).replace(/\/+$/, ''),
    }),
    smtpUrl,
    mailFrom: read('MAIL_FROM') ?? 'cinelog@localhost',
    logLevel,
    trustProxy: parseBoolean('TRUST_PROXY', read('TRUST_PROXY') ?? 'false'),
    enableRegistration: parseBoolean('ENABLE_REGISTRATION', read('ENABLE_REGISTRATION') ?? 'false'),
    scrobbleDedupeHours: parseHours('SCROBBLE_DEDUPE_HOURS', read('SCROBBLE_DEDUPE_HOURS') ?? '6'),
    maxConnections: parseConnections('MAX_CONNECTIONS', read('MAX_CONNECTIONS') ?? '4096'),
    maxConnectionsPerClient: parseConnections(
      'MAX_CONNECTIONS_PER_CLIENT',
      read('MAX_CONNECTIONS_PER_CLIENT') ?? '64',
    ),
    secretKey,
    jobsConcurrency: parseJobsConcurrency(read('JOBS_CONCURRENCY') ?? '2'),
    metadataRefreshDays: parseDays('METADATA_REFRESH_DAYS', read('METADATA_REFRESH_DAYS') ?? '30'),
    imdbRatingsUrl: parseImdbRatingsUrl(env.IMDB_RATINGS_URL),
    imageCache: parseBoolean('IMAGE_CACHE', read('IMAGE_CACHE') ?? 'true'),
    backupDir,
    backupKeep: parseCount('BACKUP_KEEP', read('BACKUP_KEEP') ?? '7', 1, 1000),
    backupIntervalHours: parseCount('BACKUP_INTERVAL_HOURS', read('BACKUP_INTERVAL_HOURS') ?? '24', 1, 8760),
    metrics: parseBoolean('METRICS', read('METRICS') ?? 'false'),
    metricsToken,
    imageCacheDir: read('IMAGE_CACHE_DIR') ?? defaultDataDir(databaseUrl, 'images'),
    importsDir: read('IMPORTS_DIR') ?? defaultDataDir(databaseUrl, 'imports'),
    authProxy,
    oidc: parseOidc(read),
  });
}

// ---- Forward auth (AUTH_PROXY_*): kept together, apart from the other sign-in settings.

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

function parseAuthProxy(read: (name: string) => string | undefined): AuthProxyConfig | null {
  const header = read('AUTH_PROXY_HEADER');
  if (header === undefined) {
    for (const name of ['AUTH_PROXY_TRUSTED', 'AUTH_PROXY_EMAIL_HEADER', 'AUTH_PROXY_LOGOUT_URL']) {
      if (read(name) !== undefined) {
        throw new ConfigError(`${name} is set but AUTH_PROXY_HEADER is not: set both, or neither`);
      }
    }
    if (parseBoolean('AUTH_PROXY_AUTO_REGISTER', read('AUTH_PROXY_AUTO_REGISTER') ?? 'false')) {
      throw new ConfigError('AUTH_PROXY_AUTO_REGISTER is true but AUTH_PROXY_HEADER is not set');
    }
    return null;
  }
  const headerName = (name: string, value: string) => {
    if (!HEADER_NAME.test(value))
      throw new ConfigError(`${name} must be a header name such as Remote-User (got "${value}")`);
    return value.toLowerCase();
  };
  const trusted = read('AUTH_PROXY_TRUSTED');
  if (trusted === undefined) {
    // Without it anyone who reaches cinelog could name any user in the header.
    throw new ConfigError(
      "AUTH_PROXY_TRUSTED is required with AUTH_PROXY_HEADER: the proxy's addresses or networks, such as 127.0.0.1, 10.0.0.0/8, ::1",
    );
  }
  const logoutUrl = read('AUTH_PROXY_LOGOUT_URL');
  return Object.freeze({
    header: headerName('AUTH_PROXY_HEADER', header),
    emailHeader: (() => {
      const value = read('AUTH_PROXY_EMAIL_HEADER');
      return value === undefined ? null : headerName('AUTH_PROXY_EMAIL_HEADER', value);
    })(),
    trusted: parseTrustedNetworks(trusted),
    autoRegister: parseBoolean('AUTH_PROXY_AUTO_REGISTER', read('AUTH_PROXY_AUTO_REGISTER') ?? 'false'),
    logoutUrl: logoutUrl === undefined ? null : parseUrl('AUTH_PROXY_LOGOUT_URL', logoutUrl),
  });
}

/** `127.0.0.1, 10.0.0.0/8, ::1`: addresses and CIDR networks, IPv4 and IPv6, by commas or spaces. */
function parseTrustedNetworks(value: string): readonly TrustedNetwork[] {
  const entries = value.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) throw new ConfigError('AUTH_PROXY_TRUSTED lists no address');
  return Object.freeze(
    entries.map((entry) => {
      const [address = '', prefixText, ...rest] = entry.split('/');
      const version = isIP(address);
      const bits = version === 6 ? 128 : 32;
      const prefix = prefixText === undefined ? bits : Number(prefixText);
      if (version === 0 || rest.length > 0 || !/^\d{1,3}$/.test(prefixText ?? '0') || prefix > bits) {
        throw new ConfigError(
          `AUTH_PROXY_TRUSTED: "${entry}" is not an IP address or network such as 10.0.0.0/8 or fd00::/8`,
        );
      }
      if (prefix === 0) {
        // Every address: the header would be trusted from anyone.
        throw new ConfigError(`AUTH_PROXY_TRUSTED: "${entry}" trusts every address; list the proxy's`);
      }
      return Object.freeze({ address, prefix, family: version === 6 ? 'ipv6' : 'ipv4' } as const);
    }),
  );
}

// ---- OpenID Connect (OIDC_*), kept in one block -------------------------------------------------

const OIDC_DEFAULT_SCOPES = 'openid profile email';

function parseOidc(read: (name: string) => string | undefined): OidcConfig | null {
  const issuer = read('OIDC_ISSUER_URL');
  const only = parseBoolean('OIDC_ONLY', read('OIDC_ONLY') ?? 'false');
  if (issuer === undefined) {
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ADMIN_GROUP']) {
      if (read(name) !== undefined) throw new ConfigError(`${name} is set but OIDC_ISSUER_URL is not`);
    }
    if (only) throw new ConfigError('OIDC_ONLY=true needs OIDC_ISSUER_URL: nobody could sign in');
    return null;
  }
  const issuerUrl = parseUrl('OIDC_ISSUER_URL', issuer).replace(/\/+$/, '');
  const clientId = read('OIDC_CLIENT_ID');
  if (clientId === undefined) throw new ConfigError('OIDC_CLIENT_ID must be set with OIDC_ISSUER_URL');
  const scopes = (read('OIDC_SCOPES') ?? OIDC_DEFAULT_SCOPES).split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) {
    throw new ConfigError(`OIDC_SCOPES must include openid (got "${scopes.join(' ')}")`);
  }
  const host = new URL(issuerUrl).hostname;
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  const allowHttp = parseBoolean('OIDC_ALLOW_HTTP', read('OIDC_ALLOW_HTTP') ?? 'false') || loopback;
  if (issuerUrl.startsWith('http:') && !allowHttp) {
    throw new ConfigError(
      `OIDC_ISSUER_URL must be https (got "${issuerUrl}"); OIDC_ALLOW_HTTP=true allows http on a private network`,
    );
  }
  return Object.freeze({
    issuerUrl,
    clientId,
    clientSecret: read('OIDC_CLIENT_SECRET') ?? null,
    buttonLabel: (read('OIDC_BUTTON_LABEL') ?? 'Sign in with SSO').slice(0, 100),
    scopes: scopes.join(' '),
    autoRegister: parseBoolean('OIDC_AUTO_REGISTER', read('OIDC_AUTO_REGISTER') ?? 'false'),
    adminGroup: read('OIDC_ADMIN_GROUP') ?? null,
    only,
    allowHttp,
  });
}

// ---- end of OpenID Connect ------------------------------------------------------------------------

/** `name` beside the SQLite file (`./data/<name>` for the default), or `./data/<name>` with PostgreSQL. */
function defaultDataDir(databaseUrl: string, name: string): string {
  if (!databaseUrl.startsWith('sqlite:')) return join('data', name);
  const file = databaseUrl.slice('sqlite:'.length);
  return file === ':memory:' ? join('data', name) : join(dirname(file), name);
}

/** Unlike other variables, an empty IMDB_RATINGS_URL is a value of its own: the daily download is off. */
function parseImdbRatingsUrl(value: string | undefined): string | null {
  if (value === undefined) return IMDB_RATINGS_DEFAULT_URL;
  if (value.trim() === '') return null;
  return parseUrl('IMDB_RATINGS_URL', value.trim());
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 8080;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${value}")`);
  }
  return port;
}

function parseUrl(name: string, value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return value;
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (got "${value}")`);
  }
}

function parseSynchronous(value: string): 'normal' | 'full' {
  const mode = value.toLowerCase();
  if (mode !== 'normal' && mode !== 'full') {
    throw new ConfigError(`SQLITE_SYNCHRONOUS must be normal or full (got "${value}")`);
  }
  return mode;
}

function parsePoolSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > 1000) {
    throw new ConfigError(`DATABASE_POOL_SIZE must be an integer from 1 to 1000 (got "${value}")`);
  }
  return size;
}

function parseConnections(name: string, value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 16 || count > 1_000_000) {
    throw new ConfigError(`${name} must be an integer from 16 to 1000000 (got "${value}")`);
  }
  return count;
}

function parseDays(name: string, value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 3650) {
    throw new ConfigError(`${name} must be a number of days from 1 to 3650 (got "${value}")`);
  }
  return days;
}

function parseCount(name: string, value: string, min: number, max: number): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < min || count > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return count;
}

function parseJobsConcurrency(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count > 32) {
    throw new ConfigError(`JOBS_CONCURRENCY must be an integer from 0 to 32 (got "${value}")`);
  }
  return count;
}

function parseHours(name: string, value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || hours > 24 * 365) {
    throw new ConfigError(`${name} must be a number of hours from 0 to 8760 (got "${value}")`);
  }
  return hours;
}

function parseBoolean(name: string, value: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false (got "${value}")`);
}

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
