import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_MEDIA_TOKEN,
  type FakeMediaServer,
  startFakeEmby,
  startFakeJellyfin,
  startFakePlex,
} from '../../../test/fake-media-servers.js';
import { createMovie, type TestContext } from '../../../test/harness.js';
import { cliImportWorld, film } from '../../../test/import-world.js';
import { planImport } from '../imports/import.service.js';
import { createBackfillService } from './backfill.service.js';
import { playRows } from './backfill-rows.js';

// The fake servers' played movies (test/fake-media-servers.ts), as the fake TMDB knows them.
const LANTERN = film(912001, 'The Lantern Keepers', '2011-05-05', 'tt1720001');
const COMETS = film(912002, 'Paper Comets', '2015-03-03', 'tt1720002');
const ORCHARD = film(912004, 'Quiet Orchard', '2020-09-09', null);
const OLD_AGENT = film(912005, 'Old Agent Story', '1999-01-01', null);

// Auckland is 12 or 13 hours ahead of UTC: a UTC evening there is the next morning.
const ZONE = 'Pacific/Auckland';

/** The owner's plays on the fake Plex, by TMDB id and day in Auckland. */
const EXPECTED = [
  { tmdbId: 912001, watchedAt: '2024-01-12', plays: 1 },
  { tmdbId: 912001, watchedAt: '2024-05-30', plays: 1 },
  // Three plays, the history keeps the last: one on its day, two on an unknown date.
  { tmdbId: 912002, watchedAt: '2023-12-25', plays: 1 },
  { tmdbId: 912002, watchedAt: null, plays: 2 },
  { tmdbId: 912004, watchedAt: '2024-03-04', plays: 1 },
];

/**
 * anna's on Jellyfin and Emby: they keep a count and the last play's date only, so the earlier plays
 * are on an unknown date.
 */
const EXPECTED_BY_COUNT = [
  { tmdbId: 912001, watchedAt: '2024-05-30', plays: 1 },
  { tmdbId: 912001, watchedAt: null, plays: 1 },
  { tmdbId: 912002, watchedAt: '2023-12-25', plays: 1 },
  { tmdbId: 912002, watchedAt: null, plays: 2 },
  { tmdbId: 912004, watchedAt: '2024-03-04', plays: 1 },
];

const world = cliImportWorld([LANTERN, COMETS, ORCHARD, OLD_AGENT]);

async function playsOf(ctx: TestContext, userId: number) {
  const rows = await ctx.db
    .selectFrom('watch_dates as w')
    .innerJoin('movies as m', 'm.id', 'w.movie_id')
    .select(['m.tmdb_id as tmdbId', 'w.watched_at as watchedAt', 'w.plays'])
    .where('w.user_id', '=', userId)
    .execute();
  return rows
    .map((row) => ({ tmdbId: row.tmdbId, watchedAt: row.watchedAt, plays: Number(row.plays) }))
    .sort((a, b) => a.tmdbId! - b.tmdbId! || String(a.watchedAt).localeCompare(String(b.watchedAt)));
}

const SERVERS = {
  plex: { start: startFakePlex, user: null, expected: EXPECTED },
  jellyfin: { start: startFakeJellyfin, user: 'anna', expected: EXPECTED_BY_COUNT },
  emby: { start: startFakeEmby, user: 'anna', expected: EXPECTED_BY_COUNT },
} as const;

