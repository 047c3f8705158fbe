/**
 * Work done on first use rather than when it is set up, once: Fastify's validators and response
 * serializers (validation.ts, serialization.ts), each compiled on its route's first request instead of
 * at start. `compileWaiting` does the work of those not used yet: test/app.test.ts calls it to prove
 * every schema compiles; the server never does.
 */
export class CompileLater {
  readonly #waiting = new Set<() => unknown>();

  /** A getter that runs `compile` on its first call (or in `compileWaiting`) and answers its result. */
  later<T>(compile: () => T): () => T {
    let compiled: { value: T } | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        this.#waiting.delete(get);
        compiled = { value: compile() };
      }
      return compiled.value;
    };
    this.#waiting.add(get);
    return get;
  }

  /** Runs every compile not run yet; answers how many it ran. */
  compileWaiting(): number {
    const count = this.#waiting.size;
    for (const get of this.#waiting) get();
    return count;
  }
}
