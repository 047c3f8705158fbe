/**
 * Adversarial, property-based test of the batch writes (every API route whose body is an array):
 * a batch applies whole or not at all. The same batch goes to the app on one database, and item by
 * item, as one-item batches, to a twin app on another database that holds the same data: an accepted
 * batch must leave the same library as its items did one by one; a refused one must change nothing,
 * and at least one of its items must be refused on its own. Seeded: `FC_SEED=<seed>` replays the run
 * (test/adversarial/fc.ts, docs/testing.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHints } from './api-requests.js';
import { copyLibrary, judgeBatch, library } from './batch-oracle.js';
import { expectApiAnswer } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { apiRoutes } from './routes.js';
import { schemaArbitraries } from './schema-arbitrary.js';
import {
  createWorld,
  describeRequest,
  type HttpRequest,
  printTallies,
  sendApi,
  type World,
} from './world.js';

const RUNS = 400;

describe('adversarial: batch writes', () => {
  let world: World;
  let twin: World;
  beforeAll(async () => {
    announceSeed('batches');
    world = await createWorld();
    twin = await createWorld();
    expect(twin.movieIds).toEqual(world.movieIds);
    // Some data to start from, the same in both.
    for (const target of [world, twin]) {
      const [first, second] = target.movieIds;
      const send = (method: string, path: string, body: unknown) =>
        target.inject({
          method,
          url: `/api/users/alice${path}`,
          headers: { ...target.alice.auth, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      await send('POST', '/history/movies', [
        { serviceId: first, watchedAt: '2024-01-01', plays: 2, comment: 'seen' },
      ]);
      await send('POST', '/played/movies', [{ serviceId: second, watchDates: [{ watchedAt: null }] }]);
      await send('POST', '/watchlist/movies', [{ serviceId: second }, { serviceId: target.movieIds[2] }]);
    }
    expect(await library(twin.ctx.db)).toEqual(await library(world.ctx.db));
  });
  afterAll(async () => {
    printTallies('batches');
    await world.close();
    await twin.close();
  });

  it(
    'applies a batch whole, as its items one by one, or not at all',
    async () => {
      const routes = apiRoutes(world.routes).filter((route) => route.schema?.body?.type === 'array');
      expect(routes.length).toBeGreaterThanOrEqual(8);
      const generators = schemaArbitraries(apiHints(world));
      const batches = fc.oneof(
        ...routes.map((route) => {
          const items = route.schema!.body!.items ?? {};
          const item = fc.oneof(
            { weight: 9, arbitrary: generators.valid(items) },
            generators.adversarial(items),
          );
          return fc.record({
            route: fc.constant(`${route.method} ${route.url}`),
            items: fc.array(item, { maxLength: 5 }),
          });
        }),
      );
      const byLabel = new Map(routes.map((route) => [`${route.method} ${route.url}`, route]));
      await checkProperty(
        'batch writes',
        batches,
        async ({ route, items }) => {
          const captured = byLabel.get(route)!;
          const request = (target: World, body: unknown[]): HttpRequest => ({
            method: captured.method,
            url: captured.url.replace(':username', 'alice'),
            headers: { ...target.alice.auth, 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          const whole = request(world, items);
          const answer = await sendApi(world, whole, route);
          const accepted = answer.statusCode < 300;
          const alone: { item: unknown; status: number }[] = [];
          for (const item of items) {
            const single = request(twin, [item]);
            const singleAnswer = await twin.inject(single);
            expectApiAnswer(describeRequest(single), singleAnswer);
            alone.push({ item, status: singleAnswer.statusCode });
          }
          const label = describeRequest(whole);
          judgeBatch(
            label,
            answer,
            alone,
            accepted ? [await library(world.ctx.db), await library(twin.ctx.db)] : null,
          );
          if (!accepted) {
            // The twin took the items that were fine alone: back to the state of the refused batch.
            await copyLibrary(world.ctx.db, twin.ctx.db);
          }
        },
        runs(RUNS),
      );
    },
    timeoutFor(RUNS, 150),
  );
});
