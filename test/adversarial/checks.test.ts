/**
 * The adversarial suite's own checks can fail: each checker is shown a violation (a 500, a body
 * outside the envelope, an off-site redirect, a change made by a refused request, a half-applied
 * batch, a stored NUL), and each generator drives a small app with a planted defect until the
 * property finds it. Without these, a broken checker would pass everything in silence.
 */

import fc from 'fast-check';
import Fastify, { type FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createValidatorCompiler } from '../../src/shared/validation.js';
import { setupTestApp } from '../harness.js';
import { judgeBatch } from './batch-oracle.js';
import { jsonBody } from './encodings.js';
import {
  type Answer,
  expectAnyAnswer,
  expectApiAnswer,
  expectNo5xx,
  expectPageAnswer,
  expectStatus,
} from './expectations.js';
import { checkProperty } from './fc.js';
import { formHints, formRequest } from './form-requests.js';
import { apiRoutes, missingSchema, withRouteCapture } from './routes.js';
import { type JsonSchema, schemaArbitraries } from './schema-arbitrary.js';
import type { Snapshot } from './snapshot.js';
import { type WebhookCase, webhookFixtures, webhookRequest } from './webhook-requests.js';
import { ChangeGuard, expectPortable, type World } from './world.js';

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});
const html = (statusCode: number, headers: Record<string, string> = {}): Answer => ({
  statusCode,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body: '<!doctype html><p>page</p>',
});
const ORIGIN = 'http://cinelog.test';

