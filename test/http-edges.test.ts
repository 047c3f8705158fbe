import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhooksService } from '../src/modules/scrobble/webhooks.service.js';
import { createUser, setupTestApp, type TestContext } from './harness.js';

// The edges of HTTP itself, on a real port: what reaches the server before any route runs, bodies
// that never come, and the answers the framework and Node give of their own.

let ctx: TestContext;
afterEach(() => ctx.close());

async function listening(timeouts?: { requestMs: number; headersMs: number; keepAliveMs: number }) {
  ctx = await setupTestApp(timeouts ? { timeouts } : {});
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

interface RawAnswer {
  /** Everything the server sent before it closed the connection (or before `waitMs`). */
  text: string;
  /** Whether the server closed the connection. */
  closed: boolean;
  elapsedMs: number;
}

/**
 * Sends `head` (and then each of `chunks` every `everyMs`) on a raw connection, and collects what the
 * server answers until it closes the connection or `waitMs` pass.
 */
function raw(
  port: number,
  head: string,
  options: { chunks?: string[]; everyMs?: number; waitMs?: number } = {},
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearTimeout(deadline);
      socket.destroy();
      resolve({ text, closed, elapsedMs: Date.now() - started });
    };
    const deadline = setTimeout(() => finish(false), options.waitMs ?? 5_000);
    socket.on('data', (data) => {
      text += data.toString('latin1');
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.write(head);
    const chunks = [...(options.chunks ?? [])];
    const next = () => {
      const chunk = chunks.shift();
      if (chunk === undefined || socket.destroyed) return;
      socket.write(chunk);
      timer = setTimeout(next, options.everyMs ?? 100);
    };
    next();
  });
}

const statusOf = (answer: RawAnswer) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer.text)?.[1]);
const bodyOf = (answer: RawAnswer) => JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));