describe.each(Object.keys(SERVERS) as (keyof typeof SERVERS)[])('cinelog backfill %s', (server) => {
  let fake: FakeMediaServer;
  beforeAll(async () => {
    fake = await SERVERS[server].start();
  });
  afterAll(() => fake.close());
  afterEach(() => fake.setFailure(null));
  const expected = SERVERS[server].expected;

  const args = (...more: string[]) => [
    'backfill',
    server,
    '--user',
    'alice',
    '--url',
    fake.url,
    '--token',
    FAKE_MEDIA_TOKEN,
    ...(SERVERS[server].user ? ['--server-user', SERVERS[server].user] : []),
    ...more,
  ];

  const noToken = (result: { stdout: string; stderr: string }) => {
    expect(result.stdout).not.toContain(FAKE_MEDIA_TOKEN);
    expect(result.stderr).not.toContain(FAKE_MEDIA_TOKEN);
  };

  it('brings every play in once, on its day in the user time zone; the dry run predicts it; again, adds nothing', async () => {
    await world.ctx.users.update('alice', { timezone: ZONE });
    const dry = await world.cli(args('--dry-run'));
    expect(dry.code, dry.stderr).toBe(0);
    noToken(dry);
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual([]);

    const real = await world.cli(args());
    expect(real.code, real.stderr).toBe(0);
    noToken(real);
    expect(world.counts(real)).toEqual({ added: 6, existing: 0, unmatched: 0 });
    expect(world.counts(dry)).toEqual(world.counts(real));
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual(expected);

    const again = await world.cli(args());
    expect(again.code, again.stderr).toBe(0);
    expect(world.counts(again)).toEqual({ added: 0, existing: 6, unmatched: 0 });
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual(expected);
  });

  it('a server gone mid-way: a clear message, exit 1, nothing written; run again, it completes', async () => {
    await world.ctx.users.update('alice', { timezone: ZONE });
    // The first answers come (Plex's libraries, or the server's users), then the connection drops.
    fake.setFailure({ mode: 'drop', after: server === 'plex' ? 2 : 1 });
    const failed = await world.cli(args());
    expect(failed.code).toBe(1);
    noToken(failed);
    expect(failed.stderr).toMatch(/^cinelog: .+/m);
    expect(failed.stdout).toBe('');
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual([]);

    fake.setFailure(null);
    const done = await world.cli(args());
    expect(done.code, done.stderr).toBe(0);
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual(expected);
  });

  it('a wrong token, a wrong URL, garbage: a clear message, exit 1, the token never echoed', async () => {
    const wrongToken = await world.cli(
      args().map((arg) => (arg === FAKE_MEDIA_TOKEN ? 'not-the-token-0000' : arg)),
    );
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/token|key|unauthori[sz]ed|refused/i);
    expect(wrongToken.stderr).not.toContain('not-the-token-0000');

    // A port nobody listens on.
    const closed = await startFakePlex();
    const gone = closed.url;
    await closed.close();
    const wrongUrl = await world.cli(args().map((arg) => (arg === fake.url ? gone : arg)));
    expect(wrongUrl.code).toBe(1);
    expect(wrongUrl.stderr).toMatch(/^cinelog: .+/m);
    noToken(wrongUrl);

    const notAUrl = await world.cli(args().map((arg) => (arg === fake.url ? 'plex.local' : arg)));
    expect(notAUrl.code).toBe(1);
    expect(notAUrl.stderr).toContain('the server URL must be a full URL');

    if (server !== 'plex') {
      // Two users on the server, and none named: refused, naming the option.
      const ambiguous = await world.cli(args().filter((arg) => arg !== '--server-user' && arg !== 'anna'));
      expect(ambiguous.code).toBe(1);
      expect(ambiguous.stderr).toMatch(/user/i);
      const unknown = await world.cli(args().map((arg) => (arg === 'anna' ? 'nobody' : arg)));
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('nobody');
    }

    fake.setFailure({ mode: 'html' });
    const garbage = await world.cli(args());
    expect(garbage.code).toBe(1);
    noToken(garbage);
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual([]);
  });
});

