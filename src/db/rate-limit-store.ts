import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import { isoString } from '../shared/dates.js';
import { precompiled } from './precompiled.js';
import type { Database } from './schema.js';

/** Expired windows are deleted every this many counts, so the table stays small. */
const PRUNE_EVERY = 500;

/**
 * A hit: the first of a new key, or one more in its live window. It changes nothing but `hits` of a
 * live window, so the index on `reset_at` is left as it is (one page less to write per commit). No row:
 * the key's window has expired (see `renew`). Compiled once.
 */
const hit = precompiled(
  (db, key: string, resetAt: string, nowIso: string) =>
    db
      .insertInto('rate_limits')
      .values({ key, hits: 1, reset_at: resetAt })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet((eb) => ({ hits: eb('rate_limits.hits', '+', 1) }))
          .where('rate_limits.reset_at', '>', nowIso),
      )
      .returning(['hits', 'reset_at']),
  3,
);

/** The first hit of a fresh window for a key whose window has expired. No row: another hit renewed it first. */
const renew = precompiled(
  (db, key: string, resetAt: string, nowIso: string) =>
    db
      .updateTable('rate_limits')
      .set({ hits: 1, reset_at: resetAt })
      .where('key', '=', key)
      .where('reset_at', '<=', nowIso)
      .returning(['hits', 'reset_at']),
  3,
);

/** A hit and a renewal missing each other this often in a row is a bug, not traffic. */
const ATTEMPTS = 5;

/**
 * Counts one hit in the key's live window, or in a fresh one. Each statement is atomic; between the two,
 * another instance may renew the window (then this hit counts in it), so they are tried again.
 */
async function countHit(db: Kysely<Database>, key: string, resetAt: string, nowIso: string) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [row] = await hit(db, key, resetAt, nowIso);
    if (row) return row;
    const [renewed] = await renew(db, key, resetAt, nowIso);
    if (renewed) return renewed;
  }
  throw new Error('the rate-limit window could not be counted');
}

/** Counts one hit on `key` in a window of `timeWindow` ms: the hits so far in the window and the ms it has left. */
export type HitCounter = (key: string, timeWindow: number) => Promise<{ current: number; ttl: number }>;

export function databaseHitCounter(db: Kysely<Database>, clock: Clock): HitCounter {
  let counted = 0;

  return async function increment(key, timeWindow) {
    const now = clock.now();
    const nowIso = isoString(now.getTime());
    const row = await countHit(db, key, isoString(now.getTime() + timeWindow), nowIso);
    counted += 1;
    if (counted % PRUNE_EVERY === 0)
      await db.deleteFrom('rate_limits').where('reset_at', '<', nowIso).execute();
    return { current: row.hits, ttl: Math.max(0, Date.parse(row.reset_at) - now.getTime()) };
  };
}
