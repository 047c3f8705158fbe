import { _, Ajv, type KeywordCxt, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { CompileLater } from './compile-later.js';

// ajv-formats ships CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Fastify's validator compiler, whose validators compile on first use or in `compileWaiting`. */
export interface ValidatorCompiler extends FastifySchemaCompiler<FastifySchema> {
  /**
   * Compiles every validator not compiled yet; answers how many it compiled. The server does not
   * (each compiles on its first use: compiled ahead they hold about 10 MB at rest); test/app.test.ts
   * does, to prove each schema compiles.
   */
  compileWaiting(): number;
}

/**
 * Bodies are JSON and validated strictly: `"5"` is not an integer. Query strings and path
 * parameters are text, so they are coerced to the types their schemas declare. Every string of
 * every request schema refuses the NUL character (see `withoutNul`).
 *
 * A validator compiles on its first use, not when its route is registered: compiling all of them
 * (about 500 ms on a small host) would otherwise come before the server's first answer.
 */
export function createValidatorCompiler(): ValidatorCompiler {
  // Made at the first compile too (each adds and compiles the meta-schemas: about 10 ms of a start).
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  const ajvFor = (httpPart: string | undefined): Ajv => {
    if (httpPart === 'body') {
      strict ??= withNoNulKeyword(
        addFormats(new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false })),
      );
      return strict;
    }
    coercing ??= withNoNulKeyword(
      addFormats(
        new Ajv({
          coerceTypes: 'array',
          useDefaults: true,
          removeAdditional: true,
          allErrors: false,
          strict: false,
        }),
      ),
    );
    return coercing;
  };
  const waiting = new CompileLater();
  const compiler = (({ schema, httpPart }) => {
    const compiled = waiting.later(() => ajvFor(httpPart).compile(withoutNul(schema) as object));
    // Fastify reads `errors` off the function it was given, after a false answer.
    const validate = (data: unknown) => {
      const run = compiled();
      const valid = run(data);
      validate.errors = run.errors;
      return valid;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  }) as ValidatorCompiler;
  compiler.compileWaiting = () => waiting.compileWaiting();
  return compiler;
}

/** `noNul: true`: the string holds no U+0000. One `indexOf` per string. */
function withNoNulKeyword(ajv: Ajv): Ajv {
  return ajv.addKeyword({
    keyword: 'noNul',
    type: 'string',
    schemaType: 'boolean',
    error: { message: 'must not contain the NUL character (U+0000)' },
    code(cxt: KeywordCxt) {
      if (cxt.schema === true) cxt.fail(_`${cxt.data}.indexOf("\\u0000") !== -1`);
    },
  });
}

type SchemaNode = Record<string, unknown>;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const;

/**
 * A copy of a request schema in which every string refuses the NUL character. Text with NUL is a 400
 * everywhere, on both engines (PostgreSQL cannot store it; SQLite would): decided once, here at the
 * boundary, so no field can forget it.
 */
export function withoutNul(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const node = schema as SchemaNode;
  const copy: SchemaNode = { ...node };
  const { type } = node;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) copy.noNul = true;
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) copy[key] = list.map(withoutNul);
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (map !== null && typeof map === 'object') {
      copy[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, withoutNul(sub)]));
    }
  }
  for (const key of SUBSCHEMAS) {
    if (key in node)
      copy[key] = Array.isArray(node[key]) ? (node[key] as unknown[]).map(withoutNul) : withoutNul(node[key]);
  }
  return copy;
}
