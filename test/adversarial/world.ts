import type { LightMyRequestResponse } from 'fastify';
import type { Mail, Mailer } from '../../src/integrations/mail/mailer.js';
import { createTmdbClient } from '../../src/integrations/tmdb/tmdb.client.js';
import type { MediaServer } from '../../src/modules/scrobble/media-servers.js';
import { createWebhooksService } from '../../src/modules/scrobble/webhooks.service.js';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from '../fake-tmdb.js';
import { createMovie, createUser, setupTestApp, type TestContext, type TestUser } from '../harness.js';
import { type Answer, expectApiAnswer } from './expectations.js';
import { type CapturedRoute, withRouteCapture } from './routes.js';
import { differences, type Snapshot, snapshotter } from './snapshot.js';

/** A request as the properties build it, sent with `app.inject`. */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  remoteAddress?: string;
  cookies?: Record<string, string>;
}

/** The request in one line (the body cut short), for failure messages. */
export function describeRequest(request: HttpRequest): string {
  const payload =
    request.payload === undefined
      ? ''
      : ` body=${JSON.stringify(String(request.payload).slice(0, 400))}${String(request.payload).length > 400 ? `… (${String(request.payload).length} chars)` : ''}`;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      value.length > 80 ? `${value.slice(0, 80)}…` : value,
    ]),
  );
  return `${request.method} ${request.url.length > 300 ? `${request.url.slice(0, 300)}…` : request.url} headers=${JSON.stringify(headers)}${payload}`;
}

/** The users, movies and webhooks every property starts from, on a real database of the test engine. */
export interface World {
  ctx: TestContext;
  /** Every route the app registered. */
  routes: CapturedRoute[];
  /** An administrator whose data is readable by other users (privacy `users`). */
  alice: TestUser;
  /** A user whose data is private. */
  bob: TestUser;
  /** Tokens of alice that are no longer active. */
  expiredToken: string;
  revokedToken: string;
  /** Movies in the local catalogue. */
  movieIds: number[];
  /** Webhook UUIDs by owner and media server. */
  webhooks: Record<'alice' | 'bob', Partial<Record<MediaServer, string>>>;
  tmdb: FakeTmdb | null;
  /** Mails the app sent (forgot-password), when the world has a mailer. */
  mails: Mail[];
  /** Sends a request; the checks below see every answer. */
  inject(request: HttpRequest): Promise<LightMyRequestResponse>;
  /** "Nothing changed by a rejected request" around one request. */
  guard: ChangeGuard;
  close(): Promise<void>;
}

export async function createWorld(
  options: { tmdb?: boolean; env?: Record<string, string>; mailer?: boolean } = {},
): Promise<World> {
  const tmdb = options.tmdb ? await startFakeTmdb() : null;
  const mails: Mail[] = [];
  const mailer: Mailer = {
    async send(mail) {
      mails.push(mail);
    },
    close() {},
  };
  const { built: ctx, routes } = await withRouteCapture(() =>
    setupTestApp({
      tmdb: tmdb && createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: tmdb.url, maxRetries: 0 }),
      ...(options.env && { env: options.env }),
      ...(options.mailer && { mailer }),
    }),
  );
  const alice = await createUser(ctx, { name: 'alice', isAdmin: true });
  const bob = await createUser(ctx, { name: 'bob', privacy: 'private' });
  // A token created 31 days ago that expired after 30, and one revoked.
  const now = ctx.clock.now().toISOString();
  ctx.clock.advance(-31 * 86_400_000);
  const expired = await ctx.tokens.create(alice.user.id, 'expired', '30');
  ctx.clock.set(now);
  const revoked = await ctx.tokens.create(alice.user.id, 'revoked', 'never');
  await ctx.tokens.revokeById(alice.user.id, revoked.token.id);

  const movieIds: number[] = [];
  for (let i = 0; i < 4; i += 1) movieIds.push((await createMovie(ctx)).id);

  const webhooksService = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: ctx.config.appUrl });
  const webhooks: World['webhooks'] = { alice: {}, bob: {} };
  for (const server of ['plex', 'jellyfin', 'emby', 'kodi'] as const) {
    const created = await webhooksService.create(alice.user.id, server, {
      scrobbleRatings: server === 'plex',
    });
    webhooks.alice[server] = new URL(created.url).pathname.split('/').pop()!;
  }
  webhooks.bob.plex = new URL((await webhooksService.create(bob.user.id, 'plex')).url).pathname
    .split('/')
    .pop()!;

  const guard = new ChangeGuard(await snapshotter(ctx.db));
  return {
    ctx,
    routes: routes(),
    alice,
    bob,
    expiredToken: expired.value,
    revokedToken: revoked.value,
    movieIds,
    webhooks,
    tmdb,
    mails,
    inject: (request) => ctx.app.inject(request),
    guard,
    async close() {
      await ctx.close();
      await tmdb?.close();
    },
  };
}

