/**
 * Adversarial, property-based test of the credential headers, over a real socket: Node's HTTP parser
 * keeps only the first of two `Authorization` headers, which `app.inject` cannot show. Any number of
 * `Authorization` (Bearer, Basic, malformed) and `X-Service-Token` headers: no credential, or more
 * than one, is the spec's 401; exactly one valid credential is that user. Seeded: `FC_SEED=<seed>`
 * replays the run (test/adversarial/fc.ts, docs/testing.md).
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Answer, expectApiAnswer, expectStatus } from './expectations.js';
import { announceSeed, checkProperty, runs, timeoutFor } from './fc.js';
import { createWorld, type World } from './world.js';

const RUNS = 300;

/** One request as raw HTTP/1.1 text over a new connection: every header line exactly as given. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: [string, string][],
): Promise<Answer> {
  const head = [
    `${method} ${path} HTTP/1.1`,
    'Host: cinelog.test',
    'Connection: close',
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        answerHeaders[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = text.slice(split + 4);
      if (answerHeaders['transfer-encoding'] === 'chunked') body = unchunk(body);
      resolve({ statusCode: Number(statusLine.split(' ')[1]), headers: answerHeaders, body });
    });
    // Written, not ended: the server answers, then closes (Connection: close).
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
  });
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
          const answer = await rawRequest(port, 'GET', path, headers);
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
        runs(RUNS),
      );
    },
    timeoutFor(RUNS, 50),
  );
});