describe('the checkers of the adversarial suite', () => {
  it('refuse a 5xx, a body outside the envelope, and a 401 with a body or without WWW-Authenticate', () => {
    expect(() => expectApiAnswer('t', json(500, { error: 'InternalError', message: 'x' }))).toThrow(/5xx/);
    expect(() => expectApiAnswer('t', json(503, { error: 'ProviderUnavailable', message: 'x' }))).toThrow(
      /5xx/,
    );
    expect(() =>
      expectApiAnswer(
        't',
        json(400, { error: 'Bad Request', code: 'FST_ERR_BAD_URL', message: 'x', statusCode: 400 }),
      ),
    ).toThrow(/keys/);
    expect(() => expectApiAnswer('t', json(400, { error: 'invalid_body', message: 'x' }))).toThrow(
      /PascalCase/,
    );
    expect(() => expectApiAnswer('t', json(400, { error: 'InvalidJson', message: '' }))).toThrow(/message/);
    expect(() => expectApiAnswer('t', json(400, ['InvalidJson']))).toThrow(/not an object/);
    expect(() => expectApiAnswer('t', { statusCode: 417, headers: {}, body: '' })).toThrow(/not JSON/);
    expect(() =>
      expectApiAnswer('t', json(403, { error: 'InvalidRequestBody', message: 'Forbidden' })),
    ).toThrow(/does not fit/);
    expect(() => expectApiAnswer('t', json(404, { error: 'Forbidden', message: 'x' }))).toThrow(
      /does not fit/,
    );
    expect(() =>
      expectApiAnswer(
        't',
        json(401, { error: 'Unauthorized', message: 'x' }, { 'www-authenticate': 'Bearer' }),
      ),
    ).toThrow(/401 with a body/);
    expect(() => expectApiAnswer('t', { statusCode: 401, headers: {}, body: '' })).toThrow(
      /WWW-Authenticate/,
    );
    // And let the right answers through.
    expectApiAnswer('t', json(400, { error: 'InvalidRequestBody', message: 'body/0 must be object' }));
    expectApiAnswer('t', json(404, { error: 'UserNotFound', message: 'no user named "x"' }));
    expectApiAnswer('t', json(400, { error: 'ProviderIdNotFound', message: 'TMDB has no movie with id 1' }));
    expectApiAnswer('t', { statusCode: 401, headers: { 'www-authenticate': 'Bearer' }, body: '' });
    expectApiAnswer('t', { statusCode: 204, headers: {}, body: '' });
    expect(() => expectStatus('t', json(400, { error: 'InvalidJson', message: 'x' }), 401)).toThrow(
      /expected 401/,
    );
    expect(() =>
      expectStatus('t', json(404, { error: 'RouteNotFound', message: 'x' }), 404, 'UserNotFound'),
    ).toThrow(/UserNotFound/);
    expect(() => expectAnyAnswer('t', { statusCode: 417, headers: {}, body: '' })).toThrow(/without a body/);
    expectAnyAnswer('t', html(404));
  });

  it('refuse a page error that is no page, and a redirect a browser follows off the site', () => {
    expect(() => expectPageAnswer('t', html(500), ORIGIN)).toThrow(/5xx/);
    expect(() =>
      expectPageAnswer(
        't',
        { statusCode: 400, headers: { 'content-type': 'text/plain' }, body: 'x' },
        ORIGIN,
      ),
    ).toThrow(/not an HTML page/);
    expect(() =>
      expectPageAnswer(
        't',
        json(400, { error: 'Bad Request', code: 'FST_ERR_BAD_URL', message: 'x', statusCode: 400 }),
        ORIGIN,
      ),
    ).toThrow(/keys/);
    for (const location of [
      '//evil.example',
      '/\t/evil.example',
      '/\\evil.example',
      'http://evil.example/',
      '/\n/evil.example',
    ]) {
      expect(() => expectPageAnswer('t', html(303, { location }), ORIGIN), location).toThrow(/off the site/);
    }
    expect(() => expectPageAnswer('t', html(303), ORIGIN)).toThrow(/without a Location/);
    expectPageAnswer('t', html(303, { location: '/settings/tokens?x=1' }), ORIGIN);
    expectPageAnswer('t', html(303, { location: '/%09/evil.example' }), ORIGIN);
    expectPageAnswer('t', html(400), ORIGIN);
  });

  it('see a change made by a refused request, and nothing else', async () => {
    const states: Snapshot[] = [
      new Map([['watch_dates', ['{"id":1}']]]),
      new Map([['watch_dates', ['{"id":1}', '{"id":2}']]]),
    ];
    let current = 0;
    const guard = new ChangeGuard(async () => states[current]!);
    const answer = (statusCode: number, change: boolean) => async () => {
      if (change) current = 1 - current;
      return json(statusCode, { error: 'InvalidRequestBody', message: 'x' });
    };
    await expect(guard.around('refused, changed', answer(400, true))).rejects.toThrow(
      /a rejected request changed data/,
    );
    await guard.around('refused, unchanged', answer(404, false));
    await guard.around('accepted, changed', answer(204, true));
    await guard.around('refused after an accepted one', answer(403, false));
  });

  it('see text with a NUL and integers past 32 bits that one engine stores and the other cannot', () => {
    expect(() => expectPortable(new Map([['api_tokens', ['{"name":"la\\u0000ptop"}']]]), 't')).toThrow(/NUL/);
    expect(() =>
      expectPortable(new Map([['watch_dates', ['{"plays":2149000000,"position":1}']]]), 't'),
    ).toThrow(/past 32 bits/);
    expectPortable(new Map([['watch_dates', ['{"plays":2147483647,"position":1000000000}']]]), 't');
  });

  it('see a batch applied in part, or refused though each item is fine', () => {
    const library = (rows: string[]) => ({ watch_dates: rows, watchlist: [], ratings: [] });
    const ok = json(204, null);
    const refused = json(404, { error: 'MovieNotFound', message: 'x' });
    expect(() =>
      judgeBatch(
        't',
        ok,
        [
          { item: 1, status: 204 },
          { item: 2, status: 404 },
        ],
        [library([]), library([])],
      ),
    ).toThrow(/alone is refused/);
    expect(() =>
      judgeBatch('t', ok, [{ item: 1, status: 204 }], [library(['a']), library(['a', 'b'])]),
    ).toThrow(/otherwise than its items/);
    expect(() => judgeBatch('t', refused, [{ item: 1, status: 204 }], null)).toThrow(
      /each of its items alone is accepted/,
    );
    judgeBatch('t', ok, [{ item: 1, status: 204 }], [library(['a']), library(['a'])]);
    judgeBatch(
      't',
      refused,
      [
        { item: 1, status: 204 },
        { item: 2, status: 404 },
      ],
      null,
    );
  });
});

