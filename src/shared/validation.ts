import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Bodies are JSON and validated strictly: `"5"` is not an integer. Query strings and path
 * parameters are text, so they are coerced to the types their schemas declare.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const strict = addFormats(
    new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false }),
  );
  const coercing = addFormats(
    new Ajv({
      coerceTypes: 'array',
      useDefaults: true,
      removeAdditional: true,
      allErrors: false,
      strict: false,
    }),
  );
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema);
}
