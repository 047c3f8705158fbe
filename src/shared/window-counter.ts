import type { Clock } from './clock.js';

/**
 * Fixed-window counts per key, in this process's memory: for limits that must cost no database row
 * per attempt (requests to URLs that do not exist). Each instance counts its own; at most `maxKeys`
 * keys are kept, the expired ones dropped first, so a flood of new keys cannot grow it without bound.
 */
export class WindowCounter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly maxKeys = 10_000,
  ) {}

  /** Seconds until `key` may try again when it is over its limit now; 0 when it is not. */
  retryAfter(key: string): number {
    const window = this.#live(key);
    return window && window.count > this.limit
      ? Math.max(1, Math.ceil((window.resetAt - this.clock.now().getTime()) / 1000))
      : 0;
  }

  /** Counts one attempt of `key`. */
  count(key: string): void {
    const window = this.#live(key);
    if (window) {
      window.count += 1;
      return;
    }
    if (this.#windows.size >= this.maxKeys) this.#prune();
    this.#windows.set(key, { count: 1, resetAt: this.clock.now().getTime() + this.windowMs });
  }

  #live(key: string) {
    const window = this.#windows.get(key);
    if (window === undefined) return undefined;
    if (window.resetAt > this.clock.now().getTime()) return window;
    this.#windows.delete(key);
    return undefined;
  }

  #prune(): void {
    const now = this.clock.now().getTime();
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key);
    // Still full: every key is live. Forgetting them all is the lesser harm than growing without bound.
    if (this.#windows.size >= this.maxKeys) this.#windows.clear();
  }
}
