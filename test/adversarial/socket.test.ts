/**
 * Adversarial, property-based tests over a real socket, for what `app.inject` cannot send:
 * - credential headers: Node's HTTP parser keeps only the first of two `Authorization` headers. Any
 *   number of `Authorization` (Bearer, Basic, malformed) and `X-Service-Token` headers: no credential,
 *   or more than one, is the spec's 401; exactly one valid credential is that user;
 * - malformed HTTP: odd request lines, `Expect`, oversized, invalid and folded headers, conflicting
 *   framing. Whatever the parser or the server refuses is answered without a 5xx, and an error with
 *   a body is the envelope.
 * Seeded: `FC_SEED=<seed>` replays the run (test/adversarial/fc.ts, docs/testing.md).
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Answer, expectAnyAnswer, expectApiAnswer, expectStatus } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { createWorld, type World } from './world.js';

const CREDENTIAL_RUNS = 300;
const MALFORMED_RUNS = 200;

/**
 * Sends raw bytes over a new connection and reads the answer until the server closes it (interim
 * 1xx answers skipped). No answer at all (the connection closed or timed out first) is `statusCode`
 * NaN.
 */
function rawExchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on('data', (chunk) => chunks.push(chunk));
    // A reset after the answer, or instead of one: what was read is the answer.
    socket.on('error', () => {});
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('latin1'))));
    // Written, not ended: the server answers, then closes (Connection: close).
    socket.write(Buffer.from(request, 'latin1'));
  });
}

