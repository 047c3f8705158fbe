import fc from 'fast-check';
import { FAKE_TMDB_MOVIES } from '../fake-tmdb.js';
import { encodePairs, formPairs, jsonBody, RAW_FORMS } from './encodings.js';
import { type CapturedRoute, pathParameters } from './routes.js';
import { type Hints, type JsonSchema, schemaArbitraries } from './schema-arbitrary.js';
import { encodedComponent, hasEncodedControl, oddString, routable } from './strings.js';
import type { HttpRequest, World } from './world.js';

export type Who = 'alice' | 'bob';

/** A generated API request, and what the generator knows about it (for the checks of the order of checks). */
export interface ApiCase {
  /** `METHOD /path/:param` of the route the request was made for. */
  route: string;
  /** The route takes a credential (its schema declares a security requirement). */
  secured: boolean;
  request: HttpRequest;
  /** Whose credential it carries; `none`: no usable one (missing, unknown, expired, revoked, both forms at once). */
  caller: Who | 'none';
  /** The user the path names. */
  owner: Who | 'unknown' | 'odd' | null;
  /**
   * It reaches the route: the route's own method, path parameters that are plain, well-formed text,
   * and no control character in the address (where that is refused is the app's choice).
   */
  routed: boolean;
}

/** A few calendar dates, so that writes meet the entries earlier writes made. */
export const DATE_POOL = ['2024-01-01', '2024-01-02', '2024-06-15', '2023-12-31', '2000-02-29'];

/** Domain values of the API's request fields: known movies, real TMDB ids of the fake, dates of the pool. */
export function apiHints(world: Pick<World, 'movieIds'>): Hints {
  const tmdbIds = FAKE_TMDB_MOVIES.map((movie) => movie.id);
  return (name, schema) => {
    const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
    if (schema.format === 'date') {
      const date = fc.constantFrom(...DATE_POOL);
      return types.includes('null') ? fc.oneof(date, fc.constant(null)) : date;
    }
    switch (name) {
      case 'serviceId':
        return fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...world.movieIds) }, fc.constant(999_999));
      case 'providerId':
        return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...tmdbIds) }, fc.constant(1));
      case 'plays':
        return fc.integer({ min: 1, max: 3 });
      case 'comment':
        return types.includes('null') || schema.anyOf ? fc.constantFrom('great', null, '') : undefined;
      case 'search':
        return fc.constantFrom('Test', 'movie', 'Ledger', '%', '_', 'Paper Comets');
      default:
        return undefined;
    }
  };
}

/** Credential headers: alice's or bob's token in either form, or something that authenticates nobody. */
export function credentials(
  world: World,
): fc.Arbitrary<{ headers: Record<string, string>; caller: Who | 'none' }> {
  const as = (caller: Who | 'none', headers: Record<string, string>) => fc.constant({ caller, headers });
  const { alice, bob } = world;
  return fc.oneof(
    { weight: 40, arbitrary: as('alice', { authorization: `Bearer ${alice.token}` }) },
    { weight: 3, arbitrary: as('alice', { 'x-service-token': alice.token }) },
    {
      weight: 1,
      arbitrary: as('alice', { authorization: 'Basic cHJveHk6cGFzcw==', 'x-service-token': alice.token }),
    },
    { weight: 1, arbitrary: as('alice', { authorization: `bearer   ${alice.token}  ` }) },
    { weight: 5, arbitrary: as('bob', { authorization: `Bearer ${bob.token}` }) },
    { weight: 2, arbitrary: as('none', {}) },
    {
      weight: 1,
      arbitrary: as('none', { authorization: `Bearer ${alice.token}`, 'x-service-token': alice.token }),
    },
    { weight: 1, arbitrary: as('none', { authorization: `Bearer ${world.expiredToken}` }) },
    { weight: 1, arbitrary: as('none', { authorization: `Bearer ${world.revokedToken}` }) },
    { weight: 1, arbitrary: as('none', { authorization: `Bearer ${alice.token.toUpperCase()}` }) },
    { weight: 1, arbitrary: as('none', { authorization: `Bearer ${alice.token}x` }) },
    { weight: 1, arbitrary: as('none', { authorization: 'Bearer' }) },
    { weight: 1, arbitrary: as('none', { authorization: `Basic ${alice.token}` }) },
    {
      weight: 1,
      arbitrary: fc
        .string({
          unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.~+/='),
          maxLength: 90,
        })
        .map((token) => ({ caller: 'none' as const, headers: { authorization: `Bearer ${token}` } })),
    },
  );
}

