import { afterEach, describe, expect, it } from 'vitest';
import { createMovie, createUser, setupTestApp, type TestContext } from '../../../test/harness.js';
import { createWebhooksService } from '../scrobble/webhooks.service.js';

const TOKEN = 'scrape-0123456789abcdef';

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const start = async (env: Record<string, string> = {}) => {
  ctx = await setupTestApp({ env });
  return ctx;
};

/** The value of one sample line of the Prometheus text, or undefined when there is no such line. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2]!.split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

/** The hooks of every route, in order, from printRoutes; the /metrics route's own left out. */
function hookLines(printed: string): string[] {
  const lines: string[] = [];
  let inMetricsRoute = false;
  for (const line of printed.split('\n')) {
    const text = line.replace(/^[\s│├└─]+/, '');
    if (!text.startsWith('• ')) {
      inMetricsRoute = /^metrics \(\w+\)$/.test(text);
      continue;
    }
    if (!inMetricsRoute) lines.push(text.slice(2));
  }
  return lines;
}

const scrape = async (headers: Record<string, string> = {}) => {
  const response = await ctx!.app.inject({ url: '/metrics', headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
};

describe('GET /metrics', () => {
  it('does not exist with METRICS off, and then the app has not one hook more than without it', async () => {
    const off = await start();
    expect((await off.app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const without = hookLines(off.app.printRoutes({ includeHooks: true, commonPrefix: false }));
    await off.close();

    const on = await start({ METRICS: 'true' });
    const withMetrics = hookLines(on.app.printRoutes({ includeHooks: true, commonPrefix: false }));
    expect(without.length).toBeGreaterThan(100);
    expect(without.join('\n')).not.toContain('countRequestForMetrics');
    // With METRICS=true every route has the one onResponse hook more, and nothing else differs.
    expect(
      withMetrics.filter((line) => line.startsWith('(onResponse) ["countRequestForMetrics()",')),
    ).toHaveLength(without.filter((line) => line.startsWith('(onResponse)')).length);
    // (The route tree lists routes in another order once /metrics is in it: compared as sets of lines.)
    expect(withMetrics.map((line) => line.replace('"countRequestForMetrics()",', '')).sort()).toEqual(
      [...without].sort(),
    );
  });

  it('serves Prometheus text: requests, latencies, jobs, database pool, event-loop lag', async () => {
    await start({ METRICS: 'true' });
    await ctx!.app.inject({ url: '/healthz' });
    const response = await ctx!.app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    const text = response.body;
    expect(
      sample(text, 'cinelog_http_requests_total', { route: '/healthz', method: 'GET', status_code: '200' }),
    ).toBe(1);
    expect(
      sample(text, 'cinelog_http_request_duration_seconds_count', {
        route: '/healthz',
        method: 'GET',
        status_code: '200',
      }),
    ).toBe(1);
    expect(text).toMatch(/^cinelog_http_request_duration_seconds_bucket\{le="0\.001",route="\/healthz"/m);
    for (const state of ['queued', 'running', 'done', 'failed']) {
      expect(sample(text, 'cinelog_jobs', { state }), state).toBeGreaterThanOrEqual(0);
    }
    const engine = ctx!.config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
    // SQLite: the one writer; PostgreSQL: the pool's size (the test databases' is 5).
    expect(sample(text, 'cinelog_db_pool_max_connections', { engine })).toBe(engine === 'sqlite' ? 1 : 5);
    expect(sample(text, 'cinelog_db_pool_open_connections', { engine })).toBeGreaterThanOrEqual(
      engine === 'sqlite' ? 1 : 0,
    );
    expect(sample(text, 'cinelog_db_pool_idle_connections', { engine })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'cinelog_db_pool_waiting', { engine })).toBe(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('labels requests by their route pattern, never by the raw URL', async () => {
    await start({ METRICS: 'true' });
    const alice = await createUser(ctx!, { name: 'alice' });
    for (const url of ['/api/users/alice/history/movies', '/api/users/alice/history/movies?page=2']) {
      expect((await ctx!.app.inject({ url, headers: alice.auth })).statusCode).toBe(200);
    }
    expect(
      (await ctx!.app.inject({ url: '/api/users/nobody-secret/history/movies', headers: alice.auth }))
        .statusCode,
    ).toBe(404);
    expect((await ctx!.app.inject({ url: '/no/such/page-with-a-secret-42' })).statusCode).toBe(404);
    const text = await scrape();
    const history = { route: '/api/users/:username/history/movies', method: 'GET' };
    expect(sample(text, 'cinelog_http_requests_total', { ...history, status_code: '200' })).toBe(2);
    expect(sample(text, 'cinelog_http_requests_total', { ...history, status_code: '404' })).toBe(1);
    expect(
      sample(text, 'cinelog_http_requests_total', { route: 'unmatched', method: 'GET', status_code: '404' }),
    ).toBe(1);
    for (const raw of ['alice', 'nobody-secret', 'page-with-a-secret', 'page=2'])
      expect(text).not.toContain(raw);
  });

  it('counts scrobbles by server and outcome', async () => {
    await start({ METRICS: 'true' });
    const alice = await createUser(ctx!, { name: 'alice' });
    await createMovie(ctx!, { tmdb_id: 710001 });
    const { url } = await createWebhooksService({
      db: ctx!.db,
      clock: ctx!.clock,
      appUrl: 'http://cinelog.test',
    }).create(alice.user.id, 'jellyfin');
    const path = new URL(url).pathname;
    const report = (body: unknown) =>
      ctx!.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const stop = {
      NotificationType: 'PlaybackStop',
      UtcTimestamp: '2024-03-10T08:15:00.1234567Z',
      Name: 'The Ledger',
      ItemType: 'Movie',
      Provider_tmdb: '710001',
      PlayedToCompletion: true,
      NotificationUsername: 'moviebuff',
    };
    expect((await report(stop)).json()).toMatchObject({ outcome: 'counted' });
    expect((await report(stop)).json()).toMatchObject({ outcome: 'duplicate' });
    expect((await report({ ...stop, NotificationType: 'PlaybackStart' })).json()).toMatchObject({
      outcome: 'ignored',
    });
    expect((await report('this is no report')).statusCode).toBe(400);
    const text = await scrape();
    expect(sample(text, 'cinelog_scrobbles_total', { server: 'jellyfin', outcome: 'counted' })).toBe(1);
    expect(sample(text, 'cinelog_scrobbles_total', { server: 'jellyfin', outcome: 'duplicate' })).toBe(1);
    expect(sample(text, 'cinelog_scrobbles_total', { server: 'jellyfin', outcome: 'ignored' })).toBe(1);
    expect(sample(text, 'cinelog_scrobbles_total', { server: 'jellyfin', outcome: 'rejected' })).toBe(1);
    expect(sample(text, 'cinelog_scrobbles_total', { server: 'plex', outcome: 'counted' })).toBeUndefined();
  });

  it('asks for METRICS_TOKEN as a Bearer token when it is set', async () => {
    await start({ METRICS: 'true', METRICS_TOKEN: TOKEN });
    for (const headers of [
      {},
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `bearer${TOKEN}` },
      { authorization: TOKEN },
      { 'x-service-token': TOKEN },
    ]) {
      const response = await ctx!.app.inject({ url: '/metrics', headers });
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toBe('');
    }
    const user = await createUser(ctx!, { name: 'alice', isAdmin: true });
    expect((await ctx!.app.inject({ url: '/metrics', headers: user.auth })).statusCode).toBe(401);
    const text = await scrape({ authorization: `Bearer ${TOKEN}` });
    expect(text).toContain('cinelog_http_requests_total');
    expect(text).not.toContain(TOKEN);
  });
});
