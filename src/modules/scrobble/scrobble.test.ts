import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_TMDB_API_KEY, type FakeTmdb, startFakeTmdb } from '../../../test/fake-tmdb.js';
import {
  createMovie,
  createUser,
  secondInstance,
  setupTestApp,
  type TestContext,
  type TestUser,
} from '../../../test/harness.js';
import { openDatabase } from '../../db/database.js';
import { createTmdbClient } from '../../integrations/tmdb/tmdb.client.js';
import { ValidationError } from '../../shared/errors.js';
import type { MediaServer } from './media-servers.js';
import { createWebhooksService, type WebhooksService } from './webhooks.service.js';

// Invented values throughout; the shapes follow what each media server really sends.
const LEDGER = { tmdbId: 710001, imdbId: 'tt9710001', title: "The Lighthouse Keeper's Ledger" };
const OTHER = { tmdbId: 710002, imdbId: 'tt9710002' };
const SAT_2330_UTC = 1710027000; // 2024-03-09T23:30:00Z, already Sunday in Berlin

const plexPayload = (overrides: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  event: 'media.scrobble',
  user: true,
  owner: true,
  Account: { id: 7, thumb: 'https://plex.example/users/7/avatar', title: 'moviebuff' },
  Server: { title: 'Attic', uuid: 'a1b2c3d4e5f6' },
  Player: { local: true, publicAddress: '192.0.2.10', title: 'Living Room TV', uuid: 'player-1' },
  Metadata: {
    librarySectionType: 'movie',
    ratingKey: '1234',
    guid: 'plex://movie/5f00aa00bb00cc00dd00ee01',
    type: 'movie',
    title: LEDGER.title,
    Guid: [{ id: `imdb://${LEDGER.imdbId}` }, { id: `tmdb://${LEDGER.tmdbId}` }, { id: 'tvdb://99' }],
    lastViewedAt: SAT_2330_UTC,
    ...metadata,
  },
  ...overrides,
});

