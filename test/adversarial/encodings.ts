import fc from 'fast-check';
import { type EncodedText, encodedComponent, isWellFormed, oddString, percentEncode } from './strings.js';

/** JSON text of a value, `''` for undefined. */
export const jsonOf = (value: unknown) => JSON.stringify(value) ?? '';

/**
 * JSON text in which every object says its first key twice: first with `decoy`, then with its real
 * value (JSON.parse keeps the last; other parsers keep the first).
 */
export function jsonWithDuplicateKeys(value: unknown, decoy: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => jsonWithDuplicateKeys(item, decoy)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const parts = entries.map(
      ([key, item]) => `${JSON.stringify(key)}:${jsonWithDuplicateKeys(item, decoy)}`,
    );
    if (entries.length > 0) parts.unshift(`${JSON.stringify(entries[0]![0])}:${jsonOf(decoy) || 'null'}`);
    return `{${parts.join(',')}}`;
  }
  return jsonOf(value) || 'null';
}

/** Text that is not JSON, or JSON that JavaScript reads oddly, built from a value's JSON. */
export const malformedJson = (value: unknown): fc.Arbitrary<string> => {
  const text = jsonOf(value) || '{}';
  return fc.oneof(
    fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut)),
    fc.constantFrom(
      `${text}garbage`,
      `${text},`,
      `\uFEFF${text}`,
      `${text}\u0000`,
      text.replaceAll('"', "'"),
      text.replace(/:(\s*)(-?\d+(\.\d+)?)/, ':$1NaN'),
      text.replace(/:(\s*)(-?\d+(\.\d+)?)/, ':$11e999'),
      text.replace(/:(\s*)(-?\d+(\.\d+)?)/, ':$1-1e999'),
      text.replace(/:(\s*)(-?\d+(\.\d+)?)/, ':$10x10'),
      text.replace(/:(\s*)(-?\d+(\.\d+)?)/, ':$1123456789012345678901234567890'),
      text.replace(/\]$/, ',]'),
      `/* comment */${text}`,
      '',
      ' ',
      'null',
      'true',
      '"text"',
      '0',
      '{',
      '[',
      '[[[[[[[[[[',
      `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
      `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`,
      '{"__proto__":{"isAdmin":true}}',
      '[{"constructor":{"prototype":{"polluted":1}}}]',
      '\u0000',
      '\ud800',
    ),
    oddString,
  );
};

export const CONTENT_TYPES = {
  jsonVariants: [
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'Application/JSON',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; boundary=x',
    'application/vnd.api+json',
    'application/json-patch+json',
  ],
  other: [
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'application/xml',
    'application/octet-stream',
    'image/jpeg',
    '*/*',
    'garbage',
    ';',
    'application/',
  ],
};

/** A JSON request body: mostly as a client sends it, else with an odd type, malformed, or duplicated keys. */
export const jsonBody = (
  value: unknown,
): fc.Arbitrary<{ payload: string | undefined; contentType: string | undefined }> =>
  fc.oneof(
    { weight: 14, arbitrary: fc.constant({ payload: jsonOf(value), contentType: 'application/json' }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...CONTENT_TYPES.jsonVariants)
        .map((contentType) => ({ payload: jsonOf(value), contentType })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...CONTENT_TYPES.other)
        .map((contentType) => ({ payload: jsonOf(value), contentType })),
    },
    { weight: 1, arbitrary: fc.constant({ payload: jsonOf(value), contentType: undefined }) },
    {
      weight: 3,
      arbitrary: malformedJson(value).map((payload) => ({ payload, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 1 })
        .map((decoy) => ({ payload: jsonWithDuplicateKeys(value, decoy), contentType: 'application/json' })),
    },
    { weight: 1, arbitrary: fc.constant({ payload: undefined, contentType: 'application/json' }) },
  );

/** `key=value` pairs of a query string or a form, from a value the schema generators made. */
export function formPairs(value: unknown): fc.Arbitrary<[string, string][]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    // Not an object at all: the value as one odd field, or as a bare word.
    return fc.constant([[textOf(value), '']]);
  }
  const pairs = Object.entries(value as Record<string, unknown>).flatMap(
    ([key, item]): fc.Arbitrary<[string, string][]>[] => {
      if (Array.isArray(item)) {
        // An array: the key repeated (the way forms and query strings send one), or with brackets.
        return [
          fc.oneof(
            fc.constant(item.map((element): [string, string] => [key, textOf(element)])),
            fc.constant(item.map((element): [string, string] => [`${key}[]`, textOf(element)])),
          ),
        ];
      }
      if (item !== null && typeof item === 'object') {
        return [
          fc.constant(
            Object.entries(item).map(([inner, element]): [string, string] => [
              `${key}[${inner}]`,
              textOf(element),
            ]),
          ),
        ];
      }
      return [fc.constant([[key, textOf(item)]] as [string, string][])];
    },
  );
  return fc.tuple(...pairs).map((groups) => groups.flat());
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Encodes pairs as `a=1&b=2`, percent-encoding each part, and now and then leaving a raw escape in a
 * value (rarely in a key, so that most forms still name their fields).
 */
export const encodePairs = (
  pairs: [string, string][],
): fc.Arbitrary<{ text: string; wellFormed: boolean }> => {
  if (pairs.length === 0) return fc.constant({ text: '', wellFormed: true });
  const plain = (text: string) =>
    fc.constant({ encoded: percentEncode(text), wellFormed: isWellFormed(text) });
  return fc
    .tuple(
      ...pairs.map(([key, value]) =>
        fc.tuple(
          fc.oneof({ weight: 30, arbitrary: plain(key) }, encodedComponent(key)),
          fc.oneof({ weight: 10, arbitrary: plain(value) }, encodedComponent(value)),
        ),
      ),
    )
    .map((encoded: [EncodedText, EncodedText][]) => ({
      text: encoded.map(([key, value]) => `${key.encoded}=${value.encoded}`).join('&'),
      wellFormed: encoded.every(([key, value]) => key.wellFormed && value.wellFormed),
    }));
};

/** Raw query strings and form bodies no encoder makes. */
export const RAW_FORMS = [
  '%ff',
  '%',
  '%%%&&&=',
  '&&&',
  '=',
  '==',
  'a',
  'a=%zz',
  'a=%00',
  'a=%c3%28',
  'a=1&a=2&a=3',
  'a[b][c][d][e][f]=1',
  '__proto__[isAdmin]=1',
  'constructor[prototype][x]=1',
  `${'a=1&'.repeat(2_000)}b=2`,
  `a=${'x'.repeat(20_000)}`,
];