/** A value for a path parameter: the users for `username`, else what its schema allows and more. */
function pathParameter(
  world: World,
  name: string,
  schema: JsonSchema | undefined,
  hints: Hints,
): fc.Arbitrary<{ encoded: string; owner: ApiCase['owner']; wellFormed: boolean }> {
  const plain = (text: string, owner: ApiCase['owner']) =>
    fc.constant({ encoded: encodeURIComponent(text), owner, wellFormed: true });
  if (name === 'username') {
    return fc.oneof(
      { weight: 40, arbitrary: plain(world.alice.user.name, 'alice') },
      { weight: 8, arbitrary: plain(world.bob.user.name, 'bob') },
      { weight: 1, arbitrary: plain('ALICE', 'odd') },
      {
        weight: 2,
        arbitrary: fc
          .stringMatching(/^[a-z][a-z0-9]{0,20}$/)
          .filter((text) => text !== 'alice' && text !== 'bob')
          .chain((text) => plain(text, 'unknown')),
      },
      { weight: 1, arbitrary: plain('a'.repeat(100), 'unknown') },
      { weight: 1, arbitrary: plain('a'.repeat(101), 'unknown') },
      { weight: 1, arbitrary: plain('alice\u0000', 'odd') },
      {
        weight: 3,
        arbitrary: oddString.chain((text) =>
          encodedComponent(text).map(({ encoded, wellFormed }) => ({
            encoded,
            owner: 'odd' as const,
            wellFormed,
          })),
        ),
      },
    );
  }
  const generators = schemaArbitraries(hints);
  const value = schema?.properties?.[name];
  return (value ? generators.adversarial(value, name) : fc.string())
    .chain((text) => encodedComponent(typeof text === 'string' ? text : (JSON.stringify(text) ?? '')))
    .map(({ encoded, wellFormed }) => ({ encoded, owner: null, wellFormed }));
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** A request for one API route: credentials, path, query and body, each mostly valid and sometimes not. */
export function apiRequest(world: World, route: CapturedRoute): fc.Arbitrary<ApiCase> {
  const hints = apiHints(world);
  const generators = schemaArbitraries(hints);
  const schema = route.schema ?? {};
  const parameters = pathParameters(route.url);

  const path = fc
    .tuple(...parameters.map((name) => pathParameter(world, name, schema.params, hints)))
    .map((values) => {
      let url = route.url;
      parameters.forEach((name, index) => {
        url = url.replace(`:${name}`, values[index]!.encoded);
      });
      const username = parameters.indexOf('username');
      return {
        url,
        owner: username === -1 ? null : values[username]!.owner,
        wellFormed: values.every((value) => value.wellFormed && routable(value.encoded)),
      };
    });

  const query: fc.Arbitrary<string> = schema.querystring
    ? fc.oneof(
        {
          weight: 10,
          arbitrary: generators
            .adversarial(schema.querystring)
            .chain(formPairs)
            .chain(encodePairs)
            .map(({ text }) => text),
        },
        { weight: 2, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_FORMS) },
      )
    : fc.oneof({ weight: 8, arbitrary: fc.constant('') }, fc.constantFrom(...RAW_FORMS));

  const body = schema.body
    ? generators.adversarial(schema.body).chain(jsonBody)
    : fc.oneof(
        { weight: 8, arbitrary: fc.constant({ payload: undefined, contentType: undefined }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).chain(jsonBody) },
      );

  const method = fc.oneof(
    { weight: 30, arbitrary: fc.constant(route.method) },
    fc.constantFrom(...OTHER_METHODS),
  );

  return fc
    .record({ credential: credentials(world), path, query, body, method, address: ipAddress })
    .map(({ credential, path, query, body, method, address }) => {
      const headers: Record<string, string> = { ...credential.headers };
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      const request: HttpRequest = {
        method,
        url: `${path.url}${query === '' ? '' : `?${query}`}`,
        headers,
        remoteAddress: address,
        ...(body.payload !== undefined && { payload: body.payload }),
      };
      return {
        route: `${route.method} ${route.url}`,
        secured: route.schema?.security !== undefined,
        request,
        caller: credential.caller,
        owner: path.owner,
        routed: method === route.method && path.wellFormed && !hasEncodedControl(request.url),
      };
    });
}

/** A client address: most requests from a few, some from anywhere (limits count per address). */
export const ipAddress: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('127.0.0.1', '192.0.2.10', '198.51.100.7') },
  { weight: 2, arbitrary: fc.ipV4() },
);

/** Paths no route has, or that break the router, under /api and elsewhere. */
export const strayRequest: fc.Arbitrary<HttpRequest> = fc
  .record({
    prefix: fc.constantFrom(
      '/api/',
      '/api/users/',
      '/api/webhook/',
      '/docs/api/static/',
      '/assets/',
      '/',
      '/api/users/alice/',
    ),
    tail: fc.oneof(
      fc.constantFrom(
        '%ff',
        '%2e%2e/%2e%2e/package.json',
        '..%2f..%2f',
        '%00',
        'a'.repeat(120),
        'history/movies/extra',
        '%E6%BC%A2',
        '?',
        '#',
        '%25',
      ),
      oddString.chain((text) => encodedComponent(text)).map(({ encoded }) => encoded),
    ),
    method: fc.constantFrom('GET', 'POST', 'DELETE'),
    accept: fc.constantFrom('application/json', 'text/html', '*/*'),
  })
  .map(({ prefix, tail, method, accept }) => ({ method, url: `${prefix}${tail}`, headers: { accept } }));
