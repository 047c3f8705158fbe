import fc from 'fast-check';
import { TEST_PASSWORD } from '../web-client.js';
import { ipAddress } from './api-requests.js';
import { encodePairs, formPairs, jsonOf, RAW_FORMS } from './encodings.js';
import { type CapturedRoute, pathParameters } from './routes.js';
import { type Hints, type JsonSchema, schemaArbitraries } from './schema-arbitrary.js';
import { encodedComponent, hasEncodedControl, oddString, routable } from './strings.js';
import type { HttpRequest } from './world.js';

/** The browsers the forms are sent from: nobody signed in, alice (an administrator), bob. */
export type BrowserName = 'anonymous' | 'alice' | 'bob';

/** A generated page request, and what the generator knows about it. */
export interface FormCase {
  route: string;
  browser: BrowserName;
  /** The CSRF token sent: the browser's own, none, or one that is not its own. */
  csrf: 'valid' | 'missing' | 'wrong';
  /**
   * The path reaches the route and the body is a urlencoded form the parser reads, with no control
   * character (where that is refused is the app's choice): the CSRF check is reached.
   */
  readable: boolean;
  /** Filled in by the test from the browser's cookies and token. */
  request: Omit<HttpRequest, 'cookies'>;
}

/** Links to follow after signing in that lead off the site, as a browser reads them. */
export const OFF_SITE_NEXT = [
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\t\\evil.example',
  'http://evil.example/',
  'https:evil.example',
  'javascript:alert(1)',
];

/** Other links: safe ones, escapes, characters a Location header cannot carry. */
export const OTHER_NEXT = [
  '/',
  '/settings/tokens',
  '/settings/tokens?x=1#top',
  '/ /evil.example',
  '/%09/evil.example',
  '/%2F%2Fevil.example',
  '/漢字',
  '/%E6%BC%A2',
  '/\u0000',
  '/\u007f',
  '/\u00ff',
  '/a\r\nSet-Cookie: x=1',
  '',
  'settings',
];

/** Domain values of the forms' fields, by name: the users' real names and passwords now and then. */
export function formHints(tokenIds: number[]): Hints {
  return (name) => {
    switch (name) {
      case 'login':
        return fc.constantFrom(
          'alice',
          'ALICE',
          'alice@example.test',
          ' alice ',
          'bob',
          'nobody',
          'alice\u0000',
        );
      case 'password':
      case 'current':
      case 'passwordConfirm':
        return fc.constantFrom(TEST_PASSWORD, 'wrong password', 'short', 'a new long passphrase', '');
      case 'remember':
      case 'isAdmin':
      case 'watches':
      case 'ratings':
        return fc.constantFrom('on', '', 'off');
      case 'next':
        return fc.oneof(
          { weight: 2, arbitrary: fc.constantFrom(...OFF_SITE_NEXT) },
          { weight: 2, arbitrary: fc.constantFrom(...OTHER_NEXT) },
          { weight: 1, arbitrary: oddString.map((text) => `/${text}`) },
        );
      case 'email':
        return fc.oneof(
          fc.constantFrom(
            'alice@example.test',
            'bob@example.test',
            'not-an-address',
            'a@b',
            ' CAROL@Example.test ',
          ),
          fc.stringMatching(/^[a-z]{1,8}$/).map((local) => `${local}@example.test`),
        );
      case 'timezone':
        return fc.constantFrom('UTC', 'Europe/Berlin', 'US/Eastern', 'Mars/Olympus', 'utc', '');
      case 'privacy':
        return fc.constantFrom('private', 'users', 'public', '');
      case 'name':
        return fc.oneof(
          fc.constantFrom('laptop', 'alice', 'bob', 'new.user', '-dash', 'a'.repeat(65), 'a'.repeat(101)),
          fc.stringMatching(/^[a-z][a-z0-9._-]{0,10}$/),
        );
      case 'expiry':
        return fc.constantFrom('30', '90', '365', 'never', '7', '');
      case 'accounts':
        return fc.constantFrom('alice, Partner ,alice', '', 'x'.repeat(300));
      case 'id':
        return fc.constantFrom(...tokenIds.map(String), '0', '999999999', '1e3');
      case 'token':
        return fc.oneof(
          fc.string({
            unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'),
            minLength: 43,
            maxLength: 43,
          }),
          fc.constant(''),
        );
      default:
        return undefined;
    }
  };
}

/** The routes of the web app the form property sends to: forms (POST) and pages with a schema. */
export const isFormTarget = (route: CapturedRoute) =>
  !route.url.startsWith('/api/') &&
  !route.url.startsWith('/docs/') &&
  (route.method === 'POST' ||
    (route.method === 'GET' &&
      (route.schema?.querystring !== undefined || route.schema?.params !== undefined)));

/**
 * A request to a page or form: the fields its body schema names (mostly valid, sometimes not), a CSRF
 * token (mostly the browser's own), a body in the form encoding (mostly) or another.
 */
