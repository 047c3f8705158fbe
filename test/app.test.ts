import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMovie, createUser, setupTestApp, type TestContext, type TestUser } from './harness.js';

describe('the HTTP surface', () => {
  let ctx: TestContext;
  let alice: TestUser;
  beforeAll(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx);
  });
  afterAll(async () => {
    await ctx.close();
  });

  const historyUrl = () => `/api/users/${alice.user.name}/history/movies`;

  it('serves an OpenAPI 3.1 document describing every endpoint and both credential schemes', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    // Relative, so "Try it out" calls whatever host the page was opened under.
    expect(doc.servers).toEqual([{ url: '/api' }]);
    // The health check is no API endpoint: documented with the site's root as its server.
    expect(doc.paths['/healthz'].servers).toEqual([{ url: '/' }]);
    expect(doc.paths['/users/{username}/history/movies'].servers).toBeUndefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerToken', 'serviceToken']);
    expect(doc.components.securitySchemes.serviceToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-Service-Token',
    });
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths['/users/{username}/history/movies'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'post',
      'put',
    ]);
    expect(Object.keys(paths['/users/{username}/watchlist/movies'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'post',
    ]);
    expect(Object.keys(paths['/users/{username}/played/movies'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'post',
      'put',
    ]);
    expect(Object.keys(paths['/movies/add'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/movies/search'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/authentication/token'] ?? {})).toEqual(['get']);
    for (const segment of ['a', 'b', 'c', 'd']) {
      const webhook = paths[`/webhook/mediaserver-${segment}/{uuid}`];
      expect(Object.keys(webhook ?? {})).toEqual(['post']);
      expect(Object.keys(webhook!.post!.responses).sort()).toEqual(['200', '400', '404', '413', '429']);
      expect((webhook!.post as { security?: unknown }).security).toBeUndefined();
    }
    expect(Object.keys(paths['/users/{username}/webhook-events'] ?? {})).toEqual(['get']);
    const historyGet = paths['/users/{username}/history/movies']!.get!;
    expect(Object.keys(historyGet.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413']);
  });

  it('serves the interactive API docs page', async () => {
    let res = await ctx.app.inject({ method: 'GET', url: '/docs/api' });
    if (res.statusCode === 302)
      res = await ctx.app.inject({ method: 'GET', url: res.headers.location as string });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger-ui');
  });

  it('compiles every request validator after start: each schema compiles, a used one is not compiled again', async () => {
    // A validator compiles on first use (before this, the sign-in above used some); the rest here.
    const waiting = ctx.app.compileValidators();
    expect(waiting).toBeGreaterThan(50);
    expect(ctx.app.compileValidators()).toBe(0);
    // Validation holds as before, compiled either way.
    const bad = await ctx.app.inject({
      method: 'POST',
      url: historyUrl(),
      headers: { authorization: `Bearer ${alice.token}` },
      payload: [{ serviceId: 'one', watchedAt: '2024-01-01' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('InvalidRequestBody');
  });

  it('compiles every response serializer after start: each schema compiles, a used one is not compiled again', async () => {
    // Like the validators, a serializer compiles on its route's first answer; the rest here.
    const waiting = ctx.app.compileSerializers();
    expect(waiting).toBeGreaterThan(50);
    expect(ctx.app.compileSerializers()).toBe(0);
    // A compiled serializer still answers: /healthz's schema, compiled here if not before.
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('reports health after checking the database', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown route with a JSON 404', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/nothing/here?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'RouteNotFound', message: 'no route GET /api/nothing/here' });
  });

  it('answers an oversized body with 413 and changes nothing', async () => {
    const movie = await createMovie(ctx);
    const huge = JSON.stringify([
      { serviceId: movie.id, watchedAt: '2024-01-01', comment: 'x'.repeat(1_100_000) },
    ]);
    const res = await ctx.app.inject({
      method: 'POST',
      url: historyUrl(),
      headers: { ...alice.auth, 'content-type': 'application/json' },
      payload: huge,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toBe('PayloadTooLarge');
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
  });

  it.each([
    ['malformed JSON', 'application/json', '[{"serviceId": 1,', 400, 'InvalidJson'],
    ['an empty JSON body', 'application/json', '', 400, 'InvalidJson'],
    ['a JSON object instead of an array', 'application/json', '{"serviceId": 1}', 400, 'InvalidRequestBody'],
    ['JSON null', 'application/json', 'null', 400, 'InvalidRequestBody'],
    [
      'a string id',
      'application/json',
      '[{"serviceId": "1", "watchedAt": "2024-01-01"}]',
      400,
      'InvalidRequestBody',
    ],
    ['a non-JSON content type', 'text/plain', 'hello', 415, 'UnsupportedMediaType'],
  ])('rejects %s with a clear error', async (_name, contentType, payload, status, code) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: historyUrl(),
      headers: { ...alice.auth, 'content-type': contentType },
      payload,
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: code, message: expect.any(String) });
  });

  it('gives every response a request id, echoing the caller’s', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(res.headers['x-request-id']).toBe('abc-123');
    const generated = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never answers odd input with a 5xx', async () => {
    const movie = await createMovie(ctx);
    const name = alice.user.name;
    const json = { ...alice.auth, 'content-type': 'application/json' };
    const requests: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: string }[] = [
      { method: 'GET', url: `/api/users/${'x'.repeat(5000)}/history/movies` },
      { method: 'GET', url: '/api/users/%00/history/movies' },
      { method: 'GET', url: `/api/users/${name}/history/movies?search=a%00b` },
      { method: 'GET', url: '/api/movies/search?search=%00' },
      {
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchedAt": "2024-01-01", "comment": "a\u0000b"}]`,
      },
      { method: 'GET', url: '/api/users/%E2%82%AC/played/movies' },
      { method: 'GET', url: `/api/users/${name}/history/movies?page=1&page=2` },
      { method: 'GET', url: `/api/users/${name}/history/movies?limit=1e3&search=${'%'.repeat(3)}` },
      { method: 'GET', url: `/api/users/${name}/history/movies?page=99999999999999999999` },
      { method: 'GET', url: `/api/users/${name}/watchlist/movies?sortBy[]=title` },
      { method: 'GET', url: `/api/users/${name}/played/movies?releaseYear=20x4` },
      {
        method: 'GET',
        url: `/api/users/${name}/played/movies?search=${encodeURIComponent("'; drop table movies; --")}`,
      },
      { method: 'POST', url: `/api/users/${name}/history/movies`, payload: '[[]]' },
      {
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        payload: '[{"serviceId": 1e400, "watchedAt": "2024-01-01"}]',
      },
      {
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchedAt": "2024-01-01", "plays": 1e308}]`,
      },
      {
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchedAt": "2024-01-01", "position": "first"}]`,
      },
      { method: 'POST', url: `/api/users/${name}/history/movies`, payload: '{"__proto__": {"x": 1}}' },
      {
        method: 'PUT',
        url: `/api/users/${name}/history/movies`,
        payload: `[{"serviceId": 9007199254740993, "watchedAt": "2024-01-01", "plays": 1}]`,
      },
      {
        method: 'DELETE',
        url: `/api/users/${name}/played/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchDates": ["2024-13-01"]}]`,
      },
      {
        method: 'POST',
        url: `/api/users/${name}/played/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchDates": [{"watchedAt": null, "comment": "${'c'.repeat(20000)}"}]}]`,
      },
      { method: 'POST', url: `/api/users/${name}/watchlist/movies`, payload: '"just a string"' },
      { method: 'POST', url: '/api/movies/add', payload: '{"providerId": 603}' },
      {
        method: 'POST',
        url: `/api/users/${name}/history/movies`,
        payload: `[{"serviceId": ${movie.id}, "watchedAt": "2024-01-01", "position": 1e400}]`,
      },
      { method: 'POST', url: `/api/users/${name}/watchlist/movies`, payload: '[{"serviceId": 99999999999}]' },
      { method: 'GET', url: '/api/movies/search?search=matrix' },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: json });
      expect(
        res.statusCode,
        `${request.method} ${request.url.slice(0, 80)} ${request.payload?.slice(0, 80)}`,
      ).toBeLessThan(500 + (request.url.startsWith('/api/movies') ? 4 : 0));
      if (res.statusCode >= 500) expect(res.json().error).toBe('ProviderNotConfigured');
    }
    expect(await ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
  });
});
