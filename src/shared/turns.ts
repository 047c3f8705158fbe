/** How long a batch runs before it lets the event loop take a turn. */
const TURN_MS = 20;

/**
 * Runs `step` for each item in order, giving the event loop a turn whenever TURN_MS have passed. A
 * long batch of synchronous work (SQLite writes resolve at once: awaiting them never leaves the
 * microtask queue) would otherwise hold every other request: an import of 100,000 plays held
 * /healthz for 4.8 s; in turns it answers in milliseconds (bench/imports.js, docs/performance.md).
 */
export async function inTurns<T>(items: Iterable<T>, step: (item: T) => unknown) {
  let turnStarted = performance.now();
  for (const item of items) {
    await step(item);
    if (performance.now() - turnStarted >= TURN_MS) {
      await nextTurn();
      turnStarted = performance.now();
    }
  }
}

/** Lets the event loop run what waits (I/O, timers) before going on. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
