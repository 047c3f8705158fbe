import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { MEDIA_SERVERS, type MediaServer } from '../../src/modules/scrobble/media-servers.js';
import { fixtureText } from '../fixtures/webhooks/inputs.js';
import { ipAddress } from './api-requests.js';
import { CONTENT_TYPES, jsonOf, malformedJson } from './encodings.js';
import type { CapturedRoute } from './routes.js';
import { encodedComponent, oddString, percentEncode } from './strings.js';
import type { HttpRequest, World } from './world.js';

/** The real payload shapes (test/fixtures/webhooks), by the media server that sends them. */
export function webhookFixtures(): Record<MediaServer, Record<string, unknown>[]> {
  const files = readdirSync(new URL('../fixtures/webhooks/', import.meta.url)).filter((name) =>
    name.endsWith('.json'),
  );
  const byServer: Record<MediaServer, Record<string, unknown>[]> = {
    plex: [],
    jellyfin: [],
    emby: [],
    kodi: [],
  };
  for (const file of files) {
    const server = (Object.keys(byServer) as MediaServer[]).find((name) => file.startsWith(`${name}-`));
    if (server) byServer[server].push(JSON.parse(fixtureText(file)) as Record<string, unknown>);
  }
  for (const [server, fixtures] of Object.entries(byServer)) {
    if (fixtures.length === 0) throw new Error(`no webhook fixture of ${server}`);
  }
  return byServer;
}

/** TMDB ids the fixtures name, so that the fake TMDB can know them and reports get counted. */
export function fixtureTmdbIds(): number[] {
  const files = readdirSync(new URL('../fixtures/webhooks/', import.meta.url)).filter((name) =>
    name.endsWith('.json'),
  );
  const ids = new Set<number>();
  for (const file of files) {
    const text = fixtureText(file);
    for (const match of text.matchAll(
      /(?:tmdb:\/\/|themoviedb:\/\/|"(?:tmdbId|Provider_tmdb|Tmdb)"\s*:\s*"?)(\d+)/g,
    )) {
      ids.add(Number(match[1]));
    }
  }
  return [...ids];
}

const serverOf = (route: CapturedRoute): MediaServer => {
  const entry = Object.entries(MEDIA_SERVERS).find(([, server]) => route.url.includes(`/${server.segment}/`));
  if (!entry) throw new Error(`no media server for ${route.url}`);
  return entry[0] as MediaServer;
};

/** A generated webhook request, and whose webhook its UUID names. */
export interface WebhookCase {
  route: string;
  request: HttpRequest;
  /** `known`: a webhook of this server; `unknown`: a well-formed path naming none (must be a 404); `odd`: anything else. */
  uuid: 'known' | 'unknown' | 'odd';
}

/** Values a report's fields get in place of their own: odd text, numbers at the edges, ids, times. */
const replacement: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      2 ** 31,
      2 ** 53,
      1e308,
      -1e308,
      '',
      [],
      {},
      [{}],
      '710001',
      710001,
      ' 710003 ',
      'tmdb://710002',
      'imdb://tt9710004',
      'tt9710006',
      'TT9710001',
      'plex://movie/000',
      'com.plexapp.agents.themoviedb://710005?lang=en',
      '0001-01-01T00:00:00.0000000Z',
      '1970-01-01T00:00:00Z',
      '9999-12-31T23:59:59.9999999+14:00',
      '2024-02-30T10:00:00Z',
      '2024-03-10T25:61:61Z',
      '2024-03-10T09:15:00.1234567891234+01:00',
      1e12,
      -1,
      'media.scrobble',
      'media.rate',
      'PlaybackStop',
      'playback.stop',
      'item.markplayed',
      'Movie',
      'movie',
      'Episode',
      'True',
      'false',
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** Every path to a value in a JSON document (the root excluded). */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => [
      [...prefix, key],
      ...pathsOf(item, [...prefix, key]),
    ]);
  }
  return [];
}