function multipart(fields: Record<string, string>, thumb = false) {
  const boundary = '------------------------cinelogTestBoundary42';
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${value}\r\n`,
  );
  const chunks = [Buffer.from(parts.join(''))];
  if (thumb) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="thumb"; filename="image.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      ),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const jellyfinStop = (overrides: Record<string, unknown> = {}) => ({
  ServerId: '0f3c6d1e2a4b4c5d8e9f0a1b2c3d4e5f',
  ServerName: 'basement',
  NotificationType: 'PlaybackStop',
  Timestamp: '2024-03-10T09:15:00.1234567+01:00',
  UtcTimestamp: '2024-03-10T08:15:00.1234567Z',
  Name: LEDGER.title,
  ItemType: 'Movie',
  Provider_tmdb: String(LEDGER.tmdbId),
  Provider_imdb: LEDGER.imdbId,
  PlayedToCompletion: true,
  NotificationUsername: 'moviebuff',
  UserId: 'aa11bb22cc33dd44ee55ff6677889900',
  ...overrides,
});

const embyStop = (overrides: Record<string, unknown> = {}) => ({
  Title: 'moviebuff has finished playing a movie',
  Date: '2024-03-10T08:15:00.0000000Z',
  Event: 'playback.stop',
  User: { Name: 'moviebuff', Id: 'u1' },
  Item: {
    Name: LEDGER.title,
    Id: '5501',
    Type: 'Movie',
    ProviderIds: { Tmdb: String(LEDGER.tmdbId), Imdb: LEDGER.imdbId },
  },
  PlaybackInfo: { PlayedToCompletion: true, PositionTicks: 61000000000 },
  ...overrides,
});

describe('scrobbling', () => {
  let fake: FakeTmdb;
  let ctx: TestContext;
  let webhooks: WebhooksService;
  let alice: TestUser;

  beforeAll(async () => {
    fake = await startFakeTmdb();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    ctx = await setupTestApp({
      tmdb: createTmdbClient({ apiKey: FAKE_TMDB_API_KEY, baseUrl: fake.url, maxRetries: 0 }),
    });
    webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: ctx.config.appUrl });
    alice = await createUser(ctx);
  });
  afterEach(async () => {
    await ctx.close();
  });

  const urlFor = async (server: MediaServer, user = alice, options: { scrobbleRatings?: boolean } = {}) => {
    const created = await webhooks.create(user.user.id, server, options);
    return new URL(created.url).pathname;
  };
  const send = (url: string, payload: string | Buffer, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url, payload, headers });
  const sendJson = (url: string, body: unknown, contentType = 'application/json') =>
    send(url, JSON.stringify(body), { 'content-type': contentType });
  const plays = () =>
    ctx.db
      .selectFrom('watch_dates')
      .innerJoin('movies', 'movies.id', 'watch_dates.movie_id')
      .select(['watch_dates.user_id', 'movies.tmdb_id', 'watch_dates.watched_at', 'watch_dates.plays'])
      .orderBy('watch_dates.id')
      .execute();

  /** Inbox entries stored, of every user. */
  const storedEvents = async () =>
    Number(
      (
        await ctx.db
          .selectFrom('webhook_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('counts a Plex scrobble sent as multipart with a thumbnail, creating the movie through TMDB', async () => {
    const url = await urlFor('plex');
    expect(url).toMatch(/^\/api\/webhook\/mediaserver-a\/[0-9a-f-]{36}$/);
    const { payload, headers } = multipart({ payload: JSON.stringify(plexPayload()) }, true);
    const res = await send(url, payload, headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ outcome: 'counted', reason: null, watchDate: '2024-03-09' });
    expect(await plays()).toEqual([
      { user_id: alice.user.id, tmdb_id: LEDGER.tmdbId, watched_at: '2024-03-09', plays: 1 },
    ]);
    const history = await ctx.app.inject({
      method: 'GET',
      url: `/api/users/${alice.user.name}/history/movies`,
      headers: alice.auth,
    });
    expect(history.json().watchlist[0]).toMatchObject({
      watchedAt: '2024-03-09',
      movie: { title: LEDGER.title },
    });
  });

  it('takes the date in the user’s time zone', async () => {
    await ctx.users.update(alice.user.name, { timezone: 'Europe/Berlin' });
    const url = await urlFor('plex');
    const res = await send(url, `payload=${encodeURIComponent(JSON.stringify(plexPayload()))}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.json()).toMatchObject({ outcome: 'counted', watchDate: '2024-03-10' });
  });

  it('applies a changed time zone, setting or URL to the very next report, also when another process changed it', async () => {
    const url = await urlFor('plex');
    const DAY = 24 * 3600;
    const report = (to: string, day: number) => {
      const body = multipart({
        payload: JSON.stringify(plexPayload({}, { lastViewedAt: SAT_2330_UTC + day * DAY })),
      });
      return send(to, body.payload, body.headers);
    };
    expect((await report(url, 0)).json()).toMatchObject({ outcome: 'counted', watchDate: '2024-03-09' });
    await ctx.users.update(alice.user.name, { timezone: 'Europe/Berlin' });
    expect((await report(url, 1)).json()).toMatchObject({ outcome: 'counted', watchDate: '2024-03-11' });
    await webhooks.update(alice.user.id, 'plex', { scrobbleWatches: false });
    expect((await report(url, 2)).json()).toMatchObject({ outcome: 'ignored' });
    // The CLI changes webhooks from a process of its own.
    const other = openDatabase(ctx.config.databaseUrl);
    try {
      await createWebhooksService({ db: other.db, clock: ctx.clock, appUrl: ctx.config.appUrl }).update(
        alice.user.id,
        'plex',
        { scrobbleWatches: true },
      );
    } finally {
      await other.close();
    }
    expect((await report(url, 3)).json()).toMatchObject({ outcome: 'counted', watchDate: '2024-03-13' });
    const regenerated = await urlFor('plex');
    expect((await report(url, 4)).statusCode).toBe(404);
    expect((await report(regenerated, 4)).json()).toMatchObject({ outcome: 'counted' });
  });

  it('takes 120 reports a minute to one URL, then answers 429 with Retry-After and records nothing', async () => {
    const plex = await urlFor('plex');
    const jellyfin = await urlFor('jellyfin');
    const play = multipart({ payload: JSON.stringify(plexPayload({ event: 'media.play' })) });
    for (let i = 0; i < 120; i++) {
      const accepted = await send(plex, play.payload, play.headers);
      expect(accepted.statusCode).toBe(200);
      expect(accepted.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    ctx.clock.advance(20_000);
    const limited = await send(plex, play.payload, play.headers);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: 'TooManyRequests' });
    expect(limited.headers['retry-after']).toBe('40');
    expect(limited.headers['x-ratelimit-limit']).toBe('120');
    // A report refused changes nothing, whatever it says.
    const watch = multipart({ payload: JSON.stringify(plexPayload()) });
    expect((await send(plex, watch.payload, watch.headers)).statusCode).toBe(429);
    expect(await storedEvents()).toBe(120);
    expect(await plays()).toEqual([]);
    // Another URL has its own count; the limited one takes reports again once its minute is over.
    expect((await sendJson(jellyfin, jellyfinStop({ NotificationType: 'PlaybackStart' }))).statusCode).toBe(
      200,
    );
    ctx.clock.advance(40_000);
    expect((await send(plex, watch.payload, watch.headers)).json()).toMatchObject({ outcome: 'counted' });
  });

  it('puts a movie new on its date after the ones already there, and keeps the place of one watched again', async () => {
    const ledger = await createMovie(ctx, { tmdb_id: LEDGER.tmdbId, title: LEDGER.title });
    const first = await createMovie(ctx);
    const second = await createMovie(ctx);
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/api/users/${alice.user.name}/history/movies`,
      headers: alice.auth,
      payload: [
        { serviceId: first.id, watchedAt: '2024-03-09', position: -3.5 },
        { serviceId: second.id, watchedAt: '2024-03-09', position: 2.5 },
      ],
    });
    expect(added.statusCode).toBe(204);
    const url = await urlFor('plex');
    const at = (iso: string) => {
      const body = multipart({
        payload: JSON.stringify(plexPayload({}, { lastViewedAt: Date.parse(iso) / 1000 })),
      });
      return send(url, body.payload, body.headers);
    };
    const places = () =>
      ctx.db
        .selectFrom('watch_dates')
        .select(['movie_id', 'plays', 'position'])
        .where('user_id', '=', alice.user.id)
        .where('watched_at', '=', '2024-03-09')
        .orderBy('position')
        .execute();
    expect((await at('2024-03-09T08:00:00Z')).json()).toMatchObject({ outcome: 'counted' });
    expect(await places()).toEqual([
      { movie_id: first.id, plays: 1, position: -3.5 },
      { movie_id: second.id, plays: 1, position: 2.5 },
      { movie_id: ledger.id, plays: 1, position: 3 },
    ]);
    // Watched again that day (past the dedupe window): one more play, same place.
    await ctx.app.inject({
      method: 'PUT',
      url: `/api/users/${alice.user.name}/history/movies`,
      headers: alice.auth,
      payload: [{ serviceId: second.id, watchedAt: '2024-03-09', plays: 1, position: 7 }],
    });
    expect((await at('2024-03-09T16:00:00Z')).json()).toMatchObject({ outcome: 'counted' });
    expect((await places()).find((row) => row.movie_id === ledger.id)).toEqual({
      movie_id: ledger.id,
      plays: 2,
      position: 3,
    });
    // Only negative places on another date: the next whole number after the highest.
    await ctx.app.inject({
      method: 'POST',
      url: `/api/users/${alice.user.name}/history/movies`,
      headers: alice.auth,
      payload: [{ serviceId: first.id, watchedAt: '2024-03-11', position: -3.5 }],
    });
    expect((await at('2024-03-11T12:00:00Z')).json()).toMatchObject({
      outcome: 'counted',
      watchDate: '2024-03-11',
    });
    const eleventh = await ctx.db
      .selectFrom('watch_dates')
      .select('position')
      .where('movie_id', '=', ledger.id)
      .where('watched_at', '=', '2024-03-11')
      .executeTakeFirstOrThrow();
    expect(eleventh.position).toBe(-3);
  });

  it('keeps a report whose text holds NUL characters, without them', async () => {
    const jellyfin = await urlFor('jellyfin');
    const res = await sendJson(
      jellyfin,
      jellyfinStop({ Name: 'Led\u0000ger', NotificationUsername: 'movie\u0000buff' }),
    );
    expect(res.json()).toMatchObject({ outcome: 'counted' });
    const [event] = await ctx.db
      .selectFrom('webhook_events')
      .select(['account', 'movie_title', 'payload'])
      .execute();
    expect(event).toMatchObject({ account: 'moviebuff', movie_title: 'Ledger' });
    expect(event?.payload).not.toContain('\u0000');
  });

  it('counts a repeated watch once within the dedupe window, across servers, and again after it', async () => {
    const plex = await urlFor('plex');
    const jellyfin = await urlFor('jellyfin');
    const body = multipart({ payload: JSON.stringify(plexPayload()) });
    expect((await send(plex, body.payload, body.headers)).json().outcome).toBe('counted');
    expect((await send(plex, body.payload, body.headers)).json().outcome).toBe('duplicate');
    // Jellyfin reports the same movie 2 h later (text/plain, as its webhook plugin sends it).
    const twoHoursLater = jellyfinStop({ UtcTimestamp: '2024-03-10T01:30:00Z' });
    expect((await sendJson(jellyfin, twoHoursLater, 'text/plain; charset=utf-8')).json().outcome).toBe(
      'duplicate',
    );
    // Seven hours after the first watch it is a new watch.
    const later = jellyfinStop({ UtcTimestamp: '2024-03-10T06:31:00Z' });
    expect((await sendJson(jellyfin, later, 'text/plain; charset=utf-8')).json()).toMatchObject({
      outcome: 'counted',
      watchDate: '2024-03-10',
    });
    expect(await plays()).toEqual([
      { user_id: alice.user.id, tmdb_id: LEDGER.tmdbId, watched_at: '2024-03-09', plays: 1 },
      { user_id: alice.user.id, tmdb_id: LEDGER.tmdbId, watched_at: '2024-03-10', plays: 1 },
    ]);
  });

  it('counts a Jellyfin mark as played once: alone it is a play, after a PlaybackStop of the movie within the window a duplicate', async () => {
    const jellyfin = await urlFor('jellyfin');
    const send = (body: object) => sendJson(jellyfin, body, 'text/plain; charset=utf-8');
    const marked = (at: string) =>
      jellyfinStop({
        NotificationType: 'UserDataSaved',
        SaveReason: 'TogglePlayed',
        Played: true,
        PlayedToCompletion: undefined,
        UtcTimestamp: at,
      });
    // Watched to the end, then marked as played by hand half an hour later: one play.
    expect((await send(jellyfinStop({ UtcTimestamp: '2024-03-10T08:15:00Z' }))).json().outcome).toBe(
      'counted',
    );
    expect((await send(marked('2024-03-10T08:45:00Z'))).json().outcome).toBe('duplicate');
    // Marked alone, days later (no playback reported): a play of its own.
    expect((await send(marked('2024-03-14T20:00:00Z'))).json()).toMatchObject({
      outcome: 'counted',
      watchDate: '2024-03-14',
    });
    // Marked as not played, then as played again at once: the mark within the window counts once.
    expect((await send({ ...marked('2024-03-14T20:05:00Z'), Played: false })).json().outcome).toBe('ignored');
    expect((await send(marked('2024-03-14T20:06:00Z'))).json().outcome).toBe('duplicate');
    expect(await plays()).toEqual([
      { user_id: alice.user.id, tmdb_id: LEDGER.tmdbId, watched_at: '2024-03-10', plays: 1 },
      { user_id: alice.user.id, tmdb_id: LEDGER.tmdbId, watched_at: '2024-03-14', plays: 1 },
    ]);
  });

  it('accepts Emby as multipart data, urlencoded data and raw JSON, and Kodi’s raw JSON dated on receipt', async () => {
    const emby = await urlFor('emby');
    const first = multipart({ data: JSON.stringify(embyStop()) });
    expect((await send(emby, first.payload, first.headers)).json().outcome).toBe('counted');
    const second = embyStop({ Date: '2024-03-11T08:15:00.0000000Z' });
    const urlencoded = await send(emby, `data=${encodeURIComponent(JSON.stringify(second))}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(urlencoded.json()).toMatchObject({ outcome: 'counted', watchDate: '2024-03-11' });
    const third = embyStop({
      Date: '2024-03-12T08:15:00.0000000Z',
      Item: { Type: 'Movie', Name: 'x', ProviderIds: { Tmdb: String(OTHER.tmdbId) } },
    });
    expect((await sendJson(emby, third)).json()).toMatchObject({
      outcome: 'counted',
      watchDate: '2024-03-12',
    });

    const kodi = await urlFor('kodi');
    ctx.clock.set('2024-04-01T22:30:00.000Z');
    await ctx.users.update(alice.user.name, { timezone: 'Asia/Tokyo' });
    const res = await sendJson(kodi, { title: 'Another', uniqueIds: { tmdbId: '710003' } });
    expect(res.json()).toMatchObject({ outcome: 'counted', watchDate: '2024-04-02' });
  });

  it('resolves an IMDb-only report through TMDB’s find', async () => {
    const plex = await urlFor('plex');
    const legacy = plexPayload(
      {},
      { guid: `com.plexapp.agents.imdb://${OTHER.imdbId}?lang=en`, Guid: undefined },
    );
    const body = multipart({ payload: JSON.stringify(legacy) });
    expect((await send(plex, body.payload, body.headers)).json().outcome).toBe('counted');
    expect(fake.requests.some((r) => r.path.includes(`/find/${OTHER.imdbId}`))).toBe(true);
    expect((await plays()).map((p) => p.tmdb_id)).toEqual([OTHER.tmdbId]);
  });

  it('keeps a report without a usable id as unmatched, and changes nothing', async () => {
    const plex = await urlFor('plex');
    const noIds = multipart({ payload: JSON.stringify(plexPayload({}, { Guid: undefined })) });
    expect((await send(plex, noIds.payload, noIds.headers)).json()).toMatchObject({ outcome: 'unmatched' });
    const unknown = multipart({
      payload: JSON.stringify(plexPayload({}, { Guid: [{ id: 'tmdb://999999999' }] })),
    });
    expect((await send(plex, unknown.payload, unknown.headers)).json()).toMatchObject({
      outcome: 'unmatched',
    });
    expect(await plays()).toEqual([]);
  });

  it('acknowledges what is not a finished movie watch with 200 and changes nothing', async () => {
    const plex = await urlFor('plex');
    const jellyfin = await urlFor('jellyfin');
    const emby = await urlFor('emby');
    const cases: [string, unknown][] = [
      [plex, plexPayload({ event: 'media.pause' })],
      [plex, plexPayload({ event: 'media.stop' })],
      [plex, plexPayload({ user: false })],
      [plex, plexPayload({}, { type: 'clip', subtype: 'trailer', librarySectionType: undefined })],
      [jellyfin, jellyfinStop({ PlayedToCompletion: false })],
      [jellyfin, jellyfinStop({ NotificationType: 'PlaybackStart' })],
      [jellyfin, jellyfinStop({ ItemType: 'Episode' })],
      [emby, embyStop({ PlaybackInfo: { PlayedToCompletion: false } })],
      [emby, embyStop({ Event: 'playback.pause' })],
    ];
    for (const [url, body] of cases) {
      const res =
        url === plex
          ? await send(
              url,
              ...(Object.values(multipart({ payload: JSON.stringify(body) })) as [
                Buffer,
                Record<string, string>,
              ]),
            )
          : await sendJson(url, body);
      expect(res.statusCode).toBe(200);
      expect(res.json().outcome, JSON.stringify(body).slice(0, 60)).toBe('ignored');
    }
    expect(await plays()).toEqual([]);
  });

  it('rejects malformed bodies with a 4xx and records no play', async () => {
    const jellyfin = await urlFor('jellyfin');
    const plex = await urlFor('plex');
    for (const body of ['', 'not json', '[1,2]', 'null', '"text"', '{"unterminated": ']) {
      const res = await send(jellyfin, body, { 'content-type': 'text/plain' });
      expect(res.statusCode, body).toBe(400);
      expect(res.json().error).toBe('InvalidWebhookPayload');
    }
    const brokenPart = multipart({ payload: '{"event": "media.scrobble", ' });
    expect((await send(plex, brokenPart.payload, brokenPart.headers)).statusCode).toBe(400);
    const truncated = multipart({ payload: '{}' });
    expect((await send(plex, truncated.payload.subarray(0, 40), truncated.headers)).statusCode).toBeLessThan(
      500,
    );
    const noPayload = multipart({ other: '{}' });
    expect((await send(plex, noPayload.payload, noPayload.headers)).statusCode).toBe(400);
    const huge = await send(jellyfin, `{"x":"${'a'.repeat(9 * 1024 * 1024)}"}`, {
      'content-type': 'application/json',
    });
    expect(huge.statusCode).toBe(413);
    expect(await plays()).toEqual([]);
  });

  describe('multipart bodies', () => {
    const boundary = 'cinelogParts7';
    const part = (name: string, value: string | Buffer, headers = '') =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${headers}\r\n\r\n`),
        Buffer.from(value),
        Buffer.from('\r\n'),
      ]);
    const form = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
    const formHeaders = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const report = JSON.stringify(plexPayload());
    const inbox = async () =>
      (
        await ctx.app.inject({
          method: 'GET',
          url: `/api/users/${alice.user.name}/webhook-events`,
          headers: alice.auth,
        })
      ).json().events as { outcome: string; payload: string | null }[];

    it('keeps the payload part as sent, drops file parts, and keeps the first of a field sent twice', async () => {
      const plex = await urlFor('plex');
      const spaced = `{ "event": "media.scrobble", ${report.slice(1)}`;
      // A thumbnail without a file name is still a file: it declares an image type.
      const thumb = part(
        'thumb',
        Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0xff, 0xd9]),
        '\r\nContent-Type: image/jpeg',
      );
      const counted = form(
        thumb,
        part('payload', spaced, '\r\nContent-Type: application/json'),
        part('payload', '{"event":"media.play"}'),
      );
      expect((await send(plex, counted, formHeaders)).json()).toMatchObject({ outcome: 'counted' });
      // Without a payload field the inbox keeps every text field; names are only names.
      const rejected = form(thumb, part('constructor', 'a'), part('other', 'b'), part('other', 'c'));
      expect((await send(plex, rejected, formHeaders)).statusCode).toBe(400);
      expect((await inbox()).map((e) => [e.outcome, e.payload])).toEqual([
        ['rejected', '{"constructor":"a","other":"b"}'],
        ['counted', spaced],
      ]);
    });

    it('hands a part declared as JSON that is not JSON to the driver: 400, kept in the inbox as rejected', async () => {
      const plex = await urlFor('plex');
      const broken = '{"event": "media.scrobble",';
      const res = await send(
        plex,
        form(part('payload', broken, '\r\nContent-Type: application/json')),
        formHeaders,
      );
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'InvalidWebhookPayload' });
      expect((await inbox()).map((e) => [e.outcome, e.payload])).toEqual([['rejected', broken]]);
      expect(await plays()).toEqual([]);
    });

    it('answers 413 past 100 fields or 4 files, or a part larger than 8 MiB, and records nothing', async () => {
      const plex = await urlFor('plex');
      const fields = Array.from({ length: 101 }, (_, i) => part(`f${i}`, 'x'));
      const files = Array.from({ length: 5 }, (_, i) =>
        part(`file${i}`, 'x', `; filename="f${i}.jpg"\r\nContent-Type: image/jpeg`),
      );
      const bigFile = part('thumb', Buffer.alloc(8 * 1024 * 1024 + 1), '; filename="big.jpg"');
      const bigField = part('payload', `"${'a'.repeat(8 * 1024 * 1024)}"`);
      for (const body of [
        form(part('payload', report), ...fields),
        form(part('payload', report), ...files),
        form(part('payload', report), bigFile),
        form(bigField),
      ]) {
        const res = await send(plex, body, formHeaders);
        expect(res.statusCode).toBe(413);
        expect(res.json().error).toBe('PayloadTooLarge');
      }
      expect(await plays()).toEqual([]);
      expect(await storedEvents()).toBe(0);
    });

    it('answers 400 for a multipart body without a boundary or one that breaks off', async () => {
      const plex = await urlFor('plex');
      const complete = form(part('payload', report));
      for (const [body, headers] of [
        [complete, { 'content-type': 'multipart/form-data' }],
        [complete.subarray(0, complete.length - 20), formHeaders],
        [Buffer.from('no parts at all'), formHeaders],
      ] as const) {
        const res = await send(plex, body, headers);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'InvalidWebhookPayload' });
        expect(res.json().message).toMatch(/multipart/);
      }
      expect(await plays()).toEqual([]);
      // Unread, so nothing to keep: the inbox holds reports, not bodies that never became one.
      expect(await storedEvents()).toBe(0);
    });
  });

  it('answers 404 for an unknown or regenerated URL, and for another server’s path', async () => {
    const plex = await urlFor('plex');
    const body = multipart({ payload: JSON.stringify(plexPayload()) });
    const regenerated = await urlFor('plex');
    expect((await send(plex, body.payload, body.headers)).statusCode).toBe(404);
    expect(
      (await send(regenerated.replace('mediaserver-a', 'mediaserver-b'), body.payload, body.headers))
        .statusCode,
    ).toBe(404);
    expect((await send('/api/webhook/mediaserver-a/not-a-uuid', body.payload, body.headers)).statusCode).toBe(
      404,
    );
    expect((await send(regenerated, body.payload, body.headers)).statusCode).toBe(200);
    await webhooks.remove(alice.user.id, 'plex');
    expect((await send(regenerated, body.payload, body.headers)).statusCode).toBe(404);
  });

  it('counts no rate-limit row for URLs that do not exist, and refuses an address that keeps sending to them', async () => {
    const plex = await urlFor('plex');
    const body = multipart({ payload: JSON.stringify(plexPayload({ event: 'media.play' })) });
    const rows = async () => (await ctx.db.selectFrom('rate_limits').select('key').execute()).length;
    const before = await rows();
    const from = (address: string, url: string) =>
      ctx.app.inject({
        method: 'POST',
        url,
        payload: body.payload,
        headers: body.headers,
        remoteAddress: address,
      });
    for (let i = 0; i < 60; i++) {
      const guess = `/api/webhook/mediaserver-a/${crypto.randomUUID()}`;
      expect((await from('192.0.2.66', guess)).statusCode).toBe(404);
    }
    expect(await rows()).toBe(before);
    const refused = await from('192.0.2.66', `/api/webhook/mediaserver-a/${crypto.randomUUID()}`);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'TooManyRequests' });
    expect(refused.headers['retry-after']).toBe('60');
    // Every report from that address waits out the minute, a real URL's too; other addresses do not.
    expect((await from('192.0.2.66', plex)).statusCode).toBe(429);
    expect((await from('192.0.2.10', plex)).statusCode).toBe(200);
    ctx.clock.advance(60_000);
    expect((await from('192.0.2.66', plex)).statusCode).toBe(200);
    expect(await rows()).toBe(before + 1);
  });

  it('sets and clears Plex ratings only when rating scrobbles are on', async () => {
    await createMovie(ctx, { tmdb_id: LEDGER.tmdbId, title: LEDGER.title });
    const plex = await urlFor('plex');
    const rate = (rating: unknown) =>
      multipart({ payload: JSON.stringify(plexPayload({ event: 'media.rate', rating })) });
    const rating = () =>
      ctx.db.selectFrom('ratings').select('rating').where('user_id', '=', alice.user.id).executeTakeFirst();
    const off = rate(8);
    expect((await send(plex, off.payload, off.headers)).json()).toMatchObject({ outcome: 'ignored' });
    expect(await rating()).toBeUndefined();
    await webhooks.update(alice.user.id, 'plex', { scrobbleRatings: true });
    const eight = rate('8');
    expect((await send(plex, eight.payload, eight.headers)).json()).toMatchObject({
      outcome: 'counted',
      reason: 'rating set to 8',
    });
    expect(await rating()).toEqual({ rating: 8 });
    const cleared = rate(0);
    expect((await send(plex, cleared.payload, cleared.headers)).json()).toMatchObject({
      reason: 'rating cleared',
    });
    expect(await rating()).toBeUndefined();
  });

  it('keeps a Plex rating between two whole numbers as the nearer one, a half up', async () => {
    await createMovie(ctx, { tmdb_id: LEDGER.tmdbId, title: LEDGER.title });
    const plex = await urlFor('plex', alice, { scrobbleRatings: true });
    const rate = async (rating: unknown) => {
      const body = multipart({ payload: JSON.stringify(plexPayload({ event: 'media.rate', rating })) });
      return (await send(plex, body.payload, body.headers)).json();
    };
    const rating = () =>
      ctx.db.selectFrom('ratings').select('rating').where('user_id', '=', alice.user.id).executeTakeFirst();
    // Plex sends two points a star (3½ stars are 7); each step lands on another value than the last.
    for (const [sent, kept] of [
      [7.5, 8],
      [7.4, 7],
      [9.5, 10],
      [0.4, 1],
      ['10', 10],
      ['6.5', 7],
    ] as const) {
      expect(await rate(sent), `rating ${sent}`).toMatchObject({
        outcome: 'counted',
        reason: `rating set to ${kept}`,
      });
      expect(await rating(), `rating ${sent}`).toEqual({ rating: kept });
    }
    // Above Plex's 0-10 is no rating of Plex's: ignored, the rating stays.
    expect(await rate(10.5)).toMatchObject({
      outcome: 'ignored',
      reason: "rating 10.5 is outside Plex's 0-10 scale",
    });
    expect(await rating()).toEqual({ rating: 7 });
    expect(await rate(0)).toMatchObject({ outcome: 'counted', reason: 'rating cleared' });
    expect(await rating()).toBeUndefined();
  });

  it('honours the watches toggle and the media-server user filter', async () => {
    const jellyfin = await urlFor('jellyfin');
    await webhooks.update(alice.user.id, 'jellyfin', { accountFilter: ['MovieBuff', 'partner'] });
    expect((await sendJson(jellyfin, jellyfinStop({ NotificationUsername: 'kid' }))).json().outcome).toBe(
      'ignored',
    );
    expect((await sendJson(jellyfin, jellyfinStop())).json().outcome).toBe('counted');
    await webhooks.update(alice.user.id, 'jellyfin', { scrobbleWatches: false, accountFilter: [] });
    const later = jellyfinStop({ UtcTimestamp: '2024-05-01T10:00:00Z' });
    expect((await sendJson(jellyfin, later)).json()).toMatchObject({
      outcome: 'ignored',
      reason: expect.stringContaining('turned off'),
    });
    expect(await plays()).toHaveLength(1);
  });

  it('refuses a user filter for Kodi, whose reports name no user, and ratings but for Plex', async () => {
    const kodi = await urlFor('kodi');
    const row = () =>
      ctx.db.selectFrom('webhooks').selectAll().where('user_id', '=', alice.user.id).execute();
    const before = await row();
    await expect(
      webhooks.update(alice.user.id, 'kodi', { scrobbleWatches: false, accountFilter: ['moviebuff'] }),
    ).rejects.toThrow(
      new ValidationError('Kodi reports carry no user name: a user filter would ignore all of them'),
    );
    await expect(webhooks.update(alice.user.id, 'kodi', { scrobbleRatings: true })).rejects.toThrow(
      new ValidationError('Kodi sends no ratings: only Plex ratings can be set'),
    );
    await expect(webhooks.create(alice.user.id, 'emby', { scrobbleRatings: true })).rejects.toThrow(
      new ValidationError('Emby sends no ratings: only Plex ratings can be set'),
    );
    expect(await row()).toEqual(before);
    // Names that are only blanks are no filter: allowed, as is clearing one.
    await webhooks.update(alice.user.id, 'kodi', { accountFilter: [' ', ''] });
    await webhooks.update(alice.user.id, 'kodi', { accountFilter: [] });
    expect(
      (await sendJson(kodi, { title: 'x', uniqueIds: { tmdbId: String(LEDGER.tmdbId) } })).json(),
    ).toMatchObject({
      outcome: 'counted',
    });
  });

  it('applies no user filter stored for Kodi before it was refused: every report counts', async () => {
    await createMovie(ctx, { tmdb_id: LEDGER.tmdbId, title: LEDGER.title });
    const kodi = await urlFor('kodi');
    await ctx.db
      .updateTable('webhooks')
      .set({ account_filter: JSON.stringify(['moviebuff']) })
      .where('user_id', '=', alice.user.id)
      .execute();
    const report = { title: LEDGER.title, uniqueIds: { tmdbId: String(LEDGER.tmdbId) } };
    expect((await sendJson(kodi, report)).json()).toMatchObject({ outcome: 'counted' });
    expect(await plays()).toHaveLength(1);
  });

  it('takes a scrobbled movie off the watchlist and records plays for the webhook’s owner only', async () => {
    const bob = await createUser(ctx);
    const movie = await createMovie(ctx, { tmdb_id: LEDGER.tmdbId });
    for (const user of [alice, bob]) {
      await ctx.app.inject({
        method: 'POST',
        url: `/api/users/${user.user.name}/watchlist/movies`,
        headers: user.auth,
        payload: [{ serviceId: movie.id }],
      });
    }
    expect(
      (
        await sendJson(await urlFor('kodi', bob), {
          title: 'x',
          uniqueIds: { tmdbId: String(LEDGER.tmdbId) },
        })
      ).json().outcome,
    ).toBe('counted');
    const left = await ctx.db.selectFrom('watchlist').select('user_id').execute();
    expect(left).toEqual([{ user_id: alice.user.id }]);
    expect((await plays()).map((p) => p.user_id)).toEqual([bob.user.id]);
  });

  it('limits the rate of reports per URL', async () => {
    const kodi = await urlFor('kodi');
    let limited = 0;
    for (let i = 0; i < 125; i++) {
      const res = await sendJson(kodi, { title: 'x', uniqueIds: {} });
      if (res.statusCode === 429) limited += 1;
    }
    expect(limited).toBe(5);
  });

  it('shares the rate limit of a URL between instances on one database', async () => {
    const kodi = await urlFor('kodi');
    const second = await secondInstance(ctx);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 122; i++) {
        const app = i % 2 === 0 ? ctx.app : second.app;
        const res = await app.inject({
          method: 'POST',
          url: kodi,
          payload: JSON.stringify({ title: 'x', uniqueIds: {} }),
          headers: { 'content-type': 'application/json' },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      expect(statuses.slice(120)).toEqual([429, 429]);
    } finally {
      await second.close();
    }
  });

  describe('the inbox', () => {
    it('lists every report with its outcome, newest first, for the owner only', async () => {
      const jellyfin = await urlFor('jellyfin');
      await sendJson(jellyfin, jellyfinStop());
      ctx.clock.advance(1000);
      await sendJson(jellyfin, jellyfinStop());
      ctx.clock.advance(1000);
      await sendJson(jellyfin, jellyfinStop({ NotificationType: 'PlaybackProgress' }));
      ctx.clock.advance(1000);
      await send(jellyfin, 'garbage', { 'content-type': 'text/plain' });
      const url = `/api/users/${alice.user.name}/webhook-events`;
      const res = await ctx.app.inject({ method: 'GET', url, headers: alice.auth });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.events.map((e: { outcome: string }) => e.outcome)).toEqual([
        'rejected',
        'ignored',
        'duplicate',
        'counted',
      ]);
      expect(body.events[3]).toMatchObject({
        server: 'jellyfin',
        event: 'PlaybackStop',
        account: 'moviebuff',
        movie: { title: LEDGER.title },
        watchDate: '2024-03-10',
        payload: expect.stringContaining('PlaybackStop'),
      });
      expect(body.events[0].payload).toBe('garbage');
      const counted = await ctx.app.inject({
        method: 'GET',
        url: `${url}?outcome=counted`,
        headers: alice.auth,
      });
      expect(counted.json().events).toHaveLength(1);

      const bob = await createUser(ctx);
      expect((await ctx.app.inject({ method: 'GET', url, headers: bob.auth })).statusCode).toBe(403);
      const anonymous = await ctx.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.body).toBe('');
    });

    it('forgets reports after 30 days: never listed again, deleted with a later report', async () => {
      const kodi = await urlFor('kodi');
      const listed = async () =>
        (
          await ctx.app.inject({
            method: 'GET',
            url: `/api/users/${alice.user.name}/webhook-events`,
            headers: alice.auth,
          })
        ).json().events.length;
      await sendJson(kodi, { title: 'x', uniqueIds: {} });
      ctx.clock.advance(29 * 86_400_000);
      await sendJson(kodi, { title: 'y', uniqueIds: {} });
      expect(await listed()).toBe(2);
      ctx.clock.advance(2 * 86_400_000);
      expect(await listed()).toBe(1);
      await sendJson(kodi, { title: 'z', uniqueIds: {} });
      expect(await listed()).toBe(2);
      expect(await storedEvents()).toBe(2);
    });
  });
});
