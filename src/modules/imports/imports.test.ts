import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMovie, createUser, setupTestApp, type TestContext } from '../../../test/harness.js';
import { cliImportWorld, csv, FILMS } from '../../../test/import-world.js';
import { importsWorld } from '../../../test/tmdb-world.js';

const MOVARY_HISTORY = csv(
  'title,year,tmdbId,imdbId,watchedAt,comment,location',
  'Salt Road Summer,2016,720001,tt9720001,2023-04-01,"Loved it, again",Cinema',
  'Salt Road Summer,2016,720001,tt9720001,2023-04-01,"Loved it, again",Cinema',
  'The Quiet Cartographer,2011,,tt9720002,2023-05-06,,',
  'Ninefold,2020,720003,,,,',
  'A Film Nobody Made,1990,799999,,2023-01-01,,',
);
const MOVARY_RATINGS = csv(
  'title,year,tmdbId,imdbId,userRating',
  'Salt Road Summer,2016,720001,tt9720001,8',
  'Harbour Lights,1999,720004,tt9720004,7',
);
const MOVARY_WATCHLIST = csv(
  'title,year,tmdbId,imdbId,addedAt',
  'Harbour Lights Again,2001,720005,tt9720005,2023-06-01 10:00:00',
);

describe('imports and exports (command line)', () => {
  const world = cliImportWorld();
  const { cli, counts, files, lists } = world;

  /** Row counts of every table an import may touch, and the user's data version. */
  async function snapshot() {
    const count = async (table: 'watch_dates' | 'watchlist' | 'ratings' | 'movies') =>
      Number(
        (
          await world.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const user = await world.ctx.db
      .selectFrom('users')
      .select('data_version')
      .where('name', '=', 'alice')
      .executeTakeFirstOrThrow();
    return {
      watchDates: await count('watch_dates'),
      watchlist: await count('watchlist'),
      ratings: await count('ratings'),
      movies: await count('movies'),
      dataVersionAsRead: user.data_version,
    };
  }

  const movaryDir = () =>
    files('movary', {
      'history.csv': MOVARY_HISTORY,
      'ratings.csv': MOVARY_RATINGS,
      'watchlist.csv': MOVARY_WATCHLIST,
    });

  describe('movary', () => {
    it('lands plays, dates, ratings and the watchlist; lists the unmatched row; a second run adds nothing and asks TMDB nothing', async () => {
      const path = movaryDir();
      const first = await cli(['import', 'movary', '--user', 'alice', path]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.lastLine).toBe('{"added":7,"existing":0,"unmatched":1}');
      expect(first.stderr).toContain('added 4 plays, 1 watchlist entry, 2 ratings');
      expect(first.stderr).toContain('history.csv line 6: play of "A Film Nobody Made" (1990) [tmdb 799999]');

      const { history, played, watchlist, ratings } = await lists(world.alice);
      expect(
        history.watchlist.map((e: { movie: { title: string }; watchedAt: string }) => [
          e.movie.title,
          e.watchedAt,
        ]),
      ).toEqual([
        ['The Quiet Cartographer', '2023-05-06'],
        ['Salt Road Summer', '2023-04-01'],
      ]);
      const salt = played.played.find(
        (p: { movie: { title: string } }) => p.movie.title === 'Salt Road Summer',
      );
      expect(salt.watchedDates).toEqual([{ date: '2023-04-01', plays: 2, comment: 'Loved it, again' }]);
      const ninefold = played.played.find((p: { movie: { title: string } }) => p.movie.title === 'Ninefold');
      expect(ninefold.watchedDates).toEqual([{ date: null, plays: 1, comment: null }]);
      expect(
        ratings.ratings
          .map((r: { movie: { title: string }; rating: number }) => [r.movie.title, r.rating])
          .sort(),
      ).toEqual([
        ['Harbour Lights', 7],
        ['Salt Road Summer', 8],
      ]);
      expect(
        watchlist.watchlist.map((w: { movie: { title: string }; addedAt: string }) => [
          w.movie.title,
          w.addedAt,
        ]),
      ).toEqual([['Harbour Lights Again', '2023-06-01']]);

      world.fake.requests.length = 0;
      const before = await snapshot();
      const second = await cli(['import', 'movary', '--user', 'alice', path]);
      expect(second.lastLine).toBe('{"added":0,"existing":7,"unmatched":1}');
      expect(await snapshot()).toEqual(before);
      // Only the unmatched row is looked up again.
      expect(
        world.fake.requests.map((r) => r.path).filter((p) => !p.includes('799999') && p !== '/search/movie'),
      ).toEqual([]);
    });

    it('a dry run changes nothing; a date with plays already there gets only the missing ones', async () => {
      const single = files('one', {
        'history.csv': csv(MOVARY_HISTORY.split('\n')[0]!, MOVARY_HISTORY.split('\n')[1]!),
      });
      expect(counts(await cli(['import', 'movary', '--user', 'alice', single]))).toEqual({
        added: 1,
        existing: 0,
        unmatched: 0,
      });

      const before = await snapshot();
      const dry = await cli(['import', 'movary', '--user', 'alice', movaryDir(), '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(counts(dry)).toEqual({ added: 6, existing: 1, unmatched: 1 });
      expect(dry.stderr).toContain('dry run, nothing changed: would add 3 plays');
      expect(await snapshot()).toEqual(before);

      expect(counts(await cli(['import', 'movary', '--user', 'alice', movaryDir()]))).toEqual({
        added: 6,
        existing: 1,
        unmatched: 1,
      });
      const { played } = await lists(world.alice);
      const salt = played.played.find(
        (p: { movie: { title: string } }) => p.movie.title === 'Salt Road Summer',
      );
      expect(salt.watchedDates).toEqual([{ date: '2023-04-01', plays: 2, comment: 'Loved it, again' }]);
    });

    it('refuses bad files with one clear line, exit 1, changing nothing', async () => {
      const header = 'title,year,tmdbId,imdbId,watchedAt,comment,location';
      const good = 'Salt Road Summer,2016,720001,tt9720001,2023-04-01,,';
      const sparse = join(world.dir, 'huge.csv');
      closeSync(openSync(sparse, 'w'));
      const { truncateSync } = await import('node:fs');
      truncateSync(sparse, 2 * 1024 ** 3);
      const cases: [string, string, RegExp][] = [
        [
          'movary',
          files('cols', { 'history.csv': csv('name,when', 'x,y') }),
          /history\.csv is not a Movary export: its header is name,when/,
        ],
        ['movary', files('other', { 'notes.txt': 'hello' }), /found no Movary export/],
        [
          'movary',
          files('missing', { 'history.csv': csv('title,year,watchedAt', 'x,2000,2023-01-01') }),
          /lacks the column tmdbId/,
        ],
        [
          'movary',
          files('binary', { 'history.csv': Buffer.from(`${header}\n\u0000\u0001\u0002`) }),
          /is binary, not a text file/,
        ],
        [
          'movary',
          files('quote', { 'history.csv': csv(header, good, 'Salt "Road,2016,720001,,2023-04-01,,') }),
          /not a readable CSV file/,
        ],
        ['movary', sparse, /huge\.csv is 2048\.0 MB: an import reads at most 100\.0 MB/],
        [
          'letterboxd',
          files('zip', { 'export.zip': Buffer.from('PK\x03\x04 this is no zip at all') }),
          /is not a readable zip file/,
        ],
        [
          'trakt',
          files('notjson', { 'history.json': '[{"watched_at": ' }),
          /history\.json is not valid JSON/,
        ],
        ['cinelog', files('notours', { 'export.json': '{"hello": 1}' }), /not a cinelog export/],
        ['movary', join(world.dir, 'nothing-here'), /no such file or directory/],
      ];
      for (const [format, path, message] of cases) {
        const result = await cli(['import', format, '--user', 'alice', path]);
        expect(result.code, path).toBe(1);
        expect(result.stderr, path).toMatch(message);
        expect(result.stderr.split('\n').filter(Boolean), path).toHaveLength(1);
        expect(result.stdout).toBe('');
      }
      expect(await snapshot()).toMatchObject({ watchDates: 0, watchlist: 0, ratings: 0, movies: 0 });
      expect(world.fake.requests).toEqual([]);

      expect((await cli(['import', 'goodreads', '--user', 'alice', world.dir])).code).toBe(2);
      expect((await cli(['import', 'movary', world.dir])).code).toBe(2);
      expect(await cli(['import', 'movary', '--user', 'nobody', movaryDir()])).toMatchObject({
        code: 1,
        stderr: 'cinelog: no user named "nobody"\n',
      });
    });

    it('refuses the whole import when TMDB is down, writing nothing', async () => {
      world.fake.failNext(1000, 503);
      const result = await cli(['import', 'movary', '--user', 'alice', movaryDir()]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/TMDB is unavailable/);
      expect(await snapshot()).toMatchObject({ watchDates: 0, watchlist: 0, ratings: 0 });
      // The command has stopped every lookup when it answers: none goes on retrying (the client's
      // backoffs add up to at most 3.5 s) and reaches TMDB, or the catalogue, afterwards.
      const asked = world.fake.requests.length;
      world.fake.reset();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(world.fake.requests.length, `${asked} requests before`).toBe(0);
    });
  });

  describe('exports', () => {
    /** Alice's library: imported from Movary, plus what only the web app and API make. */
    async function fillAlice() {
      expect((await cli(['import', 'movary', '--user', 'alice', movaryDir()])).code).toBe(0);
      await world.ctx.users.update('alice', { watchlistAutoRemove: false, ratingScale: 'points' });
      const ids = Object.fromEntries(
        (await world.ctx.db.selectFrom('movies').select(['id', 'tmdb_id']).execute()).map((m) => [
          m.tmdb_id,
          m.id,
        ]),
      );
      const owner = { id: world.alice.user.id, watchlistAutoRemove: false, timezone: 'UTC' };
      await world.ctx.library.write(owner.id, async (w) => {
        await w.addPlays([
          {
            movieId: ids[720004]!,
            watchedAt: '2023-04-01',
            plays: 1,
            comment: '=HYPERLINK("http://evil.test")',
            position: 1,
          },
          {
            movieId: ids[720005]!,
            watchedAt: '2023-04-01',
            plays: 3,
            comment: '-meh, +1 @home',
            position: 1,
          },
        ]);
      });
      world.ctx.clock.advance(60_000);
      await world.ctx.library.write(owner.id, (w) => w.addToWatchlist([ids[720001]!, ids[720003]!]));
      world.ctx.clock.advance(60_000);
      await world.ctx.library.write(owner.id, (w) => w.setRatings([{ movieId: ids[720005]!, rating: 10 }]));
      return ids;
    }

    it('json: importing the export into a fresh user gives identical API answers, and again adds nothing', async () => {
      await fillAlice();
      const out = join(world.dir, 'alice.json');
      const exported = await cli(['export', '--user', 'alice', '--format', 'json', '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      const json = JSON.parse(readFileSync(out, 'utf8'));
      expect(json).toMatchObject({
        format: 'cinelog',
        version: 2,
        user: { name: 'alice', timezone: 'Europe/Berlin', ratingScale: 'points' },
      });
      expect(json.history).toHaveLength(5);

      const bob = await createUser(world.ctx, { name: 'bob' });
      world.fake.requests.length = 0;
      const imported = await cli(['import', 'cinelog', '--user', 'bob', out]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(counts(imported)).toEqual({ added: 14, existing: 0, unmatched: 0 });
      expect(world.fake.requests).toEqual([]);
      expect(await lists(bob)).toEqual(await lists(world.alice));
      expect(await world.ctx.users.findByName('bob')).toMatchObject({
        timezone: 'Europe/Berlin',
        ratingScale: 'points',
        watchlistAutoRemove: false,
      });
      expect(counts(await cli(['import', 'cinelog', '--user', 'bob', out]))).toEqual({
        added: 0,
        existing: 14,
        unmatched: 0,
      });
    });

    it('json: entries’ own ratings, rewatch flags and tags, likes and lists round-trip (export, import, export: equal)', async () => {
      const ids = await fillAlice();
      await world.ctx.library.write(world.alice.user.id, async (w) => {
        await w.logEntries([
          {
            movieId: ids[720003]!,
            watchedAt: '2023-05-01',
            plays: 1,
            comment: null,
            rating: 7,
            rewatch: false,
            tags: ['rainy', 'Café ☕'],
          },
        ]);
        await w.describeEntries([
          { movieId: ids[720004]!, watchedAt: '2023-04-01', rewatch: true, rating: 3 },
        ]);
        await w.likeMoviesAt([
          { movieId: ids[720003]!, likedAt: '2023-05-02T21:30:00.000Z' },
          { movieId: ids[720001]!, likedAt: '2022-01-01T00:00:01.000Z' },
        ]);
        const ranked = await w.createList({
          name: 'Best / of 🎬',
          description: 'Line one\nline two',
          ranked: true,
          visibility: 'public',
        });
        await w.putListMovies(ranked.id, [
          { movieId: ids[720005]!, note: '=not a formula' },
          { movieId: ids[720003]! },
          { movieId: ids[720001]!, position: 1, note: 'first' },
        ]);
        const loose = await w.createList({ name: 'Later', visibility: 'users' });
        await w.putListMovies(loose.id, [{ movieId: ids[720004]! }]);
        // A list without movies (yet) is a list all the same.
        await w.createList({ name: 'Someday', description: 'to fill', ranked: true });
      });
      const out = join(world.dir, 'alice.json');
      expect((await cli(['export', '--user', 'alice', '--format', 'json', '--out', out])).code).toBe(0);
      const first = JSON.parse(readFileSync(out, 'utf8'));
      expect(first.history).toContainEqual(
        expect.objectContaining({
          watchedAt: '2023-05-01',
          rating: 7,
          rewatch: false,
          tags: ['Café ☕', 'rainy'],
        }),
      );
      expect(first.likes).toHaveLength(2);
      expect(first.lists.map((l: { name: string; movies: unknown[] }) => [l.name, l.movies.length])).toEqual([
        ['Best / of 🎬', 3],
        ['Later', 1],
        ['Someday', 0],
      ]);

      const bob = await createUser(world.ctx, { name: 'bob' });
      const imported = await cli(['import', 'cinelog', '--user', 'bob', out]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(await lists(bob)).toEqual(await lists(world.alice));
      const back = join(world.dir, 'bob.json');
      expect((await cli(['export', '--user', 'bob', '--format', 'json', '--out', back])).code).toBe(0);
      const second = JSON.parse(readFileSync(back, 'utf8'));
      const unnamed = (json: { user: object }) => ({
        ...json,
        exportedAt: null,
        user: { ...json.user, name: null },
      });
      expect(unnamed(second)).toEqual(unnamed(first));

      // Again: nothing more.
      const again = await cli(['import', 'cinelog', '--user', 'bob', out]);
      expect(counts(again).added).toBe(0);
      expect((await cli(['export', '--user', 'bob', '--format', 'json', '--out', back])).code).toBe(0);
      expect(unnamed(JSON.parse(readFileSync(back, 'utf8')))).toEqual(unnamed(first));
    });

    it('json: a list or entry value that cannot be read is listed, the rest imports; an unknown version is refused', async () => {
      await fillAlice();
      const movie = { tmdbId: 720003, title: 'Ninefold', year: 2020 };
      const file = (version: number, extra: object) =>
        files(`v${version}-${Object.keys(extra).join('-')}`, {
          'x.json': JSON.stringify({
            format: 'cinelog',
            version,
            history: [],
            watchlist: [],
            ratings: [],
            ...extra,
          }),
        });
      const refused = await cli(['import', 'cinelog', '--user', 'alice', file(3, {})]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('unknown version 3');
      const path = file(2, {
        history: [{ movie, watchedAt: '2023-01-01', plays: 1, rating: 11 }],
        likes: [{ movie, likedAt: 'yesterday' }],
        lists: [
          { name: '', ranked: true, movies: [] },
          { name: 'Fine', ranked: 'yes', movies: [] },
          { name: 'Kept', movies: [{ movie }, { movie: {}, note: 'no movie' }, 'nothing'] },
        ],
      });
      const res = await cli(['import', 'cinelog', '--user', 'alice', '--dry-run', path]);
      expect(res.code, res.stderr).toBe(0);
      expect(counts(res)).toMatchObject({ unmatched: 6 });
      expect(res.stderr).toContain('lists: would add 1, already there 0');
    });

    it('json: imported into a fresh instance, the API answers the same (but for the catalogue’s own ids and dates)', async () => {
      await fillAlice();
      const exported = await cli(['export', '--user', 'alice', '--format', 'json']);
      expect(exported.code).toBe(0);
      const out = join(world.dir, 'stdout.json');
      writeFileSync(out, exported.stdout);

      const other = await setupTestApp();
      try {
        const carol = await createUser(other, { name: 'carol' });
        const imported = await cli(['import', 'cinelog', '--user', 'carol', out], other);
        expect(imported.code, imported.stderr).toBe(0);
        const catalogueFree = (value: unknown) =>
          JSON.parse(JSON.stringify(value), (key, v) =>
            ['service', 'createdAt', 'updatedAt', 'posterPath'].includes(key) ? undefined : v,
          );
        expect(catalogueFree(await lists(carol, other))).toEqual(catalogueFree(await lists(world.alice)));
      } finally {
        await other.close();
      }
    });

    it('movary: three CSVs guarded against formulas, read back by the Movary import to the same history', async () => {
      await fillAlice();
      const out = join(world.dir, 'movary-out');
      const exported = await cli(['export', '--user', 'alice', '--format', 'movary', '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(['history.csv', 'ratings.csv', 'watchlist.csv']);
      const history = readFileSync(join(out, 'history.csv'), 'utf8');
      expect(history.split('\r\n')[0]).toBe('title,year,tmdbId,imdbId,watchedAt,comment,location');
      expect(history).toContain(
        `Harbour Lights,1999,720004,tt9720004,2023-04-01,"'=HYPERLINK(""http://evil.test"")",\r\n`,
      );
      expect(history.split('\r\n').filter((line) => line.startsWith('Harbour Lights Again,'))).toEqual([
        'Harbour Lights Again,2001,720005,tt9720005,2023-04-01,"\'-meh, +1 @home",',
        'Harbour Lights Again,2001,720005,tt9720005,2023-04-01,"\'-meh, +1 @home",',
        'Harbour Lights Again,2001,720005,tt9720005,2023-04-01,"\'-meh, +1 @home",',
      ]);
      expect(readFileSync(join(out, 'watchlist.csv'), 'utf8')).toContain(
        'Salt Road Summer,2016,720001,tt9720001,2024-06-15 14:01:00',
      );

      const dave = await createUser(world.ctx, { name: 'dave' });
      await world.ctx.users.update('dave', { timezone: 'Europe/Berlin' });
      expect((await cli(['import', 'movary', '--user', 'dave', out])).code).toBe(0);
      const [mine, theirs] = [await lists(world.alice), await lists(dave)];
      expect(theirs.played).toEqual(mine.played);
      expect(theirs.ratings.ratings.map((r: { rating: number }) => r.rating).sort()).toEqual(
        mine.ratings.ratings.map((r: { rating: number }) => r.rating).sort(),
      );
    });

    it('letterboxd: the files of Letterboxd’s own export, to a directory; comments as reviews, guarded', async () => {
      await fillAlice();
      const out = join(world.dir, 'letterboxd');
      const exported = await cli(['export', '--user', 'alice', '--format', 'letterboxd', '--out', out]);
      expect(exported.code, exported.stderr).toBe(0);
      const lines = (name: string) => readFileSync(join(out, name), 'utf8').split('\r\n');
      expect(readdirSync(out).sort()).toEqual([
        'diary.csv',
        'likes',
        'ratings.csv',
        'reviews.csv',
        'watched.csv',
        'watchlist.csv',
      ]);
      expect(lines('likes/films.csv')).toEqual(['Date,Name,Year,Letterboxd URI', '']);
      // A line per play of the entry, all alike.
      expect(lines('diary.csv').filter((l) => l.includes('Harbour Lights Again'))).toEqual([
        '2023-04-01,Harbour Lights Again,2001,,,,,2023-04-01',
        '2023-04-01,Harbour Lights Again,2001,,,,,2023-04-01',
        '2023-04-01,Harbour Lights Again,2001,,,,,2023-04-01',
      ]);
      expect(
        lines('reviews.csv')
          .filter((l) => l.includes('Harbour Lights'))
          .sort(),
      ).toEqual([
        '2023-04-01,Harbour Lights Again,2001,,,,"\'-meh, +1 @home",,2023-04-01',
        '2023-04-01,Harbour Lights,1999,,,,"\'=HYPERLINK(""http://evil.test"")",,2023-04-01',
      ]);
      expect(lines('ratings.csv').filter((l) => l.includes('Harbour Lights Again'))).toEqual([
        '2024-06-15,Harbour Lights Again,2001,,5',
      ]);
    });

    it('refuses an unknown format or user with one line', async () => {
      expect((await cli(['export', '--user', 'alice', '--format', 'trakt'])).code).toBe(2);
      expect((await cli(['export', '--format', 'json'])).code).toBe(2);
      expect(await cli(['export', '--user', 'nobody', '--format', 'json'])).toMatchObject({
        code: 1,
        stderr: 'cinelog: no user named "nobody"\n',
      });
    });
  });

  it('the library reads every record page by page, in the history’s order, ties by insertion', async () => {
    const watchlist = csv('title,year,tmdbId,imdbId,addedAt', ...FILMS.map((m) => `${m.title},,${m.id},,`));
    const res = await cli([
      'import',
      'movary',
      '--user',
      'alice',
      files('all', { 'watchlist.csv': watchlist }),
    ]);
    expect(res.code, res.stderr).toBe(0);
    const ids: number[] = [];
    for (const m of FILMS) {
      const row = await world.ctx.db
        .selectFrom('movies')
        .select('id')
        .where('tmdb_id', '=', m.id)
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
    const owner = { id: world.alice.user.id, watchlistAutoRemove: false, timezone: 'UTC' };
    const entries = [
      { movieId: ids[3]!, watchedAt: '2023-01-02', plays: 1, comment: null, position: 1 },
      { movieId: ids[1]!, watchedAt: '2023-01-02', plays: 1, comment: null, position: 1 },
      { movieId: ids[0]!, watchedAt: null, plays: 2, comment: null },
      { movieId: ids[2]!, watchedAt: '2023-01-01', plays: 1, comment: null, position: 2 },
      { movieId: ids[4]!, watchedAt: '2023-01-02', plays: 1, comment: null, position: 0.5 },
    ];
    for (const entry of entries) await world.ctx.library.write(owner.id, (w) => w.addPlays([entry]));
    const seen: (string | null)[] = [];
    for await (const page of world.ctx.library.records(world.alice.user, 'plays', 2)) {
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...page.map((r) => `${r.watchedAt}:${r.movie.serviceId}`));
    }
    expect(seen).toEqual([
      `null:${ids[0]}`,
      `2023-01-01:${ids[2]}`,
      `2023-01-02:${ids[4]}`,
      `2023-01-02:${ids[3]}`,
      `2023-01-02:${ids[1]}`,
    ]);
  });
});

describe('GET /api/users/{username}/export', () => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await setupTestApp();
  });
  afterEach(() => ctx.close());

  const get = (name: string, headers: Record<string, string> = {}, query = '') =>
    ctx.app.inject({ method: 'GET', url: `/api/users/${name}/export${query}`, headers });

  it('requires a token', async () => {
    const { user } = await createUser(ctx);
    const res = await get(user.name);
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('');
  });

  it("is the owner's alone: another user gets a 403, an unknown user a 404", async () => {
    const owner = await createUser(ctx);
    const other = await createUser(ctx);
    expect((await get(owner.user.name, other.auth)).statusCode).toBe(403);
    expect((await get('nobody', other.auth)).statusCode).toBe(404);
    expect((await get(owner.user.name, owner.auth, '?format=trakt')).statusCode).toBe(400);
  });

  it('downloads the json, movary (zip) and letterboxd exports, as the command line writes them', async () => {
    const alice = await createUser(ctx);
    const movie = await createMovie(ctx, { title: '=Formula Film', release_date: '2010-01-01' });
    await ctx.library.write(alice.user.id, async (w) => {
      await w.addPlays([{ movieId: movie.id, watchedAt: '2024-01-02', plays: 2, comment: 'twice' }]);
      await w.setRatings([{ movieId: movie.id, rating: 9 }]);
    });
    const json = await get(alice.user.name, alice.auth);
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toBe(
      `attachment; filename="cinelog-${alice.user.name}.json"`,
    );
    expect(json.json()).toMatchObject({
      format: 'cinelog',
      history: [
        {
          movie: { title: '=Formula Film', year: 2010 },
          watchedAt: '2024-01-02',
          plays: 2,
          comment: 'twice',
        },
      ],
      ratings: [{ rating: 9 }],
      watchlist: [],
    });
    const letterboxd = await get(alice.user.name, alice.auth, '?format=letterboxd');
    expect(letterboxd.headers['content-type']).toBe('application/zip');
    expect(letterboxd.headers['content-disposition']).toBe(
      `attachment; filename="letterboxd-${alice.user.name}.zip"`,
    );
    const boxd = unzipSync(new Uint8Array(letterboxd.rawPayload));
    expect(strFromU8(boxd['diary.csv']!).split('\r\n').slice(1, 3)).toEqual([
      "2024-01-02,'=Formula Film,2010,,,,,2024-01-02",
      "2024-01-02,'=Formula Film,2010,,,,,2024-01-02",
    ]);
    expect(strFromU8(boxd['ratings.csv']!).split('\r\n')[1]).toBe("2024-06-15,'=Formula Film,2010,,4.5");
    const movary = await get(alice.user.name, alice.auth, '?format=movary');
    expect(movary.headers['content-type']).toBe('application/zip');
    const unzipped = unzipSync(new Uint8Array(movary.rawPayload));
    expect(Object.keys(unzipped).sort()).toEqual(['history.csv', 'ratings.csv', 'watchlist.csv']);
    expect(strFromU8(unzipped['ratings.csv']!)).toContain("'=Formula Film,2010");
  });
});

describe('POST /api/users/{username}/imports and GET …/imports/{jobId}', () => {
  const world = importsWorld(FILMS);

  const upload = (name: string, headers: Record<string, string>, query: string, payload: string | Buffer) =>
    world.ctx.app.inject({
      method: 'POST',
      url: `/api/users/${name}/imports?${query}`,
      headers: { 'content-type': 'text/csv', ...headers },
      payload,
    });
  const status = (name: string, headers: Record<string, string>, jobId: number) =>
    world.ctx.app.inject({ method: 'GET', url: `/api/users/${name}/imports/${jobId}`, headers });

  it('requires a token', async () => {
    const { user } = await createUser(world.ctx);
    expect((await upload(user.name, {}, 'format=movary', MOVARY_HISTORY)).statusCode).toBe(401);
    expect((await status(user.name, {}, 1)).statusCode).toBe(401);
    expect(readdirSync(world.importsDir)).toEqual([]);
  });

  it("is the owner's alone: another user can neither upload nor see the import", async () => {
    const alice = await createUser(world.ctx);
    const bob = await createUser(world.ctx);
    expect((await upload(alice.user.name, bob.auth, 'format=movary', MOVARY_HISTORY)).statusCode).toBe(403);
    const accepted = await upload(alice.user.name, alice.auth, 'format=movary', MOVARY_HISTORY);
    expect(accepted.statusCode).toBe(202);
    const { jobId } = accepted.json();
    expect((await status(alice.user.name, bob.auth, jobId)).statusCode).toBe(403);
    const asBob = await status(bob.user.name, bob.auth, jobId);
    expect(asBob.statusCode).toBe(404);
    expect(asBob.json()).toMatchObject({ error: 'ImportNotFound' });
  });

  it('answers an import id outside the ids a job can have with a 400, never a 5xx', async () => {
    const alice = await createUser(world.ctx);
    for (const jobId of ['1e%2B21', '2147483648', '99999999999999999999', '0', '-1', '1.5']) {
      const res = await world.ctx.app.inject({
        method: 'GET',
        url: `/api/users/${alice.user.name}/imports/${jobId}`,
        headers: alice.auth,
      });
      expect(res.statusCode, jobId).toBe(400);
      expect(res.json()).toMatchObject({ error: 'InvalidPathParameter' });
    }
  });

  it('checks the file at once (a bad one is a 400, nothing queued), runs the import as a job, and reports it', async () => {
    const alice = await createUser(world.ctx);
    const bad = await upload(
      alice.user.name,
      alice.auth,
      'format=movary',
      csv('title,year,watchedAt', 'x,1,2020-01-01'),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/lacks the column tmdbId/);
    expect((await upload(alice.user.name, alice.auth, 'format=movary', '')).statusCode).toBe(400);
    const huge = await upload(
      alice.user.name,
      alice.auth,
      'format=movary',
      Buffer.alloc(33 * 1024 * 1024, 0x61),
    );
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ error: 'PayloadTooLarge' });
    expect(await world.ctx.app.jobs.queue.recent()).toEqual([]);
    expect(readdirSync(world.importsDir)).toEqual([]);

    const dry = await upload(alice.user.name, alice.auth, 'format=movary&dryRun=true', MOVARY_HISTORY);
    const real = await upload(alice.user.name, alice.auth, 'format=movary', MOVARY_HISTORY);
    expect([dry.statusCode, real.statusCode]).toEqual([202, 202]);
    expect((await status(alice.user.name, alice.auth, real.json().jobId)).json()).toMatchObject({
      state: 'queued',
      summary: null,
    });
    await world.ctx.app.jobs.runner.runUntilEmpty();
    const dryDone = (await status(alice.user.name, alice.auth, dry.json().jobId)).json();
    expect(dryDone).toMatchObject({
      state: 'done',
      dryRun: true,
      summary: { added: 4, existing: 0, unmatched: 1 },
    });
    const done = (await status(alice.user.name, alice.auth, real.json().jobId)).json();
    expect(done).toMatchObject({
      state: 'done',
      dryRun: false,
      progress: { done: 4, total: 4 },
      summary: {
        added: 4,
        existing: 0,
        unmatched: 1,
        unmatchedRows: [{ line: 6, title: 'A Film Nobody Made' }],
      },
      error: null,
    });
    const played = await world.ctx.app.inject({
      method: 'GET',
      url: `/api/users/${alice.user.name}/played/movies`,
      headers: alice.auth,
    });
    expect(played.json().played).toHaveLength(3);
    expect(readdirSync(world.importsDir)).toEqual([]);
  });

  it('takes a Letterboxd export ZIP as the body', async () => {
    const alice = await createUser(world.ctx);
    const zip = Buffer.from(
      zipSync({
        'watchlist.csv': strToU8(
          csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,'),
        ),
      }),
    );
    const accepted = await upload(
      alice.user.name,
      { ...alice.auth, 'content-type': 'application/zip' },
      'format=letterboxd',
      zip,
    );
    expect(accepted.statusCode).toBe(202);
    await world.ctx.app.jobs.runner.runUntilEmpty();
    expect((await status(alice.user.name, alice.auth, accepted.json().jobId)).json()).toMatchObject({
      state: 'done',
      summary: { added: 1, existing: 0, unmatched: 0 },
    });
  });
});
