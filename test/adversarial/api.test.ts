/**
 * Adversarial, property-based tests of the JSON API: random requests to every route the app
 * registers, from its own schemas (test/adversarial/schema-arbitrary.ts). Seeded: the seed is printed
 * and `FC_SEED=<seed>` replays the run; `FC_RUNS=<factor>` runs more (test/adversarial/fc.ts,
 * docs/testing.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiCase, apiRequest, strayRequest } from './api-requests.js';
import { type Answer, expectAnyAnswer, expectStatus } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { apiRoutes, isWebhook, missingSchema } from './routes.js';
import {
  createWorld,
  describeRequest,
  type HttpRequest,
  printTallies,
  sendApi,
  tally,
  type World,
} from './world.js';

const RUNS = 1_800;

describe('adversarial: the API', () => {
  let world: World;
  beforeAll(async () => {
    announceSeed('api');
    world = await createWorld({ tmdb: true });
  });
  afterAll(async () => {
    printTallies('api');
    await world.close();
  });

  it('finds every API route, each with the schemas its requests are generated from', () => {
    const routes = apiRoutes(world.routes);
    expect(routes.length).toBeGreaterThanOrEqual(15);
    expect(routes.map((route) => `${route.method} ${route.url}`)).toContain(
      'POST /api/users/:username/history/movies',
    );
    expect(routes.map(missingSchema).filter((problem) => problem !== null)).toEqual([]);
  });

  it(
    'answers random requests without a 5xx, in the envelope, in the order of checks, and changes nothing when it refuses',
    async () => {
      const routes = apiRoutes(world.routes).filter((route) => !isWebhook(route));
      const cases = fc.oneof(
        // One arbitrary per route, built once (building one costs more than drawing from it).
        { weight: 30, arbitrary: fc.oneof(...routes.map((route) => apiRequest(world, route))) },
        { weight: 1, arbitrary: strayRequest.map((request) => ({ stray: request })) },
      );
      await checkProperty(
        'API requests',
        cases,
        async (generated) => {
          if ('stray' in generated) return checkStray(world, generated.stray);
          const answer = await sendApi(world, generated.request, generated.route);
          checkOrder(generated, answer);
        },
        runs(RUNS),
      );
    },
    // Room for an export of millions of plays (a line each in Movary's format): with FC_SEED=936387312
    // one takes about two minutes on PostgreSQL.
    timeoutFor(RUNS, 120),
  );
});

/** Credentials first (401), then the user in the path (404), then ownership (403), then validation. */
function checkOrder(generated: ApiCase, answer: Answer) {
  const { route, secured, request, caller, owner, routed } = generated;
  if (!routed) return;
  const label = describeRequest(request);
  if (secured && caller === 'none') return expectStatus(label, answer, 401);
  if (caller === 'none') return;
  if (owner === 'unknown') return expectStatus(label, answer, 404, 'UserNotFound');
  if ((owner === 'alice' || owner === 'bob') && owner !== caller && !route.startsWith('GET ')) {
    return expectStatus(label, answer, 403, 'Forbidden');
  }
}

async function checkStray(world: World, request: HttpRequest) {
  const label = describeRequest(request);
  const answer = await world.guard.around(label, () => world.inject(request));
  tally('stray', answer);
  expectAnyAnswer(label, answer);
}
