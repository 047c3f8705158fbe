import fc from 'fast-check';
import { oddString } from './strings.js';

/** A JSON schema as TypeBox writes it (plain JSON-schema keywords). */
export type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  [keyword: string]: unknown;
};

/**
 * Domain values for a property, by its name (`serviceId` -> the ids of movies that exist): without
 * them, a schema-valid value would almost never name anything real and the handler would rarely run
 * past its first lookup. Undefined: no hint, the schema alone decides.
 */
export type Hints = (name: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

const noHints: Hints = () => undefined;

/** A property name no schema declares, or one that reaches an object's prototype. */
const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'extra',
  '',
  ' ',
  'serviceId ',
  'ServiceId',
  '\u0000',
];

/** Calendar dates that are not, or barely are. */
const ODD_DATES = [
  '2023-02-29',
  '2023-02-30',
  '2024-02-30',
  '2024-04-31',
  '2024-13-01',
  '2024-00-10',
  '2024-01-00',
  '0000-01-01',
  '0000-00-00',
  '10000-01-01',
  '-2024-01-01',
  '+2024-01-01',
  '2024-1-1',
  '24-01-01',
  '2024/01/01',
  '20240101',
  '2024-01-01T00:00:00Z',
  '2024-01-01 ',
  ' 2024-01-01',
  '2024-01-01\u0000',
  '２０２４-０１-０１',
  '٢٠٢٤-٠١-٠١',
  'yesterday',
];
/** Real dates at the edges of the calendar. */
const EDGE_DATES = ['2024-02-29', '2000-02-29', '1970-01-01', '1900-01-01', '0001-01-01', '9999-12-31'];

const typesOf = (schema: JsonSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** `YYYY-MM-DD` of a random real date. */
export const calendarDate = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date')
    return fc.oneof({ weight: 4, arbitrary: calendarDate }, fc.constantFrom(...EDGE_DATES));
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  let base: fc.Arbitrary<string> = fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, maxLength) }),
    },
  );
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    try {
      base = fc
        .stringMatching(pattern)
        .filter((text) => text.length >= minLength && text.length <= maxLength);
    } catch {
      // A pattern fast-check cannot generate from (lookahead): plain text that happens to match it.
      base = base.filter((text) => pattern.test(text));
    }
  }
  if (schema.maxLength !== undefined && schema.maxLength >= minLength && schema.pattern === undefined) {
    // Exactly as long as allowed, in one-byte and in multi-byte characters.
    return fc.oneof(
      { weight: 8, arbitrary: base },
      fc.constant('a'.repeat(schema.maxLength)),
      fc.constant('é'.repeat(schema.maxLength)),
    );
  }
  return base;
}

function integerFor(schema: JsonSchema): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -(2 ** 31), Number.MIN_SAFE_INTEGER);
  const max = Math.min(schema.maximum ?? 2 ** 31 - 1, Number.MAX_SAFE_INTEGER);
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
    fc.constantFrom(min, max),
  );
}

function numberFor(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1e9;
  const max = schema.maximum ?? 1e9;
  return fc.oneof(
    { weight: 3, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
    { weight: 2, arbitrary: fc.integer({ min: Math.max(min, -100), max: Math.min(max, 100) }) },
    fc.constantFrom(min, max, 0, -0, 0.1 + 0.2, 5e-324),
  );
}

/** Values the schema allows (before hints). */
function validFor(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  const hinted = hints(name, schema);
  const plain = plainValidFor(schema, name, hints);
  return hinted === undefined
    ? plain
    : fc.oneof({ weight: 6, arbitrary: hinted }, { weight: 1, arbitrary: plain });
}

function plainValidFor(schema: JsonSchema, name: string, hints: Hints): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined) return fc.oneof(...branches.map((branch) => validFor(branch, name, hints)));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validFor({ ...schema, type }, name, hints)));
  switch (types[0]) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return integerFor(schema);
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validFor(schema.items ?? {}, name, hints), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'object':
      return objectOf(
        schema,
        (propertyName, propertySchema) => validFor(propertySchema, propertyName, hints),
        {
          dropRequired: false,
        },
      );
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(
  schema: JsonSchema,
  valueFor: (name: string, schema: JsonSchema) => fc.Arbitrary<unknown>,
  options: { dropRequired: boolean },
): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).map(([key, propertySchema]) => {
    const value = valueFor(key, propertySchema);
    const present = required.has(key) && !options.dropRequired;
    // `undefined` marks an absent property; an optional one is absent half of the time.
    const maybe = present
      ? value
      : fc.oneof(
          { weight: required.has(key) ? 12 : 1, arbitrary: value },
          { weight: 1, arbitrary: fc.constant(undefined) },
        );
    return fc.tuple(fc.constant(key), maybe);
  });
  return fc.tuple(...entries).map((pairs) => {
    const object: Record<string, unknown> = {};
    for (const [key, value] of pairs) if (value !== undefined) object[key] = value;
    return object;
  });
}