describe('a webhook URL that does not exist', () => {
  it('is answered 404 at once, without its body being read, and the connection closes', async () => {
    const port = await listening();
    const fiveMegabytes = 5 * 1024 * 1024;
    for (const path of [
      '/api/webhook/mediaserver-a/not-a-uuid',
      `/api/webhook/mediaserver-d/${randomUUID()}`,
      `/api/webhook/mediaserver-d/${randomUUID()}%00`,
      `/api/webhook/${randomUUID()}`,
      `/api/WEBHOOK/mediaserver-d/${randomUUID()}`,
    ]) {
      // 5 MB announced, 1 KB sent every 200 ms: the answer must not wait for the rest.
      const answer = await raw(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${fiveMegabytes}\r\n\r\n`,
        { chunks: Array.from({ length: 50 }, () => 'x'.repeat(1024)), everyMs: 200, waitMs: 5_000 },
      );
      expect(statusOf(answer), path).toBe(404);
      expect(answer.closed, path).toBe(true);
      expect(answer.elapsedMs, path).toBeLessThan(2_000);
      expect(answer.text.toLowerCase(), path).toContain('connection: close');
      expect(Object.keys(bodyOf(answer)).sort(), path).toEqual(['error', 'message']);
    }
  });
});

describe('timeouts', () => {
  it('answers 408 in the envelope to a body that trickles in slower than the request timeout', async () => {
    const port = await listening({ requestMs: 1_000, headersMs: 500, keepAliveMs: 5_000 });
    const alice = await createUser(ctx);
    const webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: ctx.config.appUrl });
    const path = new URL((await webhooks.create(alice.user.id, 'kodi')).url).pathname;
    const answer = await raw(
      port,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      { chunks: Array.from({ length: 100 }, () => 'x'.repeat(100)), everyMs: 100, waitMs: 6_000 },
    );
    expect(statusOf(answer)).toBe(408);
    expect(bodyOf(answer)).toEqual({
      error: 'RequestTimeout',
      message: 'the request did not arrive in time',
    });
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(4_000);
    expect(await ctx.db.selectFrom('webhook_events').selectAll().execute()).toEqual([]);
  });

  it('closes a connection whose headers trickle in slower than the headers timeout', async () => {
    const port = await listening({ requestMs: 2_000, headersMs: 500, keepAliveMs: 5_000 });
    const answer = await raw(port, 'GET /healthz HTTP/1.1\r\n', {
      chunks: Array.from({ length: 60 }, (_, i) => `X-Slow-${i}: a\r\n`),
      everyMs: 100,
      waitMs: 6_000,
    });
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(3_000);
    expect(statusOf(answer)).toBe(408);
  });

  it('keeps the production timeouts and connection cap on the server', async () => {
    ctx = await setupTestApp({ env: { MAX_CONNECTIONS: '512', MAX_CONNECTIONS_PER_CLIENT: '16' } });
    const { server } = ctx.app;
    expect(server.requestTimeout).toBe(60_000);
    expect(server.headersTimeout).toBe(20_000);
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.maxConnections).toBe(512);
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    // The 17th connection of one address is held: never read, never answered (closed after 10 s or
    // when the server closes); others still get in.
    const sockets: Socket[] = [];
    for (let i = 0; i < 16; i++) {
      const socket = connect(address.port, '127.0.0.1');
      sockets.push(socket);
      await new Promise((resolve) => socket.on('connect', resolve));
    }
    try {
      const refused = await raw(address.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { waitMs: 1_500 });
      expect(refused.closed).toBe(false);
      expect(refused.text).toBe('');
      const other = await new Promise<number>((resolve) => {
        const socket = connect({ port: address.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
        let text = '';
        socket.on('data', (data) => {
          text += data.toString();
          if (text.includes('\r\n\r\n')) {
            resolve(Number(text.slice(9, 12)));
            socket.destroy();
          }
        });
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(other).toBe(200);
      // A held connection does not keep the server from closing.
      const held = connect(address.port, '127.0.0.1');
      held.on('error', () => undefined);
      const heldClosed = new Promise((resolve) => held.on('close', resolve));
      await new Promise((resolve) => held.on('connect', resolve));
      for (const socket of sockets) socket.destroy();
      const closing = Date.now();
      await ctx.app.close();
      await heldClosed;
      expect(Date.now() - closing).toBeLessThan(3_000);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('errors before any route', () => {
  it('answers malformed HTTP, oversized headers and unknown expectations in the envelope', async () => {
    const port = await listening();
    const malformed = await raw(port, 'GET /healthz HTTP/1.1\r\nHost x\r\n\r\n');
    expect(statusOf(malformed)).toBe(400);
    expect(bodyOf(malformed)).toMatchObject({ error: 'MalformedRequest' });
    expect(malformed.text.toLowerCase()).toContain('x-content-type-options: nosniff');

    const huge = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(statusOf(huge)).toBe(431);
    expect(bodyOf(huge)).toMatchObject({ error: 'RequestHeaderFieldsTooLarge' });

    const expectation = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n');
    expect(statusOf(expectation)).toBe(417);
    expect(bodyOf(expectation)).toMatchObject({ error: 'ExpectationFailed' });
  });

  it('answers a broken percent-encoding and an overlong path segment in the envelope', async () => {
    ctx = await setupTestApp();
    const alice = await createUser(ctx);
    for (const [url, status, code] of [
      ['/api/users/%ff/history/movies', 400, 'InvalidPathParameter'],
      [`/api/users/${'a'.repeat(150)}/history/movies`, 414, 'UriTooLong'],
      [`/api/webhook/mediaserver-a/${randomUUID()}%ff`, 400, 'InvalidPathParameter'],
    ] as const) {
      const response = await ctx.app.inject({ url, headers: alice.auth });
      expect(response.statusCode, url).toBe(status);
      expect(response.json(), url).toEqual({ error: code, message: expect.any(String) });
      expect(response.json().message, url).not.toContain('webhook');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('answers an unknown route 404 whatever its body and content type', async () => {
    ctx = await setupTestApp();
    for (const [type, payload] of [
      ['application/json', ''],
      ['application/json', '{broken'],
      ['text/plain', 'hello'],
      [undefined, undefined],
    ] as const) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/api/no/such/route',
        ...(type && { headers: { 'content-type': type } }),
        ...(payload !== undefined && { payload }),
      });
      expect(response.statusCode, `${type} ${payload}`).toBe(404);
      expect(response.json()).toMatchObject({ error: 'RouteNotFound' });
    }
  });

  it('answers errors of the documentation’s files with a code of their status', async () => {
    ctx = await setupTestApp();
    const response = await ctx.app.inject({ url: '/docs/api/static/%2e%2e/%2e%2e/package.json' });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expect(body.error).not.toBe('InvalidRequestBody');
  });
});

describe('credentials sent more than once', () => {
  it('answer the bare 401 whatever the tokens, as both forms at once do', async () => {
    const port = await listening();
    const bob = await createUser(ctx, { name: 'bob' });
    const alice = await createUser(ctx, { name: 'alice' });
    const get = (headers: string) =>
      raw(port, `GET /api/authentication/token HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`);
    const alone = await get(`Authorization: Bearer ${bob.token}\r\n`);
    expect(statusOf(alone)).toBe(200);
    for (const headers of [
      `Authorization: Bearer ${bob.token}\r\nAuthorization: Bearer ${alice.token}\r\n`,
      `Authorization: Bearer ${bob.token}\r\nauthorization: Bearer ${bob.token}\r\n`,
      `Authorization: Bearer ${bob.token}\r\nAuthorization: Basic dXNlcjpwYXNz\r\n`,
      `X-Service-Token: ${bob.token}\r\nX-Service-Token: ${alice.token}\r\n`,
      `X-Service-Token: ${bob.token}\r\nx-service-token: ${bob.token}\r\n`,
      `Authorization: Bearer ${bob.token}, Bearer ${alice.token}\r\n`,
    ]) {
      const answer = await get(headers);
      expect(statusOf(answer), headers).toBe(401);
      expect(answer.text.toLowerCase(), headers).toContain('www-authenticate: bearer');
      expect(answer.text.endsWith('\r\n\r\n'), headers).toBe(true);
    }
  });
});

describe('headers', () => {
  it('marks every answer nosniff, and protects the 404 page and the API documentation like the pages', async () => {
    ctx = await setupTestApp();
    const alice = await createUser(ctx);
    const json = await ctx.app.inject({ url: '/api/authentication/token', headers: alice.auth });
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    const notFound = await ctx.app.inject({ url: '/api/nothing' });
    expect(notFound.headers['x-content-type-options']).toBe('nosniff');

    const page = await ctx.app.inject({ url: '/no/such/page', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(404);
    for (const response of [page, await ctx.app.inject({ url: '/docs/api/' })]) {
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });
});
