import { type Kysely, sql } from 'kysely';
import type { Clock } from '../shared/clock.js';
import { isoString } from '../shared/dates.js';
import { precompiled } from './precompiled.js';
import type { Database } from './schema.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** Expired windows are deleted every this many counts, so the table stays small. */
const PRUNE_EVERY = 500;

/**
 * A @fastify/rate-limit store that keeps its windows in the database: every app instance on the same
 * database counts the same requests. One atomic upsert per request, portable across engines.
 */
/** One atomic upsert per request, compiled once: a new window, a hit in the live one, or a fresh one. */
const hit = precompiled((db, key: string, resetAt: string, nowIso: string) => {
  const expired = sql<boolean>`rate_limits.reset_at <= ${nowIso}`;
  return db
    .insertInto('rate_limits')
    .values({ key, hits: 1, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        hits: eb
          .case()
          .when(expired)
          .then(1)
          .else(eb('rate_limits.hits', '+', 1))
          .end(),
        reset_at: eb
          .case()
          .when(expired)
          .then(eb.ref('excluded.reset_at'))
          .else(eb.ref('rate_limits.reset_at'))
          .end(),
      })),
    )
    .returning(['hits', 'reset_at']);
}, 3);

/** Counts one hit on `key` in a window of `timeWindow` ms: the hits so far in the window and the ms it has left. */
export type HitCounter = (key: string, timeWindow: number) => Promise<{ current: number; ttl: number }>;

export function databaseHitCounter(db: Kysely<Database>, clock: Clock): HitCounter {
  let counted = 0;

  return async function increment(key, timeWindow) {
    const now = clock.now();
    const nowIso = isoString(now.getTime());
    const [row] = await hit(db, key, isoString(now.getTime() + timeWindow), nowIso);
    if (!row) throw new Error('the rate-limit upsert returned no row');
    counted += 1;
    if (counted % PRUNE_EVERY === 0)
      await db.deleteFrom('rate_limits').where('reset_at', '<', nowIso).execute();
    return { current: row.hits, ttl: Math.max(0, Date.parse(row.reset_at) - now.getTime()) };
  };
}

export function databaseRateLimitStore(db: Kysely<Database>, clock: Clock) {
  const increment = databaseHitCounter(db, clock);

  return class DatabaseRateLimitStore {
    constructor(readonly options: { timeWindow?: number; keyPrefix?: string } = {}) {}

    incr(key: string, callback: Callback, timeWindow?: number): void {
      const window = timeWindow ?? this.options.timeWindow ?? 60_000;
      increment(`${this.options.keyPrefix ?? ''}${key}`, window).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    child(routeOptions: Record<string, unknown>) {
      return new DatabaseRateLimitStore({ ...this.options, ...routeOptions });
    }
  };
}