/** Values at and just past the schema's limits. */
function boundaryFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const values: unknown[] = [];
  if (types.includes('integer') || types.includes('number')) {
    const { minimum: min, maximum: max } = schema;
    values.push(
      0,
      -1,
      1.5,
      -0.5,
      2 ** 31 - 1,
      2 ** 31,
      -(2 ** 31),
      -(2 ** 31) - 1,
      2 ** 32,
      2 ** 53,
      2 ** 53 + 2,
    );
    values.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e21, 1e308, -1e308, 5e-324, 1e-7);
    if (min !== undefined) values.push(min, min - 1, min - 0.5, min - 1e-9);
    if (max !== undefined) values.push(max, max + 1, max + 0.5, max + 1e-9);
  }
  if (types.includes('string')) {
    const { minLength = 0, maxLength } = schema;
    values.push('', ' ', 'a');
    if (minLength > 0) values.push('a'.repeat(minLength - 1));
    if (maxLength !== undefined) {
      values.push(
        'a'.repeat(maxLength),
        'a'.repeat(maxLength + 1),
        '🎬'.repeat(maxLength),
        'é'.repeat(maxLength + 1),
      );
    }
    values.push('x'.repeat(100_000));
    if (schema.format === 'date') values.push(...ODD_DATES, ...EDGE_DATES);
    if (schema.pattern !== undefined) values.push('\u0000', 'a\u0000', ' \u0000 ');
  }
  if (schema.const !== undefined || schema.anyOf !== undefined) {
    const constants = [schema, ...(schema.anyOf ?? [])]
      .map((s) => s.const)
      .filter((c): c is string => typeof c === 'string');
    for (const constant of constants)
      values.push(constant.toUpperCase(), ` ${constant}`, `${constant}\u0000`, '');
  }
  if (values.length === 0) values.push(null, '', 0);
  return fc.constantFrom(...values);
}