export function formRequest(route: CapturedRoute, hints: Hints): fc.Arbitrary<FormCase> {
  const generators = schemaArbitraries(hints);
  const schema = route.schema ?? {};
  const parameters = pathParameters(route.url);
  const path = fc
    .tuple(
      ...parameters.map((name) => {
        const value = schema.params?.properties?.[name] as JsonSchema | undefined;
        return (value ? generators.adversarial(value, name) : oddString).chain((text) =>
          encodedComponent(typeof text === 'string' ? text : jsonOf(text)),
        );
      }),
    )
    .map((values) => ({
      url: parameters.reduce(
        (url, name, index) => url.replace(`:${name}`, values[index]!.encoded),
        route.url,
      ),
      wellFormed: values.every((value) => value.wellFormed && routable(value.encoded)),
    }));

  const fields: fc.Arbitrary<unknown> = schema.body
    ? fc
        .tuple(generators.adversarial(schema.body), fc.boolean())
        .map(([value, same]) => confirmed(value, same))
    : fc.oneof(
        { weight: 4, arbitrary: fc.constant({}) },
        fc.dictionary(fc.string({ maxLength: 5 }), fc.string()),
      );
  const query = schema.querystring
    ? generators
        .adversarial(schema.querystring)
        .chain(formPairs)
        .chain(encodePairs)
        .map(({ text }) => text)
    : fc.constant('');

  const csrf = fc.oneof(
    { weight: 14, arbitrary: fc.constant('valid' as const) },
    fc.constant('missing' as const),
    fc.constant('wrong' as const),
  );

  const browser = fc.oneof(
    { weight: 2, arbitrary: fc.constant('anonymous' as const) },
    { weight: 6, arbitrary: fc.constant('alice' as const) },
    { weight: 3, arbitrary: fc.constant('bob' as const) },
  );

  const encoding = fc.oneof(
    { weight: 14, arbitrary: fc.constant('urlencoded' as const) },
    { weight: 2, arbitrary: fc.constant('json' as const) },
    fc.constant('raw' as const),
    fc.constant('multipart' as const),
    fc.constant('text' as const),
    fc.constant('none' as const),
  );

  return fc
    .record({
      path,
      fields: fields.chain((value) => fc.tuple(fc.constant(value), formPairs(value))),
      query,
      csrf,
      browser,
      encoding,
      address: ipAddress,
      raw: fc.constantFrom(...RAW_FORMS),
    })
    .chain(({ path, fields: [value, pairs], query, csrf, browser, encoding, address, raw }) => {
      // The `_csrf` field is filled in when the request is sent (the token is the browser's): CSRF marks it.
      return encodePairs(pairs).map((encoded) => {
        const form = {
          text:
            csrf === 'missing'
              ? encoded.text
              : `_csrf=${CSRF}${encoded.text === '' ? '' : `&${encoded.text}`}`,
          wellFormed: encoded.wellFormed,
        };
        const headers: Record<string, string> = { accept: 'text/html' };
        let payload: string | undefined;
        let readable = false;
        if (route.method !== 'GET') {
          switch (encoding) {
            case 'urlencoded':
              headers['content-type'] = 'application/x-www-form-urlencoded';
              payload = form.text;
              readable = form.wellFormed && path.wellFormed && !hasEncodedControl(`${path.url}?${form.text}`);
              break;
            case 'json':
              headers['content-type'] = 'application/json';
              payload = jsonOf(
                csrf === 'missing' || value === null || typeof value !== 'object' || Array.isArray(value)
                  ? value
                  : { _csrf: CSRF, ...value },
              );
              break;
            case 'raw':
              headers['content-type'] = 'application/x-www-form-urlencoded';
              payload = csrf === 'missing' ? raw : `${raw}&_csrf=${CSRF}`;
              break;
            case 'multipart':
              headers['content-type'] = 'multipart/form-data; boundary=x';
              payload = `--x\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${CSRF}\r\n--x--\r\n`;
              break;
            case 'text':
              headers['content-type'] = 'text/plain';
              payload = form.text;
              break;
            case 'none':
              payload = form.text;
              break;
          }
        }
        return {
          route: `${route.method} ${route.url}`,
          browser,
          csrf,
          readable,
          request: {
            method: route.method,
            url: `${path.url}${query === '' ? '' : `?${query}`}`,
            headers,
            remoteAddress: address,
            ...(payload !== undefined && { payload }),
          },
        };
      });
    });
}

/** A form whose password is typed twice gets the same one twice, half of the time: the handler runs on. */
function confirmed(value: unknown, same: boolean): unknown {
  if (!same || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const form = value as Record<string, unknown>;
  return 'password' in form && 'passwordConfirm' in form ? { ...form, passwordConfirm: form.password } : form;
}

/** Stands for the browser's CSRF token in a generated body; the test puts the real one in its place. */
export const CSRF = 'CSRFTOKENPLACEHOLDER';
