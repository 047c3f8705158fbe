import type { HitCounter } from '../../db/rate-limit-store.js';

export interface AttemptLimit {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

/**
 * Sign-in: every attempt per client address; wrong passwords per account (sign-in.service.ts), so
 * neither one address nor many guess freely, and nobody can lock an owner out.
 */
export const LOGIN_LIMITS = {
  perAddress: { limit: 20, windowMs: 15 * 60_000 },
  perAccount: { limit: 10, windowMs: 15 * 60_000 },
} as const satisfies Record<string, AttemptLimit>;

/** Forgot-password requests: nobody fills someone's mailbox with reset links. */
export const RESET_LIMITS = {
  perAddress: { limit: 10, windowMs: 60 * 60_000 },
  perAccount: { limit: 3, windowMs: 60 * 60_000 },
} as const satisfies Record<string, AttemptLimit>;

export class TooManyAttemptsError extends Error {
  override name = 'TooManyAttemptsError';
  constructor(readonly retryAfterSeconds: number) {
    super('too many attempts; try again later');
  }
}

/**
 * Counts one attempt under every key (in the database, so every app instance counts the same) and
 * throws TooManyAttemptsError when any of them is over its limit.
 */
export async function countAttempt(
  counter: HitCounter,
  attempts: readonly { key: string; limit: AttemptLimit }[],
): Promise<void> {
  let retryAfterMs = 0;
  for (const { key, limit } of attempts) {
    const { current, ttl } = await counter(key, limit.windowMs);
    if (current > limit.limit) retryAfterMs = Math.max(retryAfterMs, ttl);
  }
  if (retryAfterMs > 0) throw new TooManyAttemptsError(Math.ceil(retryAfterMs / 1000));
}