describe('the generators of the adversarial suite', () => {
  const BODY: JsonSchema = {
    type: 'array',
    maxItems: 100,
    items: {
      type: 'object',
      required: ['serviceId', 'watchedAt'],
      properties: {
        serviceId: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
        watchedAt: { type: 'string', format: 'date' },
        plays: { type: 'integer', minimum: 1, maximum: 1_000_000 },
        comment: { anyOf: [{ type: 'string', maxLength: 100, pattern: '^[^\\u0000]*$' }, { type: 'null' }] },
      },
    },
  };

  it('make values the schema allows, values it refuses, and the same values from the same seed', () => {
    const validate = createValidatorCompiler()({ schema: BODY, httpPart: 'body' } as never) as (
      value: unknown,
    ) => boolean;
    const generators = schemaArbitraries();
    const valid = fc.sample(generators.valid(BODY), { numRuns: 300, seed: 42 });
    expect(valid.filter((value) => !validate(value))).toEqual([]);
    const adversarial = fc.sample(generators.adversarial(BODY), { numRuns: 300, seed: 42 });
    const refused = adversarial.filter((value) => !validate(value)).length;
    expect(refused).toBeGreaterThan(60);
    expect(refused).toBeLessThan(270);
    expect(fc.sample(generators.adversarial(BODY), { numRuns: 50, seed: 7 })).toEqual(
      fc.sample(schemaArbitraries().adversarial(BODY), { numRuns: 50, seed: 7 }),
    );
  });

  it('find a planted 500 and a planted body outside the envelope', async () => {
    // A stand-in for the app: PostgreSQL's NUL failure, and a framework-shaped error for a long comment.
    const app = Fastify();
    app.setValidatorCompiler(createValidatorCompiler());
    app.setErrorHandler((error: FastifyError, _request, reply) => {
      const status = error.statusCode ?? 500;
      const code =
        status === 415 ? 'UnsupportedMediaType' : status === 413 ? 'PayloadTooLarge' : 'InvalidRequestBody';
      return reply.code(status).send({ error: code, message: error.message });
    });
    app.post('/items', { schema: { body: { type: 'array' } } }, async (request, reply) => {
      const text = JSON.stringify(request.body);
      if (text.includes('\\u0000')) return reply.code(500).send({ error: 'InternalError', message: 'NUL' });
      if (/"comment":"[^"]{60,}/.test(text))
        return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: 'x' });
      return reply.code(204).send();
    });
    const cases = schemaArbitraries().adversarial(BODY).chain(jsonBody);
    const property = (check: (answer: Answer) => void) =>
      checkProperty(
        'planted defect',
        cases,
        async ({ payload, contentType }) => {
          const answer = await app.inject({
            method: 'POST',
            url: '/items',
            ...(payload !== undefined && { payload }),
            ...(contentType !== undefined && { headers: { 'content-type': contentType } }),
          });
          check(answer);
        },
        1_000,
        20_240_615,
      );
    await expect(property((answer) => expectApiAnswer('planted', answer))).rejects.toThrow(
      /a 500 \(a 5xx|an error body with keys/,
    );
    await expect(
      property((answer) => {
        if (answer.statusCode === 500) return;
        expectApiAnswer('planted', answer);
      }),
    ).rejects.toThrow(/an error body with keys/);
    await app.close();
  });

  it('find a planted open redirect through the sign-in form', async () => {
    const app = Fastify();
    app.get('/login', async (request, reply) => {
      const next = (request.query as { next?: string }).next ?? '/';
      // The planted defect: any path that starts with one slash, as cinelog's first check did.
      return reply.redirect(/^\/(?![/\\])/.test(next) ? next : '/', 303);
    });
    const route = {
      method: 'GET',
      url: '/login',
      schema: { querystring: { type: 'object', properties: { next: { type: 'string', maxLength: 1000 } } } },
    };
    await expect(
      checkProperty(
        'planted open redirect',
        formRequest(route, formHints([])),
        async ({ request }) => {
          const answer = await app.inject({
            method: request.method,
            url: request.url,
            headers: request.headers,
          });
          if (answer.statusCode === 500) return;
          expectPageAnswer(request.url, answer, ORIGIN);
        },
        1_000,
        20_240_615,
      ),
    ).rejects.toThrow(/off the site/);
    await app.close();
  });

  it('find a planted 500 in a webhook, and a webhook that reads the body before it knows the URL', async () => {
    const uuid = '6f0c2a52-8d1e-4a7b-9c3d-2e5f7a9b1c4d';
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.post('/api/webhook/mediaserver-a/:uuid', async (request, reply) => {
      const body = String(request.body ?? '');
      // The planted defects: a NUL anywhere breaks the handler; an unknown URL is found out after the body.
      if (body.includes('\u0000') || body.includes('\\u0000'))
        return reply.code(500).send({ error: 'InternalError', message: 'x' });
      if (body.trim() === '')
        return reply.code(400).send({ error: 'InvalidWebhookPayload', message: 'empty' });
      if ((request.params as { uuid: string }).uuid !== uuid)
        return reply.code(404).send({ error: 'WebhookNotFound', message: 'x' });
      return { outcome: 'ignored', reason: 'x', serviceId: null, watchDate: null };
    });
    const world = {
      webhooks: { alice: { plex: uuid, jellyfin: uuid, emby: uuid, kodi: uuid }, bob: {} },
    } as unknown as World;
    const route = { method: 'POST', url: '/api/webhook/mediaserver-a/:uuid', schema: null };
    const property = (check: (generated: WebhookCase, answer: Answer) => void) =>
      checkProperty(
        'planted webhook defect',
        webhookRequest(world, route, webhookFixtures()),
        async (generated) => {
          const { request } = generated;
          const answer = await app.inject({
            method: 'POST',
            url: request.url,
            headers: request.headers,
            ...(request.payload !== undefined && { payload: request.payload }),
          });
          check(generated, answer);
        },
        1_000,
        20_240_615,
      );
    await expect(property((_generated, answer) => expectNo5xx('webhook', answer))).rejects.toThrow(/a 500/);
    await expect(
      property((generated, answer) => {
        if (generated.uuid === 'unknown') expectStatus('webhook', answer, 404, 'WebhookNotFound');
      }),
    ).rejects.toThrow(/expected 404 WebhookNotFound/);
    await app.close();
  });

  it('enumerate the routes of an app and name an API route without a schema', async () => {
    const { built: app, routes } = await withRouteCapture(async () => {
      const app = Fastify();
      await app.register(
        async (api) => {
          api.post('/things/:id', async () => null);
          api.get('/things', { schema: { querystring: { type: 'object' } } }, async () => null);
          // A DELETE of what its path names reads no body; a PUT there needs a body schema.
          const params = { type: 'object', properties: { id: { type: 'integer' } } };
          api.delete('/things/:id', { schema: { params } }, async () => null);
          api.put('/things/:id', { schema: { params } }, async () => null);
        },
        { prefix: '/api' },
      );
      await app.ready();
      return app;
    });
    const found = apiRoutes(routes());
    expect(found.map((route) => `${route.method} ${route.url}`).sort()).toEqual([
      'DELETE /api/things/:id',
      'GET /api/things',
      'POST /api/things/:id',
      'PUT /api/things/:id',
    ]);
    expect(found.map(missingSchema).filter(Boolean)).toEqual([
      'POST /api/things/:id has no schema',
      'PUT /api/things/:id has no body schema',
    ]);
    await app.close();
  });

  it("make mostly schema-valid bodies for the app's own routes", async () => {
    const { built: ctx, routes } = await withRouteCapture(() => setupTestApp());
    try {
      const compile = createValidatorCompiler();
      const generators = schemaArbitraries();
      const withBodies = apiRoutes(routes()).filter((route) => route.schema?.body);
      expect(withBodies.length).toBeGreaterThanOrEqual(9);
      for (const route of withBodies) {
        const validate = compile({ schema: route.schema!.body!, httpPart: 'body' } as never) as (
          value: unknown,
        ) => boolean;
        const values = fc.sample(generators.valid(route.schema!.body!), { numRuns: 100, seed: 1 });
        expect(
          values.filter((value) => !validate(value)),
          `${route.method} ${route.url}`,
        ).toEqual([]);
      }
    } finally {
      await ctx.close();
    }
  });
});