/** A copy of the document with the value at `path` replaced (or deleted when `value` is undefined). */
function setAt(document: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(document)) {
    const copy = [...document];
    if (rest.length === 0 && value === undefined) copy.splice(head as number, 1);
    else copy[head as number] = setAt(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(document as Record<string, unknown>) };
  if (rest.length === 0 && value === undefined) delete copy[head as string];
  else copy[head as string] = setAt(copy[head as string], rest, value);
  return copy;
}

/** A real report with up to three of its values replaced, deleted, or wrapped in an array. */
const mutatedReport = (report: Record<string, unknown>): fc.Arbitrary<unknown> => {
  const paths = pathsOf(report);
  const mutation = fc.record({
    at: fc.nat({ max: Math.max(0, paths.length - 1) }),
    op: fc.oneof(
      { weight: 4, arbitrary: replacement.map((value) => ({ set: value })) },
      { weight: 1, arbitrary: fc.constant({ set: undefined }) },
      { weight: 1, arbitrary: fc.constant({ wrap: true }) },
    ),
  });
  return fc.array(mutation, { maxLength: 3 }).map((mutations) => {
    let document: unknown = report;
    for (const { at, op } of mutations) {
      const path = paths[at];
      if (!path) continue;
      const current = pathsOf(document).some((p) => p.join('\u0001') === path.join('\u0001'));
      if (!current) continue;
      if ('wrap' in op) {
        const old = path.reduce<unknown>(
          (node, key) => (node as Record<string | number, unknown>)[key],
          document,
        );
        document = setAt(document, path, [old]);
      } else {
        document = setAt(document, path, op.set);
      }
    }
    return document;
  });
};

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body, as curl or Plex write one. */
export function multipartBody(
  parts: Part[],
  boundary = '------------------------cinelogFuzzBoundary',
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.contentType === undefined ? '' : `\r\nContent-Type: ${part.contentType}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
const BOUNDARY = '------------------------cinelogFuzzBoundary';

type Body = { payload: string | Buffer | undefined; contentType: string | undefined };

/** A report in the body formats the servers use (and the ones they do not). */
function encodedReport(server: MediaServer, report: unknown): fc.Arbitrary<Body> {
  const json = jsonOf(report);
  const field = server === 'plex' ? 'payload' : server === 'emby' ? 'data' : 'payload';
  const multipart = (parts: Part[]): Body => ({
    payload: multipartBody(parts, BOUNDARY),
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  });
  const natural: fc.Arbitrary<Body> =
    server === 'plex' || server === 'emby'
      ? fc.oneof(
          fc.constant(multipart([{ name: field, value: json, contentType: 'application/json' }])),
          fc.constant(
            multipart([
              { name: field, value: json },
              { name: 'thumb', value: JPEG, filename: 'image.jpg', contentType: 'image/jpeg' },
            ]),
          ),
        )
      : fc.constantFrom<Body>(
          { payload: json, contentType: 'text/plain; charset=utf-8' },
          { payload: json, contentType: 'application/json' },
        );
  const contentType = fc.constantFrom(
    undefined,
    'application/json',
    'text/plain',
    ...CONTENT_TYPES.jsonVariants,
    ...CONTENT_TYPES.other,
  );
  return fc.oneof(
    { weight: 10, arbitrary: natural },
    {
      weight: 2,
      arbitrary: fc.constant({
        payload: `${field}=${percentEncode(json)}`,
        contentType: 'application/x-www-form-urlencoded',
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        payload: `${field}=${json}`,
        contentType: 'application/x-www-form-urlencoded',
      }),
    },
    { weight: 2, arbitrary: contentType.map((type) => ({ payload: json, contentType: type })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(malformedJson(report), contentType)
        .map(([payload, type]) => ({ payload, contentType: type })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(malformedJson(report), fc.constantFrom('payload', 'data', 'other', ''))
        .map(([value, name]) => multipart([{ name, value, contentType: 'application/json' }])),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.uint8Array({ maxLength: 300 }), contentType)
        .map(([bytes, type]) => ({ payload: Buffer.from(bytes), contentType: type })),
    },
    { weight: 1, arbitrary: contentType.map((type) => ({ payload: undefined, contentType: type })) },
    { weight: 2, arbitrary: brokenMultipart(json) },
  );
}

/** Multipart bodies that are not: no boundary, another boundary, cut short, too many fields or files. */
const brokenMultipart = (json: string): fc.Arbitrary<Body> => {
  const good = multipartBody([{ name: 'payload', value: json }], BOUNDARY);
  return fc.oneof(
    fc.constant({ payload: good, contentType: 'multipart/form-data' }),
    fc.constant({ payload: good, contentType: 'multipart/form-data; boundary=other' }),
    fc.constant({ payload: good, contentType: `multipart/form-data; boundary="${BOUNDARY}` }),
    fc.nat({ max: good.length }).map((cut) => ({
      payload: good.subarray(0, cut),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    })),
    fc.constant({
      payload: multipartBody(
        Array.from({ length: 101 }, (_, index) => ({ name: `f${index}`, value: 'x' })),
        BOUNDARY,
      ),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    }),
    fc.constant({
      payload: multipartBody(
        Array.from({ length: 5 }, (_, index) => ({
          name: `file${index}`,
          value: JPEG,
          filename: `${index}.jpg`,
        })),
        BOUNDARY,
      ),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    }),
    fc.constant({
      payload: multipartBody(
        [
          { name: 'payload', value: json },
          { name: 'payload', value: '{}' },
        ],
        BOUNDARY,
      ),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    }),
    fc.constant({
      payload: multipartBody(
        [
          { name: '\u0000', value: json },
          { name: 'payload\u0000', value: `${json}\u0000` },
        ],
        BOUNDARY,
      ),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    }),
  );
};