/** A value of a JSON type the schema does not allow (or may allow, for a union: harmless). */
function wrongTypeFor(schema: JsonSchema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  return fc.oneof(
    fc.constantFrom<unknown>(null, true, false, 0, 1, -1, '', '1', 'true', [], {}, [null], [1], { '0': 1 }),
    // An array where a value is expected, an object wrapping it, the value as text.
    valid.map((value) => [value]),
    valid.map((value) => ({ value })),
    valid.map((value) => (types.includes('string') ? value : (JSON.stringify(value) ?? 'undefined'))),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

export interface SchemaArbitraries {
  /** Values the schema allows, preferring the hints' domain values. */
  valid(schema: JsonSchema, name?: string): fc.Arbitrary<unknown>;
  /**
   * Mostly-valid values with a mutation here and there at any depth: boundary values, wrong types,
   * odd strings, missing required and extra properties, arrays for objects and objects for arrays,
   * empty, long and very long arrays.
   */
  adversarial(schema: JsonSchema, name?: string): fc.Arbitrary<unknown>;
}

/**
 * Arbitraries for JSON schemas (TypeBox): the request schemas of the routes, so that a new route or a
 * changed schema is covered without a change here.
 */
export function schemaArbitraries(hints: Hints = noHints): SchemaArbitraries {
  const valid = (schema: JsonSchema, name = '') => validFor(schema, name, hints);

  const mutated = (schema: JsonSchema, name: string): fc.Arbitrary<unknown> =>
    fc.oneof(
      { weight: 14, arbitrary: structure(schema, name) },
      { weight: 1, arbitrary: boundaryFor(schema) },
      { weight: 1, arbitrary: wrongTypeFor(schema, valid(schema, name)) },
      { weight: 1, arbitrary: oddString },
      // A value that is fine but for one control character (NUL most often): it passes length limits
      // and reaches the handler.
      ...(typesOf(schema).includes('string')
        ? [{ weight: 3, arbitrary: withControlCharacter(valid(schema, name)) }]
        : []),
    );

  /** The node's own shape, with mutations possible in its children. */
  const structure = (schema: JsonSchema, name: string): fc.Arbitrary<unknown> => {
    const types = typesOf(schema);
    if (types.includes('object') && schema.properties !== undefined) {
      return fc.oneof(
        { weight: 10, arbitrary: objectOf(schema, (key, s) => mutated(s, key), { dropRequired: false }) },
        { weight: 1, arbitrary: objectOf(schema, (key, s) => mutated(s, key), { dropRequired: true }) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(
              objectOf(schema, (key, s) => valid(s, key), { dropRequired: false }),
              fc.constantFrom(...EXTRA_KEYS),
              fc.jsonValue({ maxDepth: 1 }),
            )
            .map(([object, key, value]) => {
              const copy = { ...object };
              Object.defineProperty(copy, key, {
                value,
                enumerable: true,
                configurable: true,
                writable: true,
              });
              return copy;
            }),
        },
      );
    }
    if (types.includes('array')) {
      const item = schema.items ?? {};
      const maxItems = schema.maxItems ?? 10_000;
      return fc.oneof(
        { weight: 80, arbitrary: fc.array(mutated(item, name), { maxLength: 5 }) },
        { weight: 5, arbitrary: fc.constant([]) },
        // Past the item limit: refused by the schema, however valid each item.
        {
          weight: 1,
          arbitrary: valid(item, name).map((value) => Array.from({ length: maxItems + 1 }, () => value)),
        },
        // Long enough that one item's largest count, repeated, sums past 2**31 (costly: rare, and only
        // for items that hold a count).
        ...(countMaxima(item).length === 0
          ? []
          : [
              {
                weight: 4,
                arbitrary: valid(item, name).map((value) => {
                  const length = Math.min(maxItems, overflowLength(item));
                  return Array.from({ length }, () => atMaximum(item, value));
                }),
              },
            ]),
      );
    }
    return valid(schema, name);
  };

  const adversarial = (schema: JsonSchema, name = '') =>
    fc.oneof({ weight: 3, arbitrary: valid(schema, name) }, { weight: 4, arbitrary: mutated(schema, name) });

  return { valid, adversarial };
}

/** The value (when it is text) with a NUL, or another control character, somewhere in it. */
const withControlCharacter = (value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      value,
      fc.nat(),
      fc.constantFrom('\u0000', '\u0000', '\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u2028'),
    )
    .map(([text, at, control]) => {
      if (typeof text !== 'string') return text;
      const index = at % (text.length + 1);
      return `${text.slice(0, index)}${control}${text.slice(index)}`;
    });

/** How many copies of an item make its largest integer maximum sum past a 32-bit integer. */
function overflowLength(item: JsonSchema): number {
  return Math.ceil(2 ** 31 / Math.max(1, ...countMaxima(item))) + 1;
}

/** The maxima of the counts in a schema: integers whose maximum is below 2**31 - 1 (ids are not counts). */
function countMaxima(schema: JsonSchema): number[] {
  const { maximum } = schema;
  const own =
    typesOf(schema).includes('integer') && maximum !== undefined && maximum < 2 ** 31 - 1 ? [maximum] : [];
  const nested = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.anyOf ?? []),
  ].flatMap(countMaxima);
  return [...own, ...nested];
}

/** The value with every count (an integer with a maximum below 2**31, so not an id) at its maximum. */
function atMaximum(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => atMaximum(schema.items ?? {}, item));
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, propertySchema] of Object.entries(schema.properties ?? {})) {
    const { maximum } = propertySchema;
    const isCount =
      typesOf(propertySchema).includes('integer') && maximum !== undefined && maximum < 2 ** 31 - 1;
    if (isCount) copy[key] = maximum;
    else if (key in copy) copy[key] = atMaximum(propertySchema, copy[key]);
  }
  return copy;
}
