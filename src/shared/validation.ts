import { _, Ajv, type KeywordCxt } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Bodies are JSON and validated strictly: `"5"` is not an integer. Query strings and path
 * parameters are text, so they are coerced to the types their schemas declare. Every string of
 * every request schema refuses the NUL character (see `withoutNul`).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const strict = withNoNulKeyword(
    addFormats(new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false })),
  );
  const coercing = withNoNulKeyword(
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
  return ({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(withoutNul(schema) as object);
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
