import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
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

describe('the server process', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    if (!existsSync(MAIN))
      throw new Error('dist/main.js is missing: run `npm run build` first (npm test does)');
  });
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
    await cleanup?.();
    cleanup = undefined;
  });

  it('migrates a fresh database, serves, and finishes an in-flight request on SIGTERM before exiting 0', async () => {
    const database = await createTestDatabase();
    cleanup = () => database.destroy();
    const user = await createUsersService({
      db: database.db,
      clock: systemClock,
      defaultTimezone: 'UTC',
    }).create({
      name: 'alice',
      email: 'alice@example.test',
      password: 'long enough password',
    });
    const { value: token } = await createApiTokensService({ db: database.db, clock: systemClock }).create(
      user.id,
      'cli',
      'never',
    );
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
});
