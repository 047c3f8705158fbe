import { createHook } from 'node:async_hooks';

/** The tick object kept alive for the life of the process (see keepTickShape). */
let kept: object | undefined;

/**
 * Keeps one of Node's `process.nextTick` records alive for the life of the process, so that the
 * hidden class (map) of every later one stays known to V8. To be called first thing at start-up,
 * before the application's modules load.
 *
 * Why: Node builds each tick record as an object literal `{ [async_id_symbol], [trigger_async_id_symbol],
 * callback, args }`, starting from the map every empty object literal starts from. Start-up makes
 * thousands of short-lived objects from that map, each with a first property of its own (schemas,
 * routes, options); when its transitions fill up (V8 keeps at most 1,536), and a garbage collection has
 * dropped the tick record's own transition (weakly held: no record alive at that moment), each new
 * record gets a map of its own. The property stores of `nextTick` then see many maps and go
 * megamorphic for good, and the optimised `nextTick` stores `callback` and `args` through generic
 * calls. Measured on the token check (docs/performance.md, "Tick records"): `nextTick` went from 0.3 to
 * 3.2 µs of CPU a request (9 calls a request), its literal's stores MEGAMORPHIC where 7248020 had
 * them MONOMORPHIC. A record alive from the start keeps its maps, hence one shape, whatever start-up does.
 */
export function keepTickShape(): void {
  if (kept !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  process.nextTick(noop);
  hook.disable();
}

function noop(): void {}

/** The record kept (tests). */
export const keptTickRecord = (): object | undefined => kept;
