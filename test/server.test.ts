import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { createWebhooksService } from '../src/modules/scrobble/webhooks.service.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase } from './harness.js';

const MAIN = join(import.meta.dirname, '..', 'dist', 'main.js');

/** The built server as `npm start` runs it, on a free port. */
function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve({ child, port: Number(match[1]), output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

const cleanups: (() => Promise<void>)[] = [];

/** A fresh test database with one user and an API token of theirs; destroyed after the test. */
async function databaseWithUser(name: string) {
  const database = await createTestDatabase();
  cleanups.push(() => database.destroy());
  const user = await createUsersService({
    credentials: endSignInsOnChange,
    db: database.db,
    clock: systemClock,
    defaultTimezone: 'UTC',
  }).create({
    name,
    email: `${name}@example.test`,
    password: 'long enough password',
  });
  const { value: token } = await createApiTokensService({ db: database.db, clock: systemClock }).create(
    user.id,
    'cli',
    'never',
  );
  return { database, user, token };
}

describe('the server process', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    if (!existsSync(MAIN))
      throw new Error('dist/main.js is missing: run `npm run build` first (npm test does)');
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    for (const done of cleanups.splice(0)) await done();
  });

  it('migrates a fresh database, serves, and finishes an in-flight request on SIGTERM before exiting 0', async () => {
    const { database, token } = await databaseWithUser('alice');
    const databaseUrl = database.url;

    const server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });
    child = server.child;
    const health = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });

    // A request whose body is still arriving when SIGTERM comes must still be answered.
    const body = JSON.stringify([]);
    const response = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/api/users/alice/history/movies',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 1));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(1)), 200);
      }, 100);
    });
    expect(await response).toBe(204);
    expect(await exitOf(server.child)).toBe(0);
    expect(server.output()).toContain('shutting down');
    expect(server.output()).not.toContain(token);
  });

  it('is one bundled file that serves every kind of route: API, docs, pages, assets, webhooks', async () => {
    // dist/main.js is esbuild's bundle (scripts/bundle.js): the rest of the suite runs the sources.
    const bundle = readFileSync(MAIN, 'utf8');
    expect(bundle.startsWith("import { createRequire as __createRequire } from 'node:module';")).toBe(true);
    expect(bundle).not.toMatch(/from ["']\.\.?\//);
    const { database, user, token } = await databaseWithUser('bob');
    const webhook = await createWebhooksService({
      db: database.db,
      clock: systemClock,
      appUrl: 'http://cinelog.test',
    }).create(user.id, 'plex');
    const server = await startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    child = server.child;
    const base = `http://127.0.0.1:${server.port}`;
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(base + path, { headers, redirect: 'manual' });

    const history = await get('/api/users/bob/history/movies', { authorization: `Bearer ${token}` });
    expect(history.status).toBe(200);
    expect(await history.json()).toMatchObject({ currentPage: 1, maxPage: 0 });
    expect((await get('/api/users/bob/history/movies')).status).toBe(401);
    const openapi = await get('/api/openapi.json');
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const docs = await get('/docs/api/');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const login = await get('/login');
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('<form');
    const css = await get('/assets/app.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await css.text()).length).toBeGreaterThan(100);

    // A Plex report as Plex sends it: multipart, with the JSON in its payload part.
    const form = new FormData();
    form.set(
      'payload',
      JSON.stringify({ event: 'media.play', Metadata: { type: 'movie', title: 'Bundle' } }),
    );
    const report = await fetch(base + new URL(webhook.url).pathname, { method: 'POST', body: form });
    expect(report.status).toBe(200);
    expect(await report.json()).toMatchObject({ outcome: 'ignored' });
    const missing = await fetch(`${base}/api/webhook/mediaserver-a/no-such-uuid`, {
      method: 'POST',
      body: form,
    });
    expect(missing.status).toBe(404);
  });

  it('stops at start with one line naming a bad variable', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cinelog-server-'));
    const bad = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: 'eighty' } });
    let stderr = '';
    bad.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    expect(await exitOf(bad)).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('PORT');
  });

  it.each([
    [
      { AUTH_PROXY_HEADER: 'Remote-User' },
      "AUTH_PROXY_TRUSTED is required with AUTH_PROXY_HEADER: the proxy's addresses or networks, such as 127.0.0.1, 10.0.0.0/8, ::1",
    ],
    [
      { AUTH_PROXY_HEADER: 'Remote-User', AUTH_PROXY_TRUSTED: '127.0.0.1, 10.0.0.0/33' },
      'AUTH_PROXY_TRUSTED: "10.0.0.0/33" is not an IP address or network such as 10.0.0.0/8 or fd00::/8',
    ],
  ])('stops at start with one line for forward auth set up wrong (%o)', async (env, message) => {
    const bad = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    bad.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    expect(await exitOf(bad)).toBe(1);
    expect(stderr).toBe(`cinelog: configuration error: ${message}\n`);
  });

  it('stops at start with one line when OIDC_ISSUER_URL names no OpenID provider', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cinelog-server-'));
    const bad = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(dir, 'cinelog.sqlite')}`,
        IMDB_RATINGS_URL: '',
        // Nothing listens on port 1.
        OIDC_ISSUER_URL: 'http://127.0.0.1:1',
        OIDC_CLIENT_ID: 'cinelog',
      },
    });
    let stderr = '';
    bad.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    expect(await exitOf(bad)).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /^cinelog: configuration error: OIDC_ISSUER_URL: no OpenID provider at http:\/\/127\.0\.0\.1:1 /,
    );
  });
});