describe('cinelog backfill: alongside the webhooks', () => {
  let fake: FakeMediaServer;
  beforeAll(async () => {
    fake = await startFakePlex();
  });
  afterAll(() => fake.close());

  it('a play a webhook recorded on the day is not counted twice', async () => {
    await world.ctx.users.update('alice', { timezone: ZONE });
    // In the catalogue already: the app's webhooks have no TMDB here.
    await createMovie(world.ctx, { tmdb_id: LANTERN.id, title: LANTERN.title });
    const created = await world.cli(['webhook', 'create', '--user', 'alice', '--server', 'plex']);
    expect(created.code, created.stderr).toBe(0);
    const path = new URL(created.lastLine).pathname;
    // Plex reports the Lantern Keepers' last play (the evening of 29 May UTC: 30 May in Auckland).
    const viewedAt = Date.parse('2024-05-29T20:12:25Z') / 1000;
    const report = {
      event: 'media.scrobble',
      user: true,
      owner: true,
      Account: { id: 1, title: 'wohnzimmer-owner' },
      Server: { title: 'Attic', uuid: 'a1b2c3d4e5f6' },
      Metadata: {
        type: 'movie',
        title: LANTERN.title,
        guid: 'plex://movie/5f00aa00bb00cc00dd00ee01',
        Guid: [{ id: 'tmdb://912001' }],
        lastViewedAt: viewedAt,
      },
    };
    const boundary = '------------------------cinelogBackfillTest';
    const sent = await world.ctx.app.inject({
      method: 'POST',
      url: path,
      payload:
        `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\nContent-Type: application/json\r\n\r\n` +
        `${JSON.stringify(report)}\r\n--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(sent.statusCode).toBeLessThan(300);
    // The webhook found the movie by its TMDB id at the fake TMDB.
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual([
      { tmdbId: 912001, watchedAt: '2024-05-30', plays: 1 },
    ]);

    const run = await world.cli([
      'backfill',
      'plex',
      '--user',
      'alice',
      '--url',
      fake.url,
      '--token',
      FAKE_MEDIA_TOKEN,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(world.counts(run)).toEqual({ added: 5, existing: 1, unmatched: 0 });
    expect(await playsOf(world.ctx, world.alice.user.id)).toEqual(EXPECTED);
  });
});

describe('the rows of played movies', () => {
  const movie = {
    itemId: '1',
    title: 'Paper Comets',
    year: 2015,
    tmdbId: 912002,
    imdbId: null,
    views: [] as string[],
    playCount: 1,
    lastPlayedAt: null as string | null,
  };

  it('counts views per day in the zone, and plays beyond the views on the last day, then on no date', () => {
    const rows = playRows(
      'jellyfin',
      [
        {
          ...movie,
          views: ['2024-01-11T10:00:00Z', '2024-01-11T19:00:00Z'],
          playCount: 5,
          lastPlayedAt: '2024-02-01T23:30:00Z',
        },
      ],
      ZONE,
    );
    expect(rows.map((row) => row.kind === 'play' && [row.watchedAt, row.plays])).toEqual([
      // 10:00 UTC is 23:00 on the 11th in Auckland, 19:00 UTC the 12th's morning.
      ['2024-01-11', 1],
      ['2024-01-12', 1],
      ['2024-02-02', 1],
      // The count in all (5), the plays the library has of the movie counting toward it.
      [null, 5],
    ]);
    expect(rows[3]).toMatchObject({ inAll: true });
    expect(rows[0]).toMatchObject({
      file: 'Jellyfin',
      line: 1,
      movie: { tmdbId: 912002, title: 'Paper Comets' },
    });
  });

  it('counts an item given twice once, and a deleted and re-added Plex movie once per play', () => {
    const rows = playRows(
      'plex',
      [
        { ...movie, itemId: '7', views: ['2024-01-11T10:00:00Z'], playCount: 1 },
        // The old item's history rows: no ids, one play the new item has too, one it has not.
        {
          ...movie,
          itemId: 'deleted:1:Paper Comets:2015',
          tmdbId: null,
          views: ['2023-05-01T10:00:00Z', '2024-01-11T10:00:00Z'],
          playCount: 2,
        },
        // Another movie of the same title and year: kept apart.
        { ...movie, itemId: '9', tmdbId: 999, views: ['2024-01-11T10:00:00Z'], playCount: 1 },
        // A page boundary gave item 7 again, played once more since.
        {
          ...movie,
          itemId: '7',
          views: ['2024-01-11T10:00:00Z', '2024-02-01T10:00:00Z'],
          playCount: 2,
        },
      ],
      'UTC',
    );
    expect(rows.map((row) => row.kind === 'play' && [row.movie.tmdbId, row.watchedAt, row.plays])).toEqual([
      [912002, '2023-05-01', 1],
      [912002, '2024-01-11', 1],
      [912002, '2024-02-01', 1],
      [999, '2024-01-11', 1],
    ]);
  });

  it('a count-only server played again since: only the new play is added, never a phantom one on no date', async () => {
    // Jellyfin says 5 plays, the last on 1 Feb: one on that day, four on no known date.
    const first = playRows(
      'jellyfin',
      [{ ...movie, playCount: 5, lastPlayedAt: '2024-02-01T10:00:00Z' }],
      'UTC',
    );
    const matchOf = () => ({ movieId: 1, by: 'id' as const });
    const planned = await planImport(first, matchOf, new Map(), false);
    expect(planned.writes.plays.map((play) => [play.watchedAt, play.plays])).toEqual([
      ['2024-02-01', 1],
      [null, 4],
    ]);
    const entry = (plays: number) => ({
      plays,
      comment: null,
      rating: null,
      rewatch: null,
      tagKeys: new Set<string>(),
    });
    const stored = (entries: [string | null, number][]) =>
      new Map([
        [
          1,
          {
            entries: new Map(entries.map(([day, plays]) => [day, entry(plays)])),
            onWatchlist: false,
            liked: false,
            rating: null,
            ownIds: {},
          },
        ],
      ]);
    // The next sync, after one more play on 3 Mar (6 in all, the last on 3 Mar): that play alone.
    const later = playRows(
      'jellyfin',
      [{ ...movie, playCount: 6, lastPlayedAt: '2024-03-03T10:00:00Z' }],
      'UTC',
    );
    const synced = await planImport(
      later,
      matchOf,
      stored([
        ['2024-02-01', 1],
        [null, 4],
      ]),
      false,
    );
    expect(synced.writes.plays.map((play) => [play.watchedAt, play.plays])).toEqual([['2024-03-03', 1]]);
    expect(synced.summary.plays).toEqual({ added: 1, existing: 5 });
    // Once more with nothing new: nothing. And a webhook's play on 3 Mar already there: nothing either.
    const again = stored([
      ['2024-02-01', 1],
      ['2024-03-03', 1],
      [null, 4],
    ]);
    expect((await planImport(later, matchOf, again, false)).writes.plays).toEqual([]);
    // Plays the library has of the movie from elsewhere (an earlier import) count toward the server's.
    const imported = await planImport(first, matchOf, stored([['2023-01-01', 3]]), false);
    expect(imported.writes.plays.map((play) => [play.watchedAt, play.plays])).toEqual([
      ['2024-02-01', 1],
      [null, 1],
    ]);
  });

  it('a played movie with no date and no count is seen once, on no date; a broken instant is skipped', () => {
    const rows = playRows('plex', [{ ...movie, views: ['not a date'], playCount: 0 }], ZONE);
    expect(rows.map((row) => row.kind === 'play' && [row.watchedAt, row.plays])).toEqual([[null, 1]]);
  });
});

describe('without a server key', () => {
  it('refuses to save a token, saying what to set (PostgreSQL without SECRET_KEY)', async () => {
    const backfill = createBackfillService({
      // Nothing else is reached: the key is asked for first.
      db: {} as never,
      clock: { now: () => new Date() },
      keys: {
        available: false,
        box: () => {
          throw new Error('no key');
        },
      },
      imports: {} as never,
      queue: {} as never,
      clientFor: () => {
        throw new Error('no server is asked');
      },
    });
    const user = (await world.ctx.users.findByName('alice'))!;
    await expect(
      backfill.connect(user, 'plex', { url: 'http://plex.test:32400', token: 'abc', serverUser: null }),
    ).rejects.toThrow(/set SECRET_KEY/);
  });
});
