import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { CompileLater } from './compile-later.js';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/** Fastify's serializer builder, whose serializers compile on first use or in `compileWaiting`. */
export interface SerializerBuilder {
  /** For Fastify's `schemaController.compilersFactory.buildSerializer`. */
  buildSerializer: SerializerFactory;
  /**
   * Compiles every response serializer not compiled yet; answers how many it compiled. The server
   * does not (each compiles on its first use); test/app.test.ts does, to prove each schema compiles.
   */
  compileWaiting(): number;
}

/**
 * Fastify's own serializers (fast-json-stringify, with the schemas added to the app), each compiled on
 * its first use instead of when its route is registered.
 *
 * Why: compiling the response schemas of every route (and of the HEAD route Fastify adds beside each
 * GET) was about 140 ms of a 1,000 ms start on a slow 2-core VM, and the generated code stayed in memory
 * for routes nobody calls (docs/performance.md, "Start: schemas compiled on first use"). A serializer
 * costs a few milliseconds once, on its route's first answer with that status.
 */
export function createSerializerBuilder(): SerializerBuilder {
  const factory = SerializerSelector();
  const waiting = new CompileLater();
  return {
    buildSerializer(externalSchemas, options) {
      const compileNow = factory(externalSchemas, options);
      return (route) => {
        const compiled = waiting.later<Serializer>(() => compileNow(route));
        return (data: unknown) => compiled()(data);
      };
    },
    compileWaiting: () => waiting.compileWaiting(),
  };
}