/**
 * Checks that a rejected request (any 4xx) changed nothing. The snapshot taken after a 4xx is the
 * "before" of the next request, so a run of rejected requests costs one snapshot each.
 */
export class ChangeGuard {
  #before: Snapshot | undefined;
  #previous = '';
  /** Unportable rows already reported (FC_KEEP_GOING goes on after a failure). */
  readonly #reported = new Set<string>();

  constructor(private readonly snapshot: () => Promise<Snapshot>) {}

  /** Something other than a request changed the database (the test itself): snapshot afresh. */
  invalidate(): void {
    this.#before = undefined;
    this.#previous = '';
  }

  /**
   * Sends the request; throws when it was answered with a 4xx and changed something. Every snapshot
   * also checks that the accepted request before it stored nothing only one engine can store
   * (expectPortable).
   */
  async around(label: string, send: () => Promise<Answer>): Promise<Answer> {
    const fresh = this.#before === undefined;
    const before = this.#before ?? (await this.snapshot());
    this.#before = before;
    // Blames the request before this one, once (this request is not sent).
    if (fresh) expectPortable(before, this.#previous, this.#reported);
    this.#previous = label;
    const answer = await send();
    if (answer.statusCode < 400 || answer.statusCode >= 500) {
      this.#before = undefined;
      return answer;
    }
    const after = await this.snapshot();
    this.#before = after;
    const changed = differences(before, after);
    if (changed) {
      throw new Error(
        `a rejected request changed data\n  request: ${label}\n  answer: ${answer.statusCode} ${answer.body.slice(0, 300)}\n${changed}`,
      );
    }
    return answer;
  }
}

/** An integer past what a PostgreSQL `integer` column holds, in a row's JSON. */
const PAST_32_BITS = /[:,[](-?\d{10,})(?=[,}\]])/g;

function unportable(row: string): string | null {
  if (row.includes('\\u0000')) return 'text with a NUL';
  for (const match of row.matchAll(PAST_32_BITS)) {
    if (Math.abs(Number(match[1])) > 2 ** 31 - 1) return `the integer ${match[1]}, past 32 bits,`;
  }
  return null;
}

/**
 * No row holds what one engine stores and the other cannot: text with a NUL character (JSON writes it
 * as \u0000), an integer past 32 bits. Rows in `reported` were blamed before.
 */
export function expectPortable(snapshot: Snapshot, label: string, reported = new Set<string>()): void {
  for (const [table, rows] of snapshot) {
    for (const row of rows) {
      if (reported.has(row)) continue;
      const what = unportable(row);
      if (what === null) continue;
      for (const other of rows) if (unportable(other) !== null) reported.add(other);
      throw new Error(
        `${what} was stored in ${table} (one engine cannot store it: it must be refused, or cleaned the same way on both)\n  request: ${label || '(set-up)'}\n  row: ${row.slice(0, 400)}`,
      );
    }
  }
}

/** Sends an API request: every answer checked for 5xx and the envelope, a 4xx for changes. */
export async function sendApi(world: World, request: HttpRequest, route = 'other'): Promise<Answer> {
  const label = describeRequest(request);
  const startedAt = performance.now();
  const answer = await world.guard.around(label, () => world.inject(request));
  tally(route, answer, startedAt);
  expectApiAnswer(label, answer);
  return answer;
}

const tallies = new Map<string, Map<string, number>>();

/**
 * Counts answers by route, status and error code, for `FC_STATS=1`: how far the generated requests
 * get (a generator whose requests all stop at the schema tests little behind it).
 */
export function tally(route: string, answer: Answer, startedAt?: number): void {
  if (process.env.FC_STATS !== '1') return;
  const code = /"(?:error|outcome)":"([A-Za-z]+)"/.exec(answer.body)?.[1];
  const key = `${answer.statusCode}${code ? ` ${code}` : ''}`;
  const counts = tallies.get(route) ?? new Map<string, number>();
  counts.set(key, (counts.get(key) ?? 0) + 1);
  // The time spent on the route's requests, snapshots included.
  if (startedAt !== undefined)
    counts.set('ms', (counts.get('ms') ?? 0) + Math.round(performance.now() - startedAt));
  tallies.set(route, counts);
}

/** Prints the tallies (FC_STATS=1). */
export function printTallies(file: string): void {
  if (process.env.FC_STATS !== '1') return;
  const lines = [...tallies.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([route, counts]) => {
      const parts = [...counts.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, n]) => `${key}: ${n}`);
      return `  ${route}\n    ${parts.join(', ')}`;
    });
  console.log(`adversarial ${file}: answers by route\n${lines.join('\n')}`);
}
