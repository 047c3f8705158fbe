/**
 * Adversarial, property-based tests of the four webhooks: the real report shapes of
 * test/fixtures/webhooks, mutated and sent in every body format (multipart, urlencoded, JSON with any
 * content type, garbage), to real and unknown UUIDs. Seeded: the seed is printed and `FC_SEED=<seed>`
 * replays the run (test/adversarial/fc.ts, docs/testing.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import { expectApiAnswer, expectStatus } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { apiRoutes, isWebhook } from './routes.js';
import { fixtureTmdbIds, webhookFixtures, webhookRequest } from './webhook-requests.js';
import { createWorld, describeRequest, printTallies, sendApi, type World } from './world.js';

const RUNS = 1_400;
const OUTCOMES = ['counted', 'ignored', 'duplicate', 'unmatched', 'rejected'];

describe('adversarial: the webhooks', () => {
  let world: World;
  beforeAll(async () => {
    announceSeed('webhooks');
    world = await createWorld({ tmdb: true });
    // The fake TMDB knows the fixtures' movies, so that reports get counted, not only refused.
    for (const id of fixtureTmdbIds()) {
      world.tmdb!.putMovie({ ...FAKE_TMDB_MOVIES[0]!, id, title: `Fixture movie ${id}`, imdb_id: null });
    }
  });
  afterAll(async () => {
    printTallies('webhooks');
    await world.close();
  });

  it(
    'answers mutated reports in any body format without a 5xx, in the envelope, changing nothing when it refuses',
    async () => {
      const routes = apiRoutes(world.routes).filter(isWebhook);
      expect(routes).toHaveLength(4);
      const fixtures = webhookFixtures();
      await checkProperty(
        'webhook reports',
        fc.oneof(...routes.map((route) => webhookRequest(world, route, fixtures))),
        async ({ route, request, uuid }) => {
          // A second between reports keeps a URL under its 120 a minute.
          world.ctx.clock.advance(1_000);
          const answer = await sendApi(world, request, route);
          const label = describeRequest(request);
          if (uuid === 'unknown') expectStatus(label, answer, 404, 'WebhookNotFound');
          if (answer.statusCode === 200) {
            const body = JSON.parse(answer.body) as Record<string, unknown>;
            expect(Object.keys(body).sort(), label).toEqual(['outcome', 'reason', 'serviceId', 'watchDate']);
            expect(OUTCOMES, label).toContain(body.outcome);
          }
          expectApiAnswer(label, answer);
        },
        runs(RUNS),
      );
    },
    timeoutFor(RUNS, 60),
  );
});
