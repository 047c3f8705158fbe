import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createApiTokensService } from '../src/modules/auth/api-tokens.service.js';
import { endSignInsOnChange } from '../src/modules/auth/credentials.js';
import { createWebhooksService } from '../src/modules/scrobble/webhooks.service.js';
import { createUsersService } from '../src/modules/users/users.service.js';
import { lazyChildLogger } from '../src/shared/request-log.js';
import { createTestDatabase, TestClock } from './harness.js';

// The production logger options: one line per request, and never a secret in any line.
describe('the request log', () => {
  const lines: string[] = [];
  const clock = new TestClock();
  let close: () => Promise<void>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let token: string;
  let webhookPath: string;

  beforeAll(async () => {
    const database = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: database.url,
      APP_URL: 'http://cinelog.test',
      LOG_LEVEL: 'info',
    });
    app = await buildApp({
      config,
      db: database.db,
      tmdb: null,
      clock,
      logger: loggerOptions(config, { write: (line: string) => lines.push(line) }),
    });
    const users = createUsersService({
      credentials: endSignInsOnChange,
      db: database.db,
      clock,
      defaultTimezone: 'UTC',
    });
    const user = await users.create({
      name: 'logger',
      email: 'logger@example.test',
      password: 'a long pass phrase',
    });
    token = (await createApiTokensService({ db: database.db, clock }).create(user.id, 'log', 'never')).value;
    const webhook = await createWebhooksService({ db: database.db, clock, appUrl: config.appUrl }).create(
      user.id,
      'kodi',
    );
    webhookPath = new URL(webhook.url).pathname;
    close = async () => {
      await app.close();
      await database.destroy();
    };
  });
  afterAll(() => close());

  const requestLines = () =>
    lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');

  it('writes one line per request: id, method, path, address, status and time', async () => {
    lines.length = 0;
    const res = await app.inject({
      method: 'GET',
      url: '/api/authentication/token?x=1',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-42' },
    });
    expect(res.statusCode).toBe(200);
    const [line, ...more] = requestLines();
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      reqId: 'trace-42',
      // A query parameter the route does not declare is logged without its value.
      req: { method: 'GET', url: '/api/authentication/token?x=***', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      msg: 'request completed',
    });
    expect(typeof line.responseTime).toBe('number');
    // pino's own line layout, which log collectors parse.
    expect(Object.keys(line)).toEqual([
      'level',
      'time',
      'pid',
      'hostname',
      'reqId',
      'req',
      'res',
      'responseTime',
      'msg',
    ]);
    expect(line.pid).toBe(process.pid);
    expect(Math.abs(line.time - Date.now())).toBeLessThan(60_000);
  });

  it('keeps the values of the query parameters the route declares, and of no others', async () => {
    lines.length = 0;
    await app.inject({
      method: 'GET',
      url: '/api/users/logger/history/movies?page=2&sortOrder=asc&token=abc&limit',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(requestLines()[0].req.url).toBe(
      '/api/users/logger/history/movies?page=2&sortOrder=asc&token=***&limit',
    );
  });

  it('writes no request line when LOG_LEVEL is above info', async () => {
    lines.length = 0;
    app.log.level = 'warn';
    try {
      await app.inject({
        method: 'GET',
        url: '/api/authentication/token',
        headers: { authorization: `Bearer ${token}` },
      });
    } finally {
      app.log.level = 'info';
    }
    expect(requestLines()).toEqual([]);
    await app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(requestLines()).toHaveLength(1);
  });

  it('never holds a token, a cookie, a password or a webhook URL’s secret', async () => {
    lines.length = 0;
    await app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      headers: { 'x-service-token': token },
    });
    await app.inject({
      method: 'GET',
      url: '/api/authentication/token',
      headers: { authorization: `Bearer ${token}x`, cookie: 'cinelog_session=cookie-secret-value' },
    });
    await app.inject({
      method: 'POST',
      url: '/login',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: 'cinelog_session=cookie-secret-value',
      },
      payload: 'login=logger&password=a+long+pass+phrase',
    });
    const report = await app.inject({
      method: 'POST',
      url: `${webhookPath}?k=v`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'x' }),
    });
    expect(report.statusCode).toBe(200);
    const uuid = webhookPath.split('/').pop() ?? '';
    const log = lines.join('');
    expect(requestLines()).toHaveLength(4);
    expect(log).toContain(`"url":"${webhookPath.replace(uuid, '***')}?k=***"`);
    for (const secret of [token, uuid, 'cookie-secret-value', 'a long pass phrase', 'a+long+pass+phrase'])
      expect(log).not.toContain(secret);
  });
});

