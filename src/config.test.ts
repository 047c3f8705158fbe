import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('has working defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'sqlite:./data/cinelog.sqlite',
      appUrl: 'http://localhost:8080',
      timezone: 'UTC',
      tmdb: {
        apiKey: null,
        baseUrl: 'https://api.themoviedb.org/3',
        imageBaseUrl: 'https://image.tmdb.org/t/p',
      },
      smtpUrl: null,
      mailFrom: 'cinelog@localhost',
      logLevel: 'info',
      trustProxy: false,
      enableRegistration: false,
      databasePoolSize: 10,
      sqliteSynchronous: 'normal',
      scrobbleDedupeHours: 6,
      maxConnections: 4096,
      maxConnectionsPerClient: 64,
      secretKey: null,
      jobsConcurrency: 2,
      metadataRefreshDays: 30,
      imdbRatingsUrl: 'https://datasets.imdbws.com/title.ratings.tsv.gz',
      backupDir: null,
      backupKeep: 7,
      backupIntervalHours: 24,
      metrics: false,
      metricsToken: null,
      authProxy: null,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('derives APP_URL from PORT and trims trailing slashes', () => {
    expect(loadConfig({ PORT: '9000' }).appUrl).toBe('http://localhost:9000');
    expect(loadConfig({ APP_URL: 'https://movies.example.org/' }).appUrl).toBe('https://movies.example.org');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ APP_URL: 'not a url' }, 'APP_URL'],
    [{ TIMEZONE: 'Mars/Olympus' }, 'TIMEZONE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TMDB_BASE_URL: 'ftp://x' }, 'TMDB_BASE_URL'],
    [{ SMTP_URL: 'mail.example.org' }, 'SMTP_URL'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ ENABLE_REGISTRATION: 'sometimes' }, 'ENABLE_REGISTRATION'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ SQLITE_SYNCHRONOUS: 'off' }, 'SQLITE_SYNCHRONOUS'],
    [{ SCROBBLE_DEDUPE_HOURS: '-1' }, 'SCROBBLE_DEDUPE_HOURS'],
    [{ TMDB_API_KEY_FILE: '/nonexistent/key' }, 'TMDB_API_KEY_FILE'],
    [{ MAX_CONNECTIONS: '8' }, 'MAX_CONNECTIONS'],
    [{ MAX_CONNECTIONS: 'lots' }, 'MAX_CONNECTIONS'],
    [{ MAX_CONNECTIONS_PER_CLIENT: '0' }, 'MAX_CONNECTIONS_PER_CLIENT'],
    [{ JOBS_CONCURRENCY: '-1' }, 'JOBS_CONCURRENCY'],
    [{ JOBS_CONCURRENCY: '33' }, 'JOBS_CONCURRENCY'],
    [{ METADATA_REFRESH_DAYS: '0' }, 'METADATA_REFRESH_DAYS'],
    [{ SECRET_KEY: 'too short to be a key' }, 'SECRET_KEY'],
    [{ SECRET_KEY_FILE: '/nonexistent/secret' }, 'SECRET_KEY_FILE'],
    [{ IMDB_RATINGS_URL: 'datasets.imdbws.com/title.ratings.tsv.gz' }, 'IMDB_RATINGS_URL'],
    [{ IMDB_RATINGS_URL: 'file:///srv/title.ratings.tsv.gz' }, 'IMDB_RATINGS_URL'],
    [{ IMAGE_CACHE: 'maybe' }, 'IMAGE_CACHE'],
  ])('stops with one line naming the bad variable: %o', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message.startsWith(name)).toBe(true);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('takes IMDB_RATINGS_URL as an http(s) URL, and empty as no daily download', () => {
    expect(
      loadConfig({ IMDB_RATINGS_URL: 'http://mirror.example.org/imdb/title.ratings.tsv.gz' }).imdbRatingsUrl,
    ).toBe('http://mirror.example.org/imdb/title.ratings.tsv.gz');
    expect(loadConfig({ IMDB_RATINGS_URL: '' }).imdbRatingsUrl).toBeNull();
    expect(loadConfig({ IMDB_RATINGS_URL: '  ' }).imdbRatingsUrl).toBeNull();
  });

  it('keeps images by default, beside the SQLite file unless IMAGE_CACHE_DIR says otherwise', () => {
    expect(loadConfig({})).toMatchObject({ imageCache: true, imageCacheDir: join('data', 'images') });
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/cinelog/db.sqlite' }).imageCacheDir).toBe(
      join('/srv/cinelog', 'images'),
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).imageCacheDir).toBe(join('data', 'images'));
    expect(loadConfig({ IMAGE_CACHE: 'false', IMAGE_CACHE_DIR: '/var/cache/cinelog' })).toMatchObject({
      imageCache: false,
      imageCacheDir: '/var/cache/cinelog',
    });
  });

  it('reads secrets from <NAME>_FILE and refuses both forms at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-config-'));
    const file = join(dir, 'key');
    writeFileSync(file, 'file-secret\n');
    expect(loadConfig({ TMDB_API_KEY_FILE: file }).tmdb.apiKey).toBe('file-secret');
    writeFileSync(join(dir, 'db'), 'sqlite:/tmp/x.sqlite');
    expect(loadConfig({ DATABASE_URL_FILE: join(dir, 'db') }).databaseUrl).toBe('sqlite:/tmp/x.sqlite');
    expect(() => loadConfig({ TMDB_API_KEY: 'a', TMDB_API_KEY_FILE: file })).toThrow(
      /TMDB_API_KEY and TMDB_API_KEY_FILE/,
    );
  });

  it('takes SECRET_KEY of 32 characters or more, also from SECRET_KEY_FILE, and never prints it', () => {
    const key = 'k'.repeat(32);
    expect(loadConfig({ SECRET_KEY: key }).secretKey).toBe(key);
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-config-'));
    writeFileSync(join(dir, 'secret'), `${key}x\n`);
    expect(loadConfig({ SECRET_KEY_FILE: join(dir, 'secret') }).secretKey).toBe(`${key}x`);
    expect(() => loadConfig({ SECRET_KEY: key, SECRET_KEY_FILE: join(dir, 'secret') })).toThrow(
      /SECRET_KEY and SECRET_KEY_FILE are both set/,
    );
    expect(() => loadConfig({ SECRET_KEY: 'a secret of 31 characters......' })).toThrow(
      'SECRET_KEY must be at least 32 characters (got 31)',
    );
  });

  it('takes scheduled backups for a SQLite file only, with how many to keep and how often', () => {
    expect(
      loadConfig({ BACKUP_DIR: '/backups', BACKUP_KEEP: '3', BACKUP_INTERVAL_HOURS: '6' }),
    ).toMatchObject({
      backupDir: '/backups',
      backupKeep: 3,
      backupIntervalHours: 6,
    });
    expect(() => loadConfig({ BACKUP_DIR: '/backups', DATABASE_URL: 'postgres://u:p@db/cinelog' })).toThrow(
      'BACKUP_DIR: scheduled backups are for a SQLite file; back up PostgreSQL with pg_dump (docs/deployment.md)',
    );
    expect(() => loadConfig({ BACKUP_DIR: '/backups', DATABASE_URL: 'sqlite::memory:' })).toThrow(
      /BACKUP_DIR/,
    );
    for (const keep of ['0', '-1', 'all', '1001']) {
      expect(() => loadConfig({ BACKUP_KEEP: keep })).toThrow(
        `BACKUP_KEEP must be an integer from 1 to 1000 (got "${keep}")`,
      );
    }
    expect(() => loadConfig({ BACKUP_INTERVAL_HOURS: '0' })).toThrow(/BACKUP_INTERVAL_HOURS/);
  });

  it('turns metrics on with METRICS, and takes METRICS_TOKEN, also from METRICS_TOKEN_FILE, never printing it', () => {
    expect(loadConfig({ METRICS: 'true' })).toMatchObject({ metrics: true, metricsToken: null });
    expect(() => loadConfig({ METRICS: 'maybe' })).toThrow('METRICS must be true or false (got "maybe")');
    const token = 'scrape-token-0123456789';
    expect(loadConfig({ METRICS: 'true', METRICS_TOKEN: token }).metricsToken).toBe(token);
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-config-'));
    writeFileSync(join(dir, 'token'), `${token}\n`);
    expect(loadConfig({ METRICS_TOKEN_FILE: join(dir, 'token') }).metricsToken).toBe(token);
    expect(() => loadConfig({ METRICS_TOKEN: 'short secret' })).toThrow(
      'METRICS_TOKEN must be at least 16 visible ASCII characters without spaces (got 12 characters)',
    );
  });

  it('reads forward auth (AUTH_PROXY_*): the header, its trusted proxies as networks, IPv4 and IPv6', () => {
    expect(
      loadConfig({
        AUTH_PROXY_HEADER: 'Remote-User',
        AUTH_PROXY_EMAIL_HEADER: 'X-authentik-email',
        AUTH_PROXY_TRUSTED: '127.0.0.1, 10.0.0.0/8 ::1,fd00::/8',
        AUTH_PROXY_AUTO_REGISTER: 'yes',
        AUTH_PROXY_LOGOUT_URL: 'https://auth.example.org/logout',
      }).authProxy,
    ).toEqual({
      header: 'remote-user',
      emailHeader: 'x-authentik-email',
      trusted: [
        { address: '127.0.0.1', prefix: 32, family: 'ipv4' },
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '::1', prefix: 128, family: 'ipv6' },
        { address: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
      autoRegister: true,
      logoutUrl: 'https://auth.example.org/logout',
    });
    expect(
      loadConfig({ AUTH_PROXY_HEADER: 'Remote-User', AUTH_PROXY_TRUSTED: '::1' }).authProxy,
    ).toMatchObject({
      emailHeader: null,
      autoRegister: false,
      logoutUrl: null,
    });
  });

  it('stops the start with one clear line for forward auth set up wrong', () => {
    const header = { AUTH_PROXY_HEADER: 'Remote-User' };
    expect(() => loadConfig(header)).toThrow(
      "AUTH_PROXY_TRUSTED is required with AUTH_PROXY_HEADER: the proxy's addresses or networks, such as 127.0.0.1, 10.0.0.0/8, ::1",
    );
    expect(() => loadConfig(header)).toThrow(ConfigError);
    for (const bad of [
      '10.0.0.0/33',
      'fd00::/129',
      'proxy.example.org',
      '10.0.0.0/8/8',
      '10.0.0/8',
      '10.0.0.0/x',
    ]) {
      expect(() => loadConfig({ ...header, AUTH_PROXY_TRUSTED: `127.0.0.1, ${bad}` })).toThrow(
        `AUTH_PROXY_TRUSTED: "${bad}" is not an IP address or network such as 10.0.0.0/8 or fd00::/8`,
      );
    }
    for (const everyone of ['0.0.0.0/0', '::/0']) {
      expect(() => loadConfig({ ...header, AUTH_PROXY_TRUSTED: everyone })).toThrow(
        `AUTH_PROXY_TRUSTED: "${everyone}" trusts every address; list the proxy's`,
      );
    }
    expect(() => loadConfig({ ...header, AUTH_PROXY_TRUSTED: ' , ' })).toThrow(/AUTH_PROXY_TRUSTED/);
    expect(() => loadConfig({ AUTH_PROXY_HEADER: 'Remote User', AUTH_PROXY_TRUSTED: '::1' })).toThrow(
      'AUTH_PROXY_HEADER must be a header name such as Remote-User (got "Remote User")',
    );
    expect(() => loadConfig({ AUTH_PROXY_TRUSTED: '127.0.0.1' })).toThrow(
      'AUTH_PROXY_TRUSTED is set but AUTH_PROXY_HEADER is not: set both, or neither',
    );
    expect(() => loadConfig({ AUTH_PROXY_AUTO_REGISTER: 'true' })).toThrow(/AUTH_PROXY_HEADER is not set/);
    expect(() =>
      loadConfig({ ...header, AUTH_PROXY_TRUSTED: '::1', AUTH_PROXY_AUTO_REGISTER: 'sure' }),
    ).toThrow('AUTH_PROXY_AUTO_REGISTER must be true or false (got "sure")');
    expect(() =>
      loadConfig({ ...header, AUTH_PROXY_TRUSTED: '::1', AUTH_PROXY_LOGOUT_URL: 'logout' }),
    ).toThrow(/AUTH_PROXY_LOGOUT_URL must be an http\(s\) URL/);
  });

  it('reads the OpenID Connect block: defaults, the secret from OIDC_CLIENT_SECRET_FILE, http only on loopback', () => {
    expect(loadConfig({}).oidc).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'cinelog-oidc-'));
    writeFileSync(join(dir, 'secret'), 'file-client-secret\n');
    const issuer = { OIDC_ISSUER_URL: 'https://sso.example.test/', OIDC_CLIENT_ID: 'cinelog' };
    expect(loadConfig({ ...issuer, OIDC_CLIENT_SECRET_FILE: join(dir, 'secret') }).oidc).toEqual({
      issuerUrl: 'https://sso.example.test',
      clientId: 'cinelog',
      clientSecret: 'file-client-secret',
      buttonLabel: 'Sign in with SSO',
      scopes: 'openid profile email',
      autoRegister: false,
      adminGroup: null,
      only: false,
      allowHttp: false,
    });
    expect(
      loadConfig({
        ...issuer,
        OIDC_SCOPES: 'openid,profile email groups',
        OIDC_AUTO_REGISTER: 'true',
        OIDC_ADMIN_GROUP: 'cinelog-admins',
        OIDC_ONLY: 'true',
        OIDC_BUTTON_LABEL: 'Sign in with Authelia',
      }).oidc,
    ).toMatchObject({
      scopes: 'openid profile email groups',
      autoRegister: true,
      adminGroup: 'cinelog-admins',
      only: true,
      buttonLabel: 'Sign in with Authelia',
    });
    expect(
      loadConfig({ OIDC_ISSUER_URL: 'http://127.0.0.1:9091', OIDC_CLIENT_ID: 'c' }).oidc?.allowHttp,
    ).toBe(true);
    expect(
      loadConfig({ OIDC_ISSUER_URL: 'http://sso.lan', OIDC_CLIENT_ID: 'c', OIDC_ALLOW_HTTP: 'true' }).oidc
        ?.allowHttp,
    ).toBe(true);
  });

  it.each([
    [{ OIDC_ISSUER_URL: 'https://sso.example.test' }, 'OIDC_CLIENT_ID must be set'],
    [{ OIDC_CLIENT_ID: 'c' }, 'OIDC_CLIENT_ID is set but OIDC_ISSUER_URL is not'],
    [{ OIDC_ONLY: 'true' }, 'OIDC_ONLY=true needs OIDC_ISSUER_URL'],
    [
      { OIDC_ISSUER_URL: 'ftp://sso.example.test', OIDC_CLIENT_ID: 'c' },
      'OIDC_ISSUER_URL must be an http(s) URL',
    ],
    [{ OIDC_ISSUER_URL: 'http://sso.lan', OIDC_CLIENT_ID: 'c' }, 'OIDC_ISSUER_URL must be https'],
    [
      { OIDC_ISSUER_URL: 'https://sso.lan', OIDC_CLIENT_ID: 'c', OIDC_SCOPES: 'profile' },
      'OIDC_SCOPES must include openid',
    ],
    [
      { OIDC_ISSUER_URL: 'https://sso.lan', OIDC_CLIENT_ID: 'c', OIDC_AUTO_REGISTER: 'maybe' },
      'OIDC_AUTO_REGISTER must be true or false',
    ],
    [
      {
        OIDC_ISSUER_URL: 'https://sso.lan',
        OIDC_CLIENT_ID: 'c',
        OIDC_CLIENT_SECRET: 'a',
        OIDC_CLIENT_SECRET_FILE: '/x',
      },
      'OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE are both set',
    ],
  ])('refuses a bad OpenID Connect setting: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