/** A request to one of the webhook routes: a real or unknown UUID, a real report mutated and encoded. */
export function webhookRequest(
  world: World,
  route: CapturedRoute,
  fixtures: Record<MediaServer, Record<string, unknown>[]>,
): fc.Arbitrary<WebhookCase> {
  const server = serverOf(route);
  const own = world.webhooks.alice[server]!;
  const others = Object.entries(world.webhooks.alice)
    .filter(([name]) => name !== server)
    .map(([, uuid]) => uuid);
  const known = (uuid: string) => fc.constant({ encoded: uuid, kind: 'known' as const });
  const unknown = (uuid: string) => fc.constant({ encoded: uuid, kind: 'unknown' as const });
  const uuid = fc.oneof(
    { weight: 20, arbitrary: known(own) },
    ...(server === 'plex' && world.webhooks.bob.plex
      ? [{ weight: 2, arbitrary: known(world.webhooks.bob.plex) }]
      : []),
    { weight: 2, arbitrary: fc.constantFrom(...others).chain(unknown) },
    { weight: 3, arbitrary: fc.uuid().chain(unknown) },
    { weight: 1, arbitrary: unknown('not-a-uuid') },
    { weight: 1, arbitrary: fc.constant({ encoded: own.toUpperCase(), kind: 'odd' as const }) },
    { weight: 1, arbitrary: fc.constant({ encoded: `${own}%00`, kind: 'odd' as const }) },
    {
      weight: 2,
      arbitrary: oddString.chain(encodedComponent).map(({ encoded }) => ({ encoded, kind: 'odd' as const })),
    },
  );
  const report = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...fixtures[server]) },
    { weight: 1, arbitrary: fc.constantFrom(...Object.values(fixtures).flat()) },
  );
  return fc
    .record({
      uuid,
      body: report.chain(mutatedReport).chain((mutated) => encodedReport(server, mutated)),
      address: ipAddress,
      userAgent: fc.constantFrom(
        undefined,
        'PlexMediaServer/1.32.5.7328-2632c9d3a',
        'Jellyfin-Server/10.8.10',
        '\u00ff',
      ),
    })
    .map(({ uuid, body, address, userAgent }) => {
      const headers: Record<string, string> = {};
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      if (userAgent !== undefined) headers['user-agent'] = userAgent;
      return {
        route: `${route.method} ${route.url}`,
        uuid: uuid.kind,
        request: {
          method: 'POST',
          url: route.url.replace(':uuid', uuid.encoded),
          headers,
          remoteAddress: address,
          ...(body.payload !== undefined && { payload: body.payload }),
        },
      };
    });
}