describe('the log at trace level', () => {
  it('holds no webhook secret or reset token, however the URL is spelled', async () => {
    const lines: string[] = [];
    const clock = new TestClock();
    const database = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: database.url,
      APP_URL: 'http://cinelog.test',
      LOG_LEVEL: 'trace',
    });
    const app = await buildApp({
      config,
      db: database.db,
      tmdb: null,
      clock,
      logger: loggerOptions(config, { write: (line: string) => lines.push(line) }),
    });
    try {
      const users = createUsersService({
        credentials: endSignInsOnChange,
        db: database.db,
        clock,
        defaultTimezone: 'UTC',
      });
      const user = await users.create({
        name: 'tracer',
        email: 'tracer@example.test',
        password: 'a long pass phrase',
      });
      const webhook = await createWebhooksService({ db: database.db, clock, appUrl: config.appUrl }).create(
        user.id,
        'kodi',
      );
      const uuid = new URL(webhook.url).pathname.split('/').pop()!;
      const resetToken = 'Zm9yZ2V0LW1lLW5vdC10b2tlbi1zZWNyZXQtdmFsdWUx';
      const spellings = [
        `/api/webhook/mediaserver-d/${uuid}`,
        `/api/webhook/mediaserver-d/${uuid}?x=1`,
        `/api/webhook/mediaserver-d/${uuid}/`,
        `/api/WEBHOOK/mediaserver-d/${uuid}`,
        `/api/webhook/mediaserver-d//${uuid}`,
        `/api/webhook/${uuid}`,
        `/api/webhook/mediaserver-d/${uuid.toUpperCase()}`,
        `/api/webhook/mediaserver-d/%${uuid.charCodeAt(0).toString(16)}${uuid.slice(1)}`,
        `/api/webhook/mediaserver-d/${uuid}%00`,
        `/api/webhook/mediaserver-d/${uuid}%ff`,
        `/api/webhook/mediaserver-a/${uuid}`,
        `/reset-password/${resetToken}`,
        `/Reset-Password/${resetToken}`,
        `/reset-password//${resetToken}`,
        `/reset-password/${resetToken}?a=b`,
        `/login?token=${resetToken}`,
        `/api/users/tracer/history/movies?token=${uuid}`,
        `/no/such/page?TOKEN=${uuid}&%74oken=${resetToken}`,
      ];
      for (const url of spellings) {
        for (const method of ['GET', 'POST'] as const) {
          await app.inject({
            method,
            url,
            headers: { 'content-type': 'application/json', accept: 'text/html' },
            ...(method === 'POST' && { payload: '{"title":"x"}' }),
          });
        }
      }
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(spellings.length);
      for (const secret of [uuid, uuid.toUpperCase(), uuid.slice(1), resetToken])
        expect(log).not.toContain(secret);
    } finally {
      await app.close();
      await database.destroy();
    }
  });
});

describe('a request’s own logger', () => {
  it('is made on first use, bound to the request id, at the parent’s level', () => {
    const written: string[] = [];
    const root = pino({ level: 'info' }, { write: (line: string) => written.push(line) });
    let made = 0;
    const child = root.child.bind(root);
    root.child = ((...args: Parameters<typeof child>) => {
      made += 1;
      return child(...args);
    }) as typeof root.child;
    const log = lazyChildLogger(root, { reqId: 'r-1' }, {});
    expect(made).toBe(0);
    log.debug('not written');
    log.warn({ detail: 7 }, 'written');
    log.error('also written');
    expect(made).toBe(1);
    expect(log.level).toBe('info');
    expect(written.map((line) => JSON.parse(line))).toMatchObject([
      { level: 40, reqId: 'r-1', detail: 7, msg: 'written' },
      { level: 50, reqId: 'r-1', msg: 'also written' },
    ]);
  });
});