function parseAnswer(raw: string): Answer {
  let text = raw;
  while (/^HTTP\/1\.[01] 1\d\d/.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const split = text.indexOf('\r\n\r\n');
  if (split === -1) return { statusCode: Number.NaN, headers: {}, body: text };
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  // Only this answer's body: a request the server answered early may be followed by a second answer.
  const length = headers['content-length'];
  const rest = text.slice(split + 4);
  let body = Buffer.from(length === undefined ? rest : rest.slice(0, Number(length)), 'latin1').toString(
    'utf8',
  );
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** An HTTP/1.1 request, every header line exactly as given. */
const httpRequest = (method: string, path: string, headers: [string, string][]) =>
  [
    `${method} ${path} HTTP/1.1`,
    'Host: cinelog.test',
    'Connection: close',
    ...headers.map(([n, v]) => `${n}: ${v}`),
  ].join('\r\n') + '\r\n\r\n';

type Credential = { header: [string, string]; counts: boolean; user: 'alice' | 'bob' | null };

describe('adversarial: credential headers over a real socket', () => {
  let world: World;
  let port: number;
  beforeAll(async () => {
    announceSeed('credentials');
    world = await createWorld();
    await world.ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (world.ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await world.close();
  });

  it(
    'answers any set of credential headers with 401 unless it holds exactly one valid credential',
    async () => {
      const { alice, bob } = world;
      const bearer = (scheme: string, token: string, user: Credential['user']): Credential => ({
        header: ['Authorization', `${scheme} ${token}`.trimEnd()],
        counts: true,
        user,
      });
      const credential: fc.Arbitrary<Credential> = fc.oneof(
        { weight: 4, arbitrary: fc.constant(bearer('Bearer', alice.token, 'alice')) },
        { weight: 2, arbitrary: fc.constant(bearer('Bearer', bob.token, 'bob')) },
        { weight: 1, arbitrary: fc.constant(bearer('bearer', `  ${alice.token} `, 'alice')) },
        {
          weight: 1,
          arbitrary: fc.constant(bearer('Bearer', 'cinelog_unknown0000000000000000000000000000', null)),
        },
        { weight: 1, arbitrary: fc.constant(bearer('Bearer', world.revokedToken, null)) },
        { weight: 1, arbitrary: fc.constant(bearer('Bearer', '', null)) },
        {
          weight: 3,
          arbitrary: fc.constant<Credential>({
            header: ['X-Service-Token', alice.token],
            counts: true,
            user: 'alice',
          }),
        },
        {
          weight: 1,
          arbitrary: fc.constant<Credential>({
            header: ['x-service-token', bob.token],
            counts: true,
            user: 'bob',
          }),
        },
        {
          weight: 1,
          arbitrary: fc.constant<Credential>({
            header: ['X-Service-Token', 'nonsense'],
            counts: true,
            user: null,
          }),
        },
        // Not a credential of this service: a proxy's Basic authentication.
        {
          weight: 2,
          arbitrary: fc.constant<Credential>({
            header: ['Authorization', 'Basic cHJveHk6cGFzcw=='],
            counts: false,
            user: null,
          }),
        },
      );
      await checkProperty(
        'credential headers',
        fc.record({
          credentials: fc.array(credential, { maxLength: 3 }),
          path: fc.constantFrom('/api/authentication/token', '/api/users/alice/history/movies'),
        }),
        async ({ credentials, path }) => {
          const headers = credentials.map((c) => c.header);
          const answer = await rawExchange(port, httpRequest('GET', path, headers));
          const label = `GET ${path} ${JSON.stringify(headers)}`;
          expectApiAnswer(label, answer);
          const counted = credentials.filter((c) => c.counts);
          const authorizationHeaders = headers.filter(
            ([name]) => name.toLowerCase() === 'authorization',
          ).length;
          if (counted.length !== 1) return expectStatus(label, answer, 401);
          // One credential, but next to another Authorization header (Basic): no claim either way.
          if (authorizationHeaders > 1) return;
          const user = counted[0]!.user;
          if (user === null) return expectStatus(label, answer, 401);
          expectStatus(label, answer, 200);
          if (path === '/api/authentication/token' && !answer.body.includes(`"name":"${user}"`)) {
            throw new Error(
              `authenticated as someone else than ${user}\n  request: ${label}\n  answer: ${answer.body}`,
            );
          }
        },
        runs(CREDENTIAL_RUNS),
      );
    },
    timeoutFor(CREDENTIAL_RUNS, 50),
  );
  it(
    'answers malformed HTTP without a 5xx, an error with a body in the envelope',
    async () => {
      const { alice } = world;
      const requestLine = fc.constantFrom(
        'GET /api/authentication/token HTTP/1.1',
        'GET /api/users/alice/history/movies HTTP/1.1',
        'POST /api/users/alice/watchlist/movies HTTP/1.1',
        'POST /api/webhook/mediaserver-d/not-a-uuid HTTP/1.1',
        'GET /api/authentication/token HTTP/1.0',
        'GET /api/authentication/token HTTP/2.0',
        'GET /api/authentication/token HTTP/9.9',
        'GET /api/authentication/token',
        'FOO /api/authentication/token HTTP/1.1',
        'GET  /api/authentication/token  HTTP/1.1',
        'GET /api/auth\u0001entication/token HTTP/1.1',
        'GET /api/auth entication/token HTTP/1.1',
        'GET http://evil.example/api/authentication/token HTTP/1.1',
        'GET * HTTP/1.1',
        'GET /api/users/%ff/history/movies HTTP/1.1',
        `GET /api/${'a'.repeat(20_000)} HTTP/1.1`,
        'GET /login?next=/%09/evil.example HTTP/1.1',
      );
      const header = fc.constantFrom<[string, string]>(
        ['Authorization', `Bearer ${alice.token}`],
        ['Content-Type', 'application/json'],
        ['Expect', '100-continue'],
        ['Expect', 'something-else'],
        ['X-Big', 'x'.repeat(20_000)],
        ['X-Bad\u0001', '1'],
        ['X-Nul', 'a\u0000b'],
        ['X-Latin', '\u00ff\u00e9'],
        ['X-Folded', 'a\r\n b'],
        ['No colon here', ''],
        [' X-Leading-Space', '1'],
        ['Host', 'other.example'],
      );
      // How the body is framed: the usual way, or ways the parser must refuse (none waits for more bytes).
      const framing = fc.constantFrom<{ headers: [string, string][]; body: string }>(
        { headers: [], body: '' },
        { headers: [['Content-Length', '2']], body: '[]' },
        { headers: [['Content-Length', 'abc']], body: '[]' },
        { headers: [['Content-Length', '-1']], body: '' },
        {
          headers: [
            ['Content-Length', '2'],
            ['Content-Length', '3'],
          ],
          body: '[] ',
        },
        {
          headers: [
            ['Content-Length', '2'],
            ['Transfer-Encoding', 'chunked'],
          ],
          body: '0\r\n\r\n',
        },
        { headers: [['Transfer-Encoding', 'chunked']], body: '2\r\n[]\r\n0\r\n\r\n' },
        { headers: [['Transfer-Encoding', 'chunked']], body: 'zz\r\n\r\n' },
        { headers: [['Transfer-Encoding', 'gzip, chunked']], body: '0\r\n\r\n' },
      );
      await checkProperty(
        'malformed HTTP',
        fc.record({ requestLine, headers: fc.array(header, { maxLength: 3 }), framing }),
        async ({ requestLine, headers, framing }) => {
          const lines = [requestLine, 'Host: cinelog.test', 'Connection: close'];
          for (const [name, value] of [...headers, ...framing.headers]) lines.push(`${name}: ${value}`);
          const answer = await rawExchange(port, `${lines.join('\r\n')}\r\n\r\n${framing.body}`);
          // The connection closed without an answer: nothing to judge (the parser may just hang up).
          if (Number.isNaN(answer.statusCode)) return;
          expectAnyAnswer(
            JSON.stringify({ requestLine: requestLine.slice(0, 100), headers, framing }),
            answer,
          );
        },
        runs(MALFORMED_RUNS),
      );
    },
    timeoutFor(MALFORMED_RUNS, 100),
  );
});
