import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Kysely } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type PoolStats, poolStats } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import { AppError, UnauthenticatedError } from '../../shared/errors.js';
import type { ScrobbleService } from '../scrobble/scrobble.service.js';

/** Request latencies' buckets, in seconds: most answers take a millisecond or two, a TMDB call far more. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A request no route matched: one label for all of them, never the raw URL. */
const UNMATCHED = 'unmatched';

/**
 * What the app's composition (app.ts) plugs in when METRICS=true; with METRICS=false this module is
 * never loaded, and the app has no hook, route or wrapper of it. Domain code knows nothing of it.
 */
export interface Metrics {
  /** The same service, counting each report's outcome. */
  observeScrobbles(service: ScrobbleService): ScrobbleService;
  /** Reads the queue's job counts at each scrape. */
  observeJobs(queue: JobQueue): void;
}

/**
 * Serves Prometheus text at GET /metrics (behind `Authorization: Bearer <token>` when a token is set),
 * and measures every request through one onResponse hook: its route pattern (`/api/users/:username/...`,
 * never the raw URL), method, status and time. Call before any route is registered.
 */
export function registerMetrics(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; token: string | null },
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'cinelog_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code',
    labelNames: ['route', 'method', 'status_code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cinelog_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by route pattern, method and status code',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const scrobbles = new Counter({
    name: 'cinelog_scrobbles_total',
    help: 'Media-server reports to webhooks, by server and outcome (counted, ignored, duplicate, unmatched, rejected)',
    labelNames: ['server', 'outcome'] as const,
    registers: [registry],
  });
  // Read at each scrape: the gauges hold the state at that moment.
  const poolGauge = (name: string, help: string, pick: (stats: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['engine'] as const,
      registers: [registry],
      collect() {
        const stats = poolStats(deps.db);
        if (stats) this.set({ engine: stats.engine }, pick(stats));
      },
    });
  poolGauge(
    'cinelog_db_pool_max_connections',
    'Connections the database pool may open (SQLite: the one writer)',
    (stats) => stats.max,
  );
  poolGauge('cinelog_db_pool_open_connections', 'Database connections open now', (stats) => stats.open);
  poolGauge(
    'cinelog_db_pool_idle_connections',
    'Open database connections no one is using',
    (stats) => stats.idle,
  );
  poolGauge(
    'cinelog_db_pool_waiting',
    'Queries and transactions waiting for a database connection (SQLite: for the writer)',
    (stats) => stats.waiting,
  );

  // Named, so that `printRoutes({ includeHooks: true })` shows it (metrics.test.ts counts hooks).
  function countRequestForMetrics(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ) {
    const labels = {
      route: request.routeOptions.url ?? UNMATCHED,
      method: request.method,
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  }
  app.addHook('onResponse', countRequestForMetrics);

  const expected = deps.token === null ? null : digest(`Bearer ${deps.token}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== null && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      throw new UnauthenticatedError();
    }
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return registry.metrics();
  });

  return {
    observeScrobbles(service) {
      return {
        ...service,
        async handle(server, webhook, input) {
          try {
            const result = await service.handle(server, webhook, input);
            scrobbles.inc({ server, outcome: result.outcome });
            return result;
          } catch (error) {
            // A body that is no report: recorded in the inbox as rejected, answered 400.
            if (error instanceof AppError && error.code === 'InvalidWebhookPayload') {
              scrobbles.inc({ server, outcome: 'rejected' });
            }
            throw error;
          }
        },
      };
    },

    observeJobs(queue) {
      new Gauge({
        name: 'cinelog_jobs',
        help: 'Background jobs by state (all instances sharing the database; finished ones are kept 30 days)',
        labelNames: ['state'] as const,
        registers: [registry],
        async collect() {
          for (const [state, count] of Object.entries(await queue.counts())) this.set({ state }, count);
        },
      });
    },
  };
}

/** Both sides hashed first: equal lengths for timingSafeEqual, and no early exit on the first byte that differs. */
const digest = (value: string) => createHash('sha256').update(value).digest();
