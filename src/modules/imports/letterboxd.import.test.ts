import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { createMovie, createUser, type TestUser } from '../../../test/harness.js';
import {
  CARTOGRAPHER,
  cliImportWorld,
  csv,
  HARBOUR,
  HARBOUR_AGAIN,
  NINEFOLD,
  SALT_ROAD,
} from '../../../test/import-world.js';
import type { ImportRow } from './import.types.js';
import { parseHere } from './import-parse.js';
import { slugOf } from './letterboxd.import.js';

const world = cliImportWorld();
const { cli, counts, files, lists } = world;

/** The fixture: a full export of today's layout (top level, deleted/, orphaned/, likes/, lists/). */
const FULL_EXPORT = join(import.meta.dirname, '../../../test/fixtures/imports/letterboxd/full-export');
const CONTEXT = { timezone: 'Europe/Berlin', today: '2024-06-15' };

/** The fixture's files by their path in the export. */
function fixtureFiles(): Record<string, Uint8Array> {
  const found: Record<string, Uint8Array> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else found[relative(FULL_EXPORT, path).split('\\').join('/')] = readFileSync(path);
    }
  };
  walk(FULL_EXPORT);
  return found;
}

/** A zip of `entries` in exactly the order given, each under `folder`. */
function zipOf(entries: [string, Uint8Array][], folder = ''): Uint8Array {
  return zipSync(Object.fromEntries(entries.map(([name, bytes]) => [folder + name, bytes])));
}

const parse = (path: string, context = CONTEXT) => parseHere({ format: 'letterboxd', path, context });

/** A parse's rows as short tuples, with the files' names without the export's folder. */
function summary(result: Awaited<ReturnType<typeof parse>>, folder = '') {
  const file = (name: string) => (name.startsWith(folder) ? name.slice(folder.length) : name);
  return {
    rows: result.rows.map((row: ImportRow) => {
      const what =
        row.kind === 'play'
          ? [row.watchedAt, row.plays, row.comment]
          : row.kind === 'rating'
            ? [row.rating, row.ratedAt]
            : row.kind === 'watchlist'
              ? [row.addedAt]
              : row.kind === 'like'
                ? [row.likedAt]
                : row.kind === 'list-movie'
                  ? [row.list.name, row.note]
                  : [];
      return [`${file(row.file)}:${row.line}`, row.kind, row.movie.title, row.movie.year, ...what];
    }),
    unreadable: result.unreadable.map((row) => ({ ...row, file: file(row.file) })),
    skipped: Object.fromEntries(result.skipped.map(({ what, count }) => [what, count])),
  };
}

/** What a user's diary, likes, lists and ratings hold, as the API answers them. */
async function landedOf(user: TestUser) {
  const diary = await world.api(user, 'diary?limit=100');
  const likes = await world.api(user, 'likes/movies');
  const { lists: own } = await world.api(user, 'lists');
  const lists = [];
  for (const list of [...own].sort((a, b) => a.name.localeCompare(b.name))) {
    const full = await world.api(user, `lists/${list.id}?limit=100`);
    lists.push({
      name: full.name,
      description: full.description,
      ranked: full.ranked,
      visibility: full.visibility,
      movies: full.movies.map((m: { movie: { title: string }; position: number; note: string | null }) => [
        m.position,
        m.movie.title,
        m.note,
      ]),
    });
  }
  const { ratings } = await world.lists(user);
  return {
    diary: diary.diary.map(
      (e: {
        movie: { title: string };
        watchedAt: string;
        plays: number;
        rating: number | null;
        rewatch: boolean;
        tags: string[];
      }) => [e.movie.title, e.watchedAt, e.plays, e.rating, e.rewatch, e.tags],
    ),
    likes: likes.likes.map((l: { movie: { title: string }; likedAt: string }) => [l.movie.title, l.likedAt]),
    lists,
    ratings: Object.fromEntries(
      ratings.ratings.map((r: { movie: { title: string }; rating: number }) => [r.movie.title, r.rating]),
    ),
  };
}

const noon = (date: string) => new Date(`${date}T10:00:00.000Z`).toISOString(); // Berlin, summer
const noonWinter = (date: string) => new Date(`${date}T11:00:00.000Z`).toISOString();

/** What the fixture holds, read: only the top level imports; likes and lists are counted. */
const FULL_EXPORT_READ = {
  rows: [
    ['diary.csv:2', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, null],
    ['diary.csv:3', 'play', 'Salt Road Summer', 2016, '2023-03-02', 1, null],
    [
      'diary.csv:4',
      'play',
      'Le Cartographe silencieux',
      2011,
      '2023-03-05',
      1,
      'A quiet, careful film.\n\nMaps as "memory".',
    ],
    ['diary.csv:5', 'play', 'Ninefold', 2020, '2023-03-06', 1, null],
    ['diary.csv:6', 'play', 'Ninefold', 2020, '2023-04-01', 1, null],
    ['watched.csv:2', 'watched', 'Salt Road Summer', 2016],
    ['watched.csv:3', 'watched', 'Le Cartographe silencieux', 2011],
    ['watched.csv:4', 'watched', 'Ninefold', 2020],
    ['watched.csv:5', 'watched', 'Harbour Lights', 1999],
    ['ratings.csv:2', 'rating', 'Salt Road Summer', 2016, 7, noonWinter('2023-03-03')],
    ['ratings.csv:3', 'rating', 'Harbour Lights', 1999, 1, noonWinter('2020-01-01')],
    ['ratings.csv:4', 'rating', 'Ninefold', 2020, 8, noonWinter('2023-03-07')],
    ['watchlist.csv:2', 'watchlist', 'Harbour Lights Again', 2001, noonWinter('2023-01-01')],
    ['likes/films.csv:2', 'like', 'Salt Road Summer', 2016, noonWinter('2023-02-02')],
    ['likes/films.csv:3', 'like', 'Ninefold', 2020, noonWinter('2023-03-07')],
    ['lists/older-list.csv:6', 'list-movie', 'Harbour Lights', 1999, 'Seaside', null],
    ['lists/older-list.csv:7', 'list-movie', 'Salt Road Summer', 2016, 'Seaside', null],
    // Its description quotes a Position line, and a note spans two lines (CRLF, each one line).
    ['lists/rainy-day-films.csv:9', 'list-movie', 'Ninefold', 2020, 'Rainy day films', null],
    [
      'lists/rainy-day-films.csv:10',
      'list-movie',
      'Harbour Lights',
      1999,
      'Rainy day films',
      'A note\non two lines',
    ],
    ['lists/rainy-day-films.csv:12', 'list-movie', 'Harbour Lights Again', 2001, 'Rainy day films', null],
  ],
  unreadable: [],
  skipped: {
    // The diary entries' ratings and tags land on the entries, the liked films and lists too.
    'liked lists': 1,
    'liked reviews': 1,
  },
};

describe('letterboxd', () => {
  const zip = () =>
    zipSync({
      'diary.csv': strToU8(
        csv(
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
          '2023-02-02,Salt Road Summer,2016,https://letterboxd.com/world.alice/film/salt-road-summer/,4.5,,,2023-02-01',
          '2023-03-03,Salt Road Summer,2016,https://boxd.it/abc1,3,Yes,"summer, road",2023-03-02',
          '2023-03-05,Le Cartographe silencieux,2011,https://boxd.it/abc2,,,,2023-03-05',
          '2023-03-06,Ninefold,2019,https://boxd.it/abc3,,,,2023-03-06',
          '2023-03-07,A Film Nobody Made,2001,https://boxd.it/abc4,,,,2023-03-07',
        ),
      ),
      'reviews.csv': strToU8(
        csv(
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date',
          '2023-03-05,Le Cartographe silencieux,2011,https://boxd.it/abc2,,,"A quiet, careful film.",,2023-03-05',
        ),
      ),
      'watched.csv': strToU8(
        csv(
          'Date,Name,Year,Letterboxd URI',
          '2023-02-02,Salt Road Summer,2016,',
          '2020-01-01,Harbour Lights,1999,',
        ),
      ),
      'ratings.csv': strToU8(
        csv(
          'Date,Name,Year,Letterboxd URI,Rating',
          '2023-03-03,Salt Road Summer,2016,,3.5',
          '2020-01-01,Harbour Lights,1999,,0.5',
        ),
      ),
      'watchlist.csv': strToU8(csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,')),
    });

  it('matches by title and year (exact, original title, year ±1), maps half stars to 1-10, and a second run searches nothing it found', async () => {
    const path = join(world.dir, 'letterboxd-world.alice.zip');
    writeFileSync(path, zip());
    const first = await cli(['import', 'letterboxd', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 8, existing: 1, unmatched: 1 });
    expect(first.stderr).toContain('diary.csv line 6: play of "A Film Nobody Made" (2001)');

    const { played, ratings, watchlist } = await lists(world.alice);
    const byTitle = Object.fromEntries(
      played.played.map((p: { movie: { title: string }; watchedDates: unknown }) => [
        p.movie.title,
        p.watchedDates,
      ]),
    );
    expect(byTitle).toEqual({
      'Salt Road Summer': [
        { date: '2023-03-02', plays: 1, comment: null },
        { date: '2023-02-01', plays: 1, comment: null },
      ],
      'The Quiet Cartographer': [{ date: '2023-03-05', plays: 1, comment: 'A quiet, careful film.' }],
      Ninefold: [{ date: '2023-03-06', plays: 1, comment: null }],
      'Harbour Lights': [{ date: null, plays: 1, comment: null }],
    });
    // The slug is the user's own id of the movie (issue 27: a file never rewrites the shared
    // catalogue's ids), so the user's export gives it back; the catalogue's movie keeps none.
    const salt = played.played.find(
      (p: { movie: { title: string } }) => p.movie.title === 'Salt Road Summer',
    );
    expect(salt.movie.ids.journal).toBe(null);
    const exported = await cli(['export', '--user', 'alice', '--format', 'json']);
    const history = JSON.parse(exported.stdout).history as {
      movie: { title: string; letterboxdId: string };
    }[];
    expect(history.find((h) => h.movie.title === 'Salt Road Summer')?.movie.letterboxdId).toBe(
      'salt-road-summer',
    );
    expect(
      Object.fromEntries(
        ratings.ratings.map((r: { movie: { title: string }; rating: number; ratedAt: string }) => [
          r.movie.title,
          [r.rating, r.ratedAt],
        ]),
      ),
    ).toEqual({ 'Salt Road Summer': [7, '2023-03-03'], 'Harbour Lights': [1, '2020-01-01'] });
    expect(
      watchlist.watchlist.map((w: { movie: { title: string }; addedAt: string }) => [
        w.movie.title,
        w.addedAt,
      ]),
    ).toEqual([['Harbour Lights Again', '2023-01-01']]);

    world.fake.requests.length = 0;
    const second = await cli(['import', 'letterboxd', '--user', 'alice', path]);
    expect(counts(second)).toEqual({ added: 0, existing: 9, unmatched: 1 });
    expect(world.fake.requests.map((r) => r.query.query ?? r.path)).toEqual(
      expect.arrayContaining(['A Film Nobody Made']),
    );
    // Issue 27 (defect 2): a ±1 year guess is made only after TMDB was asked for the exact year, on
    // every run; so Ninefold (2019, TMDB's is 2020) is asked again. Nothing found exactly is.
    expect(new Set(world.fake.requests.map((r) => r.query.query))).toEqual(
      new Set(['Ninefold', 'A Film Nobody Made']),
    );
  });

  it('reads the unpacked export from a directory, and refuses a directory without its files', async () => {
    const unpacked = files('unpacked', {
      'watchlist.csv': csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,'),
    });
    expect(counts(await cli(['import', 'letterboxd', '--user', 'alice', unpacked]))).toEqual({
      added: 1,
      existing: 0,
      unmatched: 0,
    });
    const result = await cli([
      'import',
      'letterboxd',
      '--user',
      'alice',
      files('empty', { 'notes.txt': 'hello' }),
    ]);
    expect(result).toMatchObject({ code: 1 });
    expect(result.stderr).toMatch(/found no Letterboxd export/);
  });

  it('two users import the same export at once (two processes): each gets all of it, the catalogue each movie once', async () => {
    const path = join(world.dir, 'shared-export.zip');
    writeFileSync(path, zipOf(Object.entries(fixtureFiles()), 'letterboxd-shared-2026-11-28-09-00-utc/'));
    const bob = await createUser(world.ctx, { name: 'bob' });
    await world.ctx.users.update('bob', { timezone: 'Europe/Berlin' });
    // Each `cli` call opens its own database connection and services, as a second process would.
    const [forAlice, forBob] = await Promise.all([
      cli(['import', 'letterboxd', '--user', 'alice', path]),
      cli(['import', 'letterboxd', '--user', 'bob', path]),
    ]);
    expect(forAlice.code, forAlice.stderr).toBe(0);
    expect(forBob.code, forBob.stderr).toBe(0);
    expect(counts(forBob)).toEqual(counts(forAlice));
    const alices = await landedOf(world.alice);
    expect(alices.diary.length).toBeGreaterThan(0);
    expect(alices.lists.length).toBeGreaterThan(0);
    expect(await landedOf(bob)).toEqual(alices);
    const catalogue = await world.ctx.db.selectFrom('movies').select('tmdb_id').execute();
    expect(new Set(catalogue.map((m) => m.tmdb_id)).size).toBe(catalogue.length);
  });

  describe('an export with folders (issue 27, defect 1)', () => {
    const entries = Object.entries(fixtureFiles());
    const folderFirst = (folder: string) => [
      ...entries.filter(([name]) => name.startsWith(folder)),
      ...entries.filter(([name]) => !name.startsWith(folder)),
    ];
    const WRAPPER = 'letterboxd-example-alice-2026-01-01-10-00-utc/';
    const orders: [string, [string, Uint8Array][], string][] = [
      ['deleted/ first', folderFirst('deleted/'), ''],
      ['orphaned/ first', folderFirst('orphaned/'), ''],
      ['likes/ first', folderFirst('likes/'), ''],
      ['in name order', entries, ''],
      ['in reverse order', [...entries].reverse(), ''],
      ['in one folder, deleted/ first', folderFirst('deleted/'), WRAPPER],
      ['in one folder, reversed', [...entries].reverse(), WRAPPER],
      // Unpacked into a folder and zipped again with it: lists/ and likes/ two levels down.
      ['two folders down, lists/ first', folderFirst('lists/'), `Downloads/${WRAPPER}`],
      ['two folders down, likes/ first, reversed', folderFirst('likes/').reverse(), `Downloads/${WRAPPER}`],
    ];

    it.each(orders)('imports only the top level, whatever the ZIP order: %s', async (_, order, folder) => {
      const path = join(world.dir, 'export.zip');
      writeFileSync(path, zipOf(order, folder));
      expect(summary(await parse(path), folder)).toEqual(FULL_EXPORT_READ);
    });

    it('reads the unpacked directory the same', async () => {
      expect(summary(await parse(FULL_EXPORT))).toEqual(FULL_EXPORT_READ);
      const wrapped = files('wrapped', Object.fromEntries(entries.map(([n, b]) => [`${WRAPPER}${n}`, b])));
      expect(summary(await parse(wrapped), WRAPPER)).toEqual(FULL_EXPORT_READ);
    });

    it('lands whole through the command line: plays, dates, ratings and watchlist, never deleted/', async () => {
      const path = join(world.dir, 'letterboxd-example-alice.zip');
      writeFileSync(path, zipOf(folderFirst('deleted/'), WRAPPER));
      const result = await cli(['import', 'letterboxd', '--user', 'alice', path]);
      expect(result.code, result.stderr).toBe(0);
      // 5 plays and Harbour Lights seen, 3 ratings, 1 watchlist entry, 2 likes, 2 lists; 3 watched.csv
      // rows already played.
      expect(counts(result)).toEqual({ added: 14, existing: 3, unmatched: 0 });
      const { played, ratings, watchlist } = await lists(world.alice);
      expect(
        Object.fromEntries(
          played.played.map((p: { movie: { title: string }; watchedDates: unknown }) => [
            p.movie.title,
            p.watchedDates,
          ]),
        ),
      ).toEqual({
        'Salt Road Summer': [
          { date: '2023-03-02', plays: 1, comment: null },
          { date: '2023-02-01', plays: 1, comment: null },
        ],
        'The Quiet Cartographer': [
          { date: '2023-03-05', plays: 1, comment: 'A quiet, careful film.\n\nMaps as "memory".' },
        ],
        Ninefold: [
          { date: '2023-04-01', plays: 1, comment: null },
          { date: '2023-03-06', plays: 1, comment: null },
        ],
        'Harbour Lights': [{ date: null, plays: 1, comment: null }],
      });
      expect(
        Object.fromEntries(
          ratings.ratings.map((r: { movie: { title: string }; rating: number }) => [r.movie.title, r.rating]),
        ),
      ).toEqual({ 'Salt Road Summer': 7, 'Harbour Lights': 1, Ninefold: 8 });
      expect(watchlist.watchlist.map((w: { movie: { title: string } }) => w.movie.title)).toEqual([
        'Harbour Lights Again',
      ]);
    });

    it('fills in what an earlier import skipped: entries’ ratings, rewatch flags and tags, likes and lists; again, nothing', async () => {
      const all = folderFirst('deleted/');
      // An earlier import (before issue 30) wrote the diary's plays alone: as a diary without those columns.
      const plain = files('plain', {
        'diary.csv': csv(
          'Date,Name,Year,Letterboxd URI,Watched Date',
          '2023-02-02,Salt Road Summer,2016,,2023-02-01',
          '2023-03-03,Salt Road Summer,2016,,2023-03-02',
        ),
      });
      expect((await cli(['import', 'letterboxd', '--user', 'alice', plain])).code).toBe(0);
      const path = join(world.dir, 'letterboxd-example-alice.zip');
      writeFileSync(path, zipOf(all, WRAPPER));

      const dry = await cli(['import', 'letterboxd', '--user', 'alice', '--dry-run', path]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stderr).toContain(
        'diary entries described (rating, rewatch, tags): would add 5, already there 0',
      );
      expect(dry.stderr).toContain('likes: would add 2, already there 0');
      expect(dry.stderr).toContain('lists: would add 2, already there 0');
      expect(await world.api(world.alice, 'likes/movies')).toMatchObject({ likes: [] });
      expect(await world.api(world.alice, 'lists')).toEqual({ lists: [] });

      const first = await cli(['import', 'letterboxd', '--user', 'alice', path]);
      expect(first.code, first.stderr).toBe(0);
      // 3 plays, Harbour Lights seen, 3 ratings, 1 watchlist entry, 2 likes, 2 lists; 2 plays there already,
      // 3 watched.csv rows already played.
      expect(counts(first)).toEqual({ added: 12, existing: 5, unmatched: 0 });

      const landed = () => landedOf(world.alice);
      const expected = {
        diary: [
          ['Ninefold', '2023-04-01', 1, null, true, []],
          ['Ninefold', '2023-03-06', 1, 10, false, ['rainy']],
          ['The Quiet Cartographer', '2023-03-05', 1, null, false, []],
          ['Salt Road Summer', '2023-03-02', 1, 6, true, ['road trip', 'summer']],
          ['Salt Road Summer', '2023-02-01', 1, 9, false, []],
        ],
        likes: [
          ['Ninefold', '2023-03-07'],
          ['Salt Road Summer', '2023-02-02'],
        ],
        lists: [
          {
            name: 'Rainy day films',
            description:
              'Films for a wet afternoon.\n\nPosition,Name,Year,URL,Description\n(this line is the description, not the list)',
            ranked: true,
            visibility: 'private',
            movies: [
              [1, 'Ninefold', null],
              [2, 'Harbour Lights', 'A note\non two lines'],
              [3, 'Harbour Lights Again', null],
            ],
          },
          {
            name: 'Seaside',
            description: null,
            ranked: true,
            visibility: 'private',
            movies: [
              [1, 'Harbour Lights', null],
              [2, 'Salt Road Summer', null],
            ],
          },
        ],
        // The movies' ratings are ratings.csv's, not their entries'.
        ratings: { 'Salt Road Summer': 7, 'Harbour Lights': 1, Ninefold: 8 },
      };
      expect(await landed()).toEqual(expected);

      // Again: no play, like, list or entry value more.
      const again = await cli(['import', 'letterboxd', '--user', 'alice', path]);
      expect(again.code, again.stderr).toBe(0);
      expect(counts(again)).toEqual({ added: 0, existing: 17, unmatched: 0 });
      expect(again.stderr).toContain(
        'diary entries described (rating, rewatch, tags): added 0, already there 5',
      );
      expect(await landed()).toEqual(expected);
    });

    it('a list keeps its matched movies (the others listed as unmatched); a list of a name the user has is left alone', async () => {
      const made = await world.ctx.app.inject({
        method: 'POST',
        url: '/api/users/alice/lists',
        headers: world.alice.auth,
        payload: { name: 'Seaside', description: 'mine' },
      });
      expect(made.statusCode).toBe(201);
      const list = (name: string, ...movies: string[]) =>
        csv(
          'Letterboxd list export v7',
          'Date,Name,Tags,URL,Description',
          `2024-01-01,${name},,https://boxd.it/zzL1,`,
          '',
          'Position,Name,Year,URL,Description',
          ...movies,
        );
      const dir = files('lists-e2e', {
        'watchlist.csv': csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,'),
        'lists/seaside.csv': list('Seaside', ',Harbour Lights,1999,,'),
        'lists/unranked.csv': list(
          'Weekend',
          ',A Film Nobody Made,2001,https://boxd.it/zz0,',
          ',Ninefold,2020,https://boxd.it/zz1,with friends',
          ',Harbour Lights,1999,https://boxd.it/zz2,',
        ),
      });
      const result = await cli(['import', 'letterboxd', '--user', 'alice', dir]);
      expect(result.code, result.stderr).toBe(0);
      // The watchlist entry and Weekend added; Seaside there already; A Film Nobody Made unmatched.
      expect(counts(result)).toEqual({ added: 2, existing: 1, unmatched: 1 });
      expect(result.stderr).toContain('lists: added 1, already there 1');
      expect(result.stderr).toMatch(/lists\/unranked\.csv line 6: .*A Film Nobody Made/);
      const { lists: own } = await world.api(world.alice, 'lists');
      expect(
        own.map((l: { name: string; description: string | null; ranked: boolean; movieCount: number }) => [
          l.name,
          l.description,
          l.ranked,
          l.movieCount,
        ]),
      ).toEqual([
        ['Weekend', null, false, 2],
        ['Seaside', 'mine', false, 0],
      ]);
      const weekend = await world.api(world.alice, `lists/${own[0].id}`);
      expect(
        weekend.movies.map((m: { movie: { title: string }; position: number; note: string | null }) => [
          m.position,
          m.movie.title,
          m.note,
        ]),
      ).toEqual([
        [1, 'Ninefold', 'with friends'],
        [2, 'Harbour Lights', null],
      ]);
      // Again: both lists are there, nothing changes.
      const again = await cli(['import', 'letterboxd', '--user', 'alice', dir]);
      expect(counts(again)).toEqual({ added: 0, existing: 3, unmatched: 1 });
      expect((await world.api(world.alice, 'lists')).lists).toHaveLength(2);
    });

    it('without deleted/, likes/reviews.csv is a like, never the reviews', async () => {
      const withoutDeleted = folderFirst('likes/').filter(([name]) => !name.startsWith('deleted/'));
      const path = join(world.dir, 'export.zip');
      writeFileSync(path, zipOf(withoutDeleted));
      expect(summary(await parse(path))).toEqual(FULL_EXPORT_READ);
      // And with no reviews.csv at the top, nothing else is taken for it.
      writeFileSync(path, zipOf(withoutDeleted.filter(([name]) => name !== 'reviews.csv')));
      const read = summary(await parse(path));
      expect(read.rows[2]).toEqual([
        'diary.csv:4',
        'play',
        'Le Cartographe silencieux',
        2011,
        '2023-03-05',
        1,
        null,
      ]);
      expect(read.skipped).toEqual(FULL_EXPORT_READ.skipped);
    });

    it('refuses two exports in one upload', async () => {
      const two = zipSync({
        ...Object.fromEntries(
          entries.map(([n, b]) => [`letterboxd-example-alice-2026-01-01-10-00-utc/${n}`, b]),
        ),
        ...Object.fromEntries(
          entries.map(([n, b]) => [`letterboxd-example-alice-2025-01-01-10-00-utc/${n}`, b]),
        ),
      });
      const path = join(world.dir, 'two.zip');
      writeFileSync(path, two);
      await expect(parse(path)).rejects.toThrow(
        'found two Letterboxd exports, letterboxd-example-alice-2025-01-01-10-00-utc/diary.csv and letterboxd-example-alice-2026-01-01-10-00-utc/diary.csv (in letterboxd-example-alice-2025-01-01-10-00-utc/ and letterboxd-example-alice-2026-01-01-10-00-utc/): import one at a time',
      );
      // Two diaries in one folder are two exports as well.
      const dir = files('two-diaries', {
        'diary.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date'),
        'diary (1).csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date'),
      });
      await expect(parse(dir)).rejects.toThrow(
        /found two Letterboxd diary files, diary \(1\)\.csv and diary\.csv/,
      );
    });
  });

  describe('files recognised by their content (defect 6)', () => {
    it('finds a diary saved under another name', async () => {
      const dir = files('renamed', {
        'letterboxd-diary.csv': csv(
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
          '2023-02-02,Salt Road Summer,2016,https://boxd.it/zzQa1,4.5,,,2023-02-01',
        ),
        'my-watchlist-2024.csv': csv(
          'Date,Name,Year,Letterboxd URI',
          '2023-01-01,Harbour Lights Again,2001,',
        ),
        'seen.csv': csv('Date,Name,Year,Letterboxd URI', '2020-01-01,Harbour Lights,1999,'),
      });
      expect(summary(await parse(dir)).rows).toEqual([
        ['letterboxd-diary.csv:2', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, null],
        ['seen.csv:2', 'watched', 'Harbour Lights', 1999],
        ['my-watchlist-2024.csv:2', 'watchlist', 'Harbour Lights Again', 2001, noonWinter('2023-01-01')],
        // No ratings.csv: the diary entry's rating is the film's.
        ['letterboxd-diary.csv:2', 'rating', 'Salt Road Summer', 2016, 9, noonWinter('2023-02-01')],
      ]);
    });

    it('reads files a spreadsheet saved with `;`, decimal commas and day-first dates', async () => {
      const dir = files('semicolons', {
        'diary.csv': `\uFEFF${csv(
          'Date;Name;Year;Letterboxd URI;Rating;Rewatch;Tags;Watched Date',
          '02.02.2023;"Salt Road Summer";2016;https://boxd.it/zzQa1;4,5;;;01.02.2023',
          '03.03.2023;Harbour Lights, Again;2001;https://boxd.it/zzQa2;;;;02.03.2023',
        )}`,
        'ratings.csv': csv('Date;Name;Year;Letterboxd URI;Rating', '13/03/2023;Salt Road Summer;2016;;3,5'),
      });
      expect(summary(await parse(dir))).toEqual({
        rows: [
          ['diary.csv:2', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, null],
          ['diary.csv:3', 'play', 'Harbour Lights, Again', 2001, '2023-03-02', 1, null],
          ['ratings.csv:2', 'rating', 'Salt Road Summer', 2016, 7, noonWinter('2023-03-13')],
        ],
        unreadable: [],
        skipped: {},
      });
    });

    it('passes over comments.csv and profile.csv, and refuses a CSV that is no Letterboxd file', async () => {
      const only = files('only-comments', {
        'comments.csv': csv('Date,Content,Comment', '2023-03-08,https://boxd.it/zzX1,Nice.'),
        'profile.csv': csv('Date Joined,Username,Given Name', '2019-01-01,example-alice,Alice'),
        'watchlist.csv': csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,'),
      });
      expect(summary(await parse(only)).rows).toEqual([
        ['watchlist.csv:2', 'watchlist', 'Harbour Lights Again', 2001, noonWinter('2023-01-01')],
      ]);
      const wrong = files('wrong-header', {
        'diary.csv': csv('Date,Film,Year,Watched', '2023-02-02,Salt Road Summer,2016,2023-02-01'),
        'watchlist.csv': csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Harbour Lights Again,2001,'),
      });
      await expect(parse(wrong)).rejects.toThrow(
        /diary\.csv is not a Letterboxd export file: its header is Date,Film,Year,Watched/,
      );
      const noYear = files('no-year', {
        'diary.csv': csv('Date,Name,Letterboxd URI,Rating,Rewatch,Tags,Watched Date'),
      });
      await expect(parse(noYear)).rejects.toThrow(/diary\.csv lacks the column Year/);
      const badList = files('bad-list', {
        'watchlist.csv': csv('Date,Name,Year,Letterboxd URI'),
        'lists/films.csv': csv('Letterboxd list export v7', 'Date,Name,Tags,URL,Description'),
      });
      await expect(parse(badList)).rejects.toThrow(/lists\/films\.csv is not a Letterboxd list/);
    });
  });

  describe('rows', () => {
    it('an unreadable row is reported with its line and why; the rest imports (defect 7)', async () => {
      const dir = files('bad-rows', {
        'diary.csv': csv(
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
          '2023-02-02,Salt Road Summer,2016,,4.5,,,2023-02-01',
          '2023-02-03,Ninefold,2020,,,,,2023-13-01',
          '2023-02-04,Harbour Lights,20x6,,,,,2023-02-04',
          '2023-02-05,Harbour Lights Again,2001,,6,,,2023-02-05',
          '2023-02-06,Le Cartographe silencieux,2011,,,,,2030-01-01',
          '2023-02-07,,2011,,,,,2023-02-07',
          '2023-02-08,Ninefold,2020,,,,,1850-01-01',
          '2023-02-09,Ninefold,2020',
        ),
        'watchlist.csv': csv(
          'Date,Name,Year,Letterboxd URI',
          'yesterday,Harbour Lights Again,2001,',
          '2023-01-01,Harbour Lights Again,2001,',
        ),
      });
      const read = summary(await parse(dir));
      expect(read.rows).toEqual([
        ['diary.csv:2', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, null],
        ['watchlist.csv:3', 'watchlist', 'Harbour Lights Again', 2001, noonWinter('2023-01-01')],
        ['diary.csv:2', 'rating', 'Salt Road Summer', 2016, 9, noonWinter('2023-02-01')],
      ]);
      expect(read.unreadable).toEqual([
        {
          file: 'diary.csv',
          line: 3,
          title: 'Ninefold',
          year: 2020,
          reason: 'Watched Date is "2023-13-01", not a date (YYYY-MM-DD)',
        },
        {
          file: 'diary.csv',
          line: 4,
          title: 'Harbour Lights',
          year: null,
          reason: 'Year is "20x6", not a year',
        },
        {
          file: 'diary.csv',
          line: 5,
          title: 'Harbour Lights Again',
          year: 2001,
          reason: 'Rating is "6", not a rating from 0.5 to 5',
        },
        {
          file: 'diary.csv',
          line: 6,
          title: 'Le Cartographe silencieux',
          year: 2011,
          reason: 'Watched Date is "2030-01-01": the date is in the future',
        },
        { file: 'diary.csv', line: 7, title: null, year: 2011, reason: 'Name is "", not a film title' },
        {
          file: 'diary.csv',
          line: 8,
          title: 'Ninefold',
          year: 2020,
          reason: 'Watched Date is "1850-01-01": the date is before the first movie',
        },
        {
          file: 'diary.csv',
          line: 9,
          title: 'Ninefold',
          year: 2020,
          reason: 'it has 3 cells where the header has 8',
        },
        {
          file: 'watchlist.csv',
          line: 2,
          title: 'Harbour Lights Again',
          year: 2001,
          reason: 'Date is "yesterday", not a date (YYYY-MM-DD)',
        },
      ]);
    });

    it('the film’s rating: ratings.csv’s; without it, the latest dated diary entry’s; each entry keeps its own', async () => {
      const diary = csv(
        'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
        '2023-05-01,Salt Road Summer,2016,,2,,,2023-04-30',
        '2023-02-02,Salt Road Summer,2016,,4.5,,"summer, road",2023-02-01',
        '2023-06-01,Salt Road Summer,2016,,,Yes,,2023-06-01',
        '2023-03-03,Ninefold,2020,,3,,,',
        '2023-03-04,Ninefold,2020,,1,,,2023-03-01',
      );
      const alone = summary(await parse(files('diary-only', { 'diary.csv': diary })));
      expect(alone.rows.filter((row) => row[1] === 'rating')).toEqual([
        // The latest dated entry that has a rating (2023-04-30); Ninefold's logged on 2023-03-03 wins.
        ['diary.csv:2', 'rating', 'Salt Road Summer', 2016, 4, noon('2023-04-30')],
        ['diary.csv:5', 'rating', 'Ninefold', 2020, 6, noonWinter('2023-03-03')],
      ]);
      // The entry on no known date (Ninefold's first line) is no play: its rating is the film's only.
      expect(alone.skipped).toEqual({});

      const withRatings = summary(
        await parse(
          files('with-ratings', {
            'diary.csv': diary,
            'ratings.csv': csv('Date,Name,Year,Letterboxd URI,Rating', '2023-06-02,Salt Road Summer,2016,,5'),
          }),
        ),
      );
      expect(withRatings.rows.filter((row) => row[1] === 'rating')).toEqual([
        ['ratings.csv:2', 'rating', 'Salt Road Summer', 2016, 10, noon('2023-06-02')],
      ]);
      expect(withRatings.skipped).toEqual({});
    });

    it('a list is named by its own row, whatever its file is called or where in lists/ it is; BOM and CRLF', async () => {
      const list = (name: string) =>
        `\uFEFF${[
          'Letterboxd list export v7',
          'Date,Name,Tags,URL,Description',
          `2024-01-01,${name},,,`,
          '',
          'Position,Name,Year,URL,Description',
          ',Ninefold,2020,,',
          ',Harbour Lights,1999,,"=not a formula"',
          '',
        ].join('\r\n')}`;
      const dir = files('renamed-lists', {
        'diary.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date'),
        'lists/Copy of my list (1).csv': list('"Weekend / 🍿, late"'),
        'lists/old/deep.csv': list('Deep one'),
      });
      const read = summary(await parse(dir));
      expect(read.rows).toEqual([
        ['lists/Copy of my list (1).csv:6', 'list-movie', 'Ninefold', 2020, 'Weekend / 🍿, late', null],
        [
          'lists/Copy of my list (1).csv:7',
          'list-movie',
          'Harbour Lights',
          1999,
          'Weekend / 🍿, late',
          '=not a formula',
        ],
        ['lists/old/deep.csv:6', 'list-movie', 'Ninefold', 2020, 'Deep one', null],
        ['lists/old/deep.csv:7', 'list-movie', 'Harbour Lights', 1999, 'Deep one', '=not a formula'],
      ]);
    });

    it('a list or like of another folder than the export’s is never read as the export’s, and is said', async () => {
      const list = csv(
        'Letterboxd list export v7',
        'Date,Name,Tags,URL,Description',
        '2024-01-01,Elsewhere,,,',
        '',
        'Position,Name,Year,URL,Description',
        ',Ninefold,2020,,',
      );
      const dir = files('lists-elsewhere', {
        'diary.csv': csv('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date'),
        'lists/here.csv': list.replace('Elsewhere', 'Here'),
        'old/backup/lists/elsewhere.csv': list,
        'old/backup/likes/films.csv': csv('Date,Name,Year,Letterboxd URI', '2024-01-01,Ninefold,2020,'),
      });
      const read = summary(await parse(dir));
      expect(read.rows).toEqual([['lists/here.csv:6', 'list-movie', 'Ninefold', 2020, 'Here', null]]);
      expect(read.skipped).toEqual({ 'lists and likes outside the export’s folder (old/backup/)': 2 });
    });

    it('reads lists of every version: ranked by Position, unranked without, notes, a bad row listed', async () => {
      const result = await parse(
        files('lists', {
          'watched.csv': csv('Date,Name,Year,Letterboxd URI', '2023-01-01,Ninefold,2020,'),
          // v7 with a byte-order mark and CRLF, positions out of order, a note with a comma.
          'lists/ranked.csv': `\uFEFF${[
            'Letterboxd list export v7',
            'Date,Name,Tags,URL,Description',
            '2024-01-02,"Best, of all",x,https://boxd.it/zzL9,"Two, in one"',
            '',
            'Position,Name,Year,URL,Description',
            '2,Ninefold,2020,https://boxd.it/zzR3,"good, very"',
            '1,Salt Road Summer,2016,https://letterboxd.com/film/salt-road-summer/,',
            '3,Nobody Made This,20x1,https://boxd.it/zzR0,',
          ].join('\r\n')}\r\n`,
          // Another version: no Description column, no position (unranked), no own row's name.
          'lists/unranked-one.csv': csv(
            'Letterboxd list export v4',
            'Date,Name,Tags,URL,Description',
            '2019-01-01,,,,',
            '',
            'Position,Name,Year,URL',
            ',Harbour Lights,1999,https://boxd.it/a',
            ',Le Cartographe silencieux,2011,https://boxd.it/b',
          ),
          'lists/empty.csv': csv(
            'Letterboxd list export v7',
            'Date,Name,Tags,URL,Description',
            '2024-01-01,Nothing yet,,,',
            '',
            'Position,Name,Year,URL,Description',
          ),
        }),
      );
      expect(
        result.rows.flatMap((row) =>
          row.kind === 'list-movie'
            ? [
                [
                  row.line,
                  row.movie.title,
                  row.movie.year,
                  row.list.name,
                  row.list.description,
                  row.list.ranked,
                  row.note,
                ],
              ]
            : [],
        ),
      ).toEqual([
        [7, 'Salt Road Summer', 2016, 'Best, of all', 'Two, in one', true, null],
        [6, 'Ninefold', 2020, 'Best, of all', 'Two, in one', true, 'good, very'],
        [6, 'Harbour Lights', 1999, 'unranked-one', null, false, null],
        [7, 'Le Cartographe silencieux', 2011, 'unranked-one', null, false, null],
      ]);
      expect(result.unreadable).toEqual([
        {
          file: 'lists/ranked.csv',
          line: 8,
          title: 'Nobody Made This',
          year: null,
          reason: 'Year is "20x1", not a year',
        },
      ]);
      // A list without movies is a list all the same.
      expect(result.lists.map((list) => [list.name, list.ranked])).toEqual([
        ['Nothing yet', false],
        ['Best, of all', true],
        ['unranked-one', false],
      ]);
      expect(summary(result).skipped).toEqual({});
    });

    it('each diary entry keeps its own rating (stars × 2), rewatch flag (Yes or not) and tags', async () => {
      // A byte-order mark, CRLF line ends, a quoted tag list with spaces to tidy, a review's entry.
      const diary = `\uFEFF${[
        'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
        '2023-02-02,Salt Road Summer,2016,,4.5,,"summer,  road   trip ,",2023-02-01',
        '2023-03-03,Salt Road Summer,2016,,0.5,Yes,,2023-03-02',
        '2023-03-06,Ninefold,2020,,,,"rainy, Rainy",2023-03-05',
        `2023-03-07,Ninefold,2020,,,,"${'x'.repeat(101)}, ok",2023-03-07`,
      ].join('\r\n')}\r\n`;
      const reviews = csv(
        'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,Tags,Watched Date',
        '2023-04-01,Harbour Lights,1999,,3,Yes,"Again.",harbour,2023-04-01',
      );
      const result = await parse(files('entries', { 'diary.csv': diary, 'reviews.csv': reviews }));
      const entries = result.rows.flatMap((row) =>
        row.kind === 'play'
          ? [[row.line, row.movie.title, row.watchedAt, row.entryRating, row.rewatch, row.tags, row.comment]]
          : [],
      );
      expect(entries).toEqual([
        [2, 'Salt Road Summer', '2023-02-01', 9, false, ['summer', 'road trip'], null],
        [3, 'Salt Road Summer', '2023-03-02', 1, true, undefined, null],
        [4, 'Ninefold', '2023-03-05', undefined, false, ['rainy', 'Rainy'], null],
        [5, 'Ninefold', '2023-03-07', undefined, false, ['ok'], null],
        [2, 'Harbour Lights', '2023-04-01', 6, true, ['harbour'], 'Again.'],
      ]);
      expect(summary(result).skipped).toEqual({ 'tags longer than 100 characters': 1 });
    });

    it('keeps the film’s slug from letterboxd.com addresses; boxd.it links name no film', async () => {
      expect(slugOf('https://letterboxd.com/film/salt-road-summer/')).toBe('salt-road-summer');
      expect(slugOf('https://letterboxd.com/example.alice/film/salt-road-summer/1/')).toBe(
        'salt-road-summer',
      );
      expect(slugOf('https://letterboxd.com/film/salt-road-summer')).toBe('salt-road-summer');
      expect(slugOf('https://boxd.it/4UNbuZ')).toBeUndefined();
      expect(slugOf('https://letterboxd.com/example.alice/list/seaside/')).toBeUndefined();
      expect(slugOf('https://letterboxd.com/film/amélie/')).toBeUndefined();
      const dir = files('slugs', {
        'diary.csv': csv(
          'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
          '2020-05-02,Ninefold,2020,https://letterboxd.com/example.alice/film/ninefold/,,,,2020-05-01',
          '2023-02-02,Salt Road Summer,2016,https://boxd.it/zzQa1,,,,2023-02-01',
        ),
        'watched.csv': csv(
          'Date,Name,Year,Letterboxd URI',
          '2020-01-01,Harbour Lights,1999,https://letterboxd.com/film/harbour-lights/',
        ),
      });
      expect((await parse(dir)).rows.map((row) => [row.movie.title, row.movie.letterboxdId])).toEqual([
        ['Ninefold', 'ninefold'],
        ['Salt Road Summer', undefined],
        ['Harbour Lights', 'harbour-lights'],
      ]);
    });

    it('reads the layout of Letterboxd’s importer, headers in any case', async () => {
      const dir = files('importer', {
        'for-letterboxd.csv': csv(
          'letterboxduri,TMDBID,imdbid,title,year,directors,watcheddate,rating,rating10,tags,review',
          'https://letterboxd.com/film/salt-road-summer/,,,Salt Road Summer,2016,A. Person,2023-02-01,4.5,,"summer, road","Sunny, salty."',
          ',720003,,Ninefold,2020,,2023-03-01,,6,,',
          ',720003,,Ninefold,2020,,2023-04-01,,8,,',
          ',,tt9720004,Harbour Lights,1999,,,2,,,',
          ',,,Harbour Lights Again,2001,,,,,,An undated review.',
          ',,,,,,2023-01-01,,,,',
        ),
      });
      const read = await parse(dir);
      expect(summary(read)).toEqual({
        rows: [
          ['for-letterboxd.csv:2', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, 'Sunny, salty.'],
          ['for-letterboxd.csv:3', 'play', 'Ninefold', 2020, '2023-03-01', 1, null],
          ['for-letterboxd.csv:4', 'play', 'Ninefold', 2020, '2023-04-01', 1, null],
          ['for-letterboxd.csv:5', 'watched', 'Harbour Lights', 1999],
          ['for-letterboxd.csv:6', 'play', 'Harbour Lights Again', 2001, null, 1, 'An undated review.'],
          ['for-letterboxd.csv:2', 'rating', 'Salt Road Summer', 2016, 9, undefined],
          ['for-letterboxd.csv:4', 'rating', 'Ninefold', 2020, 8, undefined],
          ['for-letterboxd.csv:5', 'rating', 'Harbour Lights', 1999, 4, undefined],
        ],
        unreadable: [
          {
            file: 'for-letterboxd.csv',
            line: 7,
            title: null,
            year: null,
            reason: 'title is "", not a film title (the line names no film)',
          },
        ],
        skipped: {},
      });
      // Each dated row's rating and tags are its entry's own; the movie's is its latest entry's.
      const own = (row: ImportRow) =>
        row.kind === 'play' ? [row.entryRating, row.rewatch, row.tags] : [row.kind];
      expect(read.rows.slice(0, 5).map(own)).toEqual([
        [9, undefined, ['summer', 'road']],
        [6, undefined, undefined],
        [8, undefined, undefined],
        ['watched'],
        [undefined, undefined, undefined],
      ]);
      expect(read.rows.map((row) => [row.movie.tmdbId, row.movie.imdbId, row.movie.letterboxdId])[0]).toEqual(
        [undefined, undefined, 'salt-road-summer'],
      );
      expect(read.rows[1]!.movie.tmdbId).toBe(720003);
      await expect(
        parse(files('not-importer', { 'history.csv': csv('Title,Date', 'Ninefold,2023-01-01') })),
      ).rejects.toThrow(/history\.csv is not a CSV for Letterboxd’s importer: it has the column Date/);
    });
    it('the importer’s layout with a BOM, CRLF, `;` and Rewatch: each entry’s rating, rewatch flag and tags fill in an earlier import’s entries, and a second run adds none', async () => {
      const path = files('importer-ugly', {
        'for-letterboxd.csv': `\uFEFF${[
          'Title;Year;WatchedDate;Rating10;Rewatch;Tags',
          'Salt Road Summer;2016;2023-02-01;9;No;"summer, road trip,  ☀️ sun "',
          'Salt Road Summer;2016;2023-03-02;6;Yes;',
          'Ninefold;2020;2023-03-06;;;rainy',
          '',
        ].join('\r\n')}`,
      });
      // An earlier import (before issue 30) kept the plays alone: as a file without those columns.
      const plain = files('importer-plain', {
        'for-letterboxd.csv': csv(
          'Title,Year,WatchedDate',
          'Salt Road Summer,2016,2023-02-01',
          'Salt Road Summer,2016,2023-03-02',
          'Ninefold,2020,2023-03-06',
        ),
      });
      expect(counts(await cli(['import', 'letterboxd', '--user', 'alice', plain]))).toEqual({
        added: 3,
        existing: 0,
        unmatched: 0,
      });
      const first = await cli(['import', 'letterboxd', '--user', 'alice', path]);
      expect(first.code, first.stderr).toBe(0);
      // Salt Road's rating (its latest entry's); the 3 plays are there: the entries get their values.
      expect(counts(first)).toEqual({ added: 1, existing: 3, unmatched: 0 });
      expect(first.stderr).toContain(
        'diary entries described (rating, rewatch, tags): added 3, already there 0',
      );
      const landed = await landedOf(world.alice);
      expect(landed.diary).toEqual([
        ['Ninefold', '2023-03-06', 1, null, false, ['rainy']],
        ['Salt Road Summer', '2023-03-02', 1, 6, true, []],
        ['Salt Road Summer', '2023-02-01', 1, 9, false, ['road trip', 'summer', '☀️ sun']],
      ]);
      expect(landed.ratings).toEqual({ 'Salt Road Summer': 6 });
      const again = await cli(['import', 'letterboxd', '--user', 'alice', path]);
      expect(counts(again)).toEqual({ added: 0, existing: 4, unmatched: 0 });
      expect(await landedOf(world.alice)).toEqual(landed);
    });
  });

  it('in cinelog’s own layout, a row without WatchedDate is a play before the first dated row, and a rating alone after it', async () => {
    const dir = files('cinelog-layout', {
      'letterboxd-alice.csv': csv(
        'tmdbID,imdbID,Title,Year,WatchedDate,Rating10,Rewatch,Review',
        '720002,tt9720002,The Quiet Cartographer,2011,,6,false,',
        '720002,tt9720002,The Quiet Cartographer,2011,,6,true,',
        '720001,tt9720001,Salt Road Summer,2016,2023-02-01,8,false,Fine.',
        '720004,tt9720004,Harbour Lights,1999,,5,false,',
      ),
      // No dated row in this file: an empty Rewatch says "the rating alone" (false: a play).
      'more.csv': csv(
        'tmdbID,imdbID,Title,Year,WatchedDate,Rating10,Rewatch,Review',
        '720005,tt9720005,Harbour Lights Again,2001,,7,,',
        '720003,tt9720003,Ninefold,2020,,,false,',
      ),
    });
    expect(summary(await parse(dir)).rows).toEqual([
      ['letterboxd-alice.csv:2', 'play', 'The Quiet Cartographer', 2011, null, 1, null],
      ['letterboxd-alice.csv:3', 'play', 'The Quiet Cartographer', 2011, null, 1, null],
      ['letterboxd-alice.csv:4', 'play', 'Salt Road Summer', 2016, '2023-02-01', 1, 'Fine.'],
      ['more.csv:3', 'play', 'Ninefold', 2020, null, 1, null],
      ['letterboxd-alice.csv:3', 'rating', 'The Quiet Cartographer', 2011, 6, undefined],
      ['letterboxd-alice.csv:4', 'rating', 'Salt Road Summer', 2016, 8, undefined],
      ['letterboxd-alice.csv:5', 'rating', 'Harbour Lights', 1999, 5, undefined],
      ['more.csv:2', 'rating', 'Harbour Lights Again', 2001, 7, undefined],
    ]);
  });

  describe('round trip (defect 9)', () => {
    it('cinelog’s own Letterboxd export is Letterboxd’s layout and imports back: entries’ ratings, rewatches, tags and comments, likes, lists', async () => {
      const { ctx } = world;
      const ids: Record<string, number> = {};
      for (const film of [SALT_ROAD, CARTOGRAPHER, NINEFOLD, HARBOUR, HARBOUR_AGAIN]) {
        ids[film.title] = (
          await createMovie(ctx, {
            tmdb_id: film.id,
            title: film.title,
            original_title: film.original_title,
            release_date: film.release_date,
            imdb_id: film.imdb_id,
          })
        ).id;
      }
      const salt = ids['Salt Road Summer']!;
      const quiet = ids['The Quiet Cartographer']!;
      const nine = ids.Ninefold!;
      const harbour = ids['Harbour Lights']!;
      const again = ids['Harbour Lights Again']!;
      await ctx.library.write(world.alice.user.id, async (w) => {
        await w.logEntries([
          // An undated entry with a comment, its own rating and tags: its review carries them.
          { movieId: quiet, watchedAt: null, plays: 1, comment: 'Some time.', rating: 6, tags: ['maps'] },
          // Two plays on one day, a comment beginning with a newline, tags with an emoji.
          {
            movieId: salt,
            watchedAt: '2023-02-01',
            plays: 2,
            comment: '\nstarts with a newline, "quoted"',
            rating: 9,
            tags: ['road trip', 'summer ☀️'],
          },
          // A rewatch derived (an earlier entry), a half star.
          { movieId: salt, watchedAt: '2023-03-02', plays: 1, comment: null, rating: 5 },
          // A rewatch as the user says, though it is the first entry.
          { movieId: nine, watchedAt: '2023-02-01', plays: 1, comment: '=1+1', rewatch: true },
          // Not a rewatch as the user says, though an earlier entry exists.
          {
            movieId: nine,
            watchedAt: '2023-04-01',
            plays: 1,
            comment: null,
            rewatch: false,
            tags: ['rainy'],
          },
          { movieId: again, watchedAt: '2022-12-31', plays: 1, comment: null },
        ]);
        // The movies' own ratings (an entry's rating rated its movie; these are set after).
        await w.setRatings([
          { movieId: quiet, rating: 3 },
          { movieId: salt, rating: 8 },
          { movieId: harbour, rating: 5 },
        ]);
        await w.addToWatchlistAt([{ movieId: harbour, addedAt: '2023-01-05T12:00:00.000Z' }]);
        await w.likeMoviesAt([
          { movieId: nine, likedAt: '2023-03-07T21:30:00.000Z' },
          { movieId: salt, likedAt: '2023-02-02T08:00:00.000Z' },
        ]);
        const ranked = await w.createList({
          name: 'Rainy / day films 🌧',
          description:
            'For a wet afternoon.\n\nPosition,Name,Year,URL,Description\n(part of the description)',
          ranked: true,
        });
        await w.putListMovies(ranked.id, [
          { movieId: nine },
          { movieId: harbour, note: 'A note\non two lines, "quoted"' },
          { movieId: again, note: '-minus first' },
        ]);
        const loose = await w.createList({ name: 'Seaside', ranked: false });
        await w.putListMovies(loose.id, [{ movieId: harbour }, { movieId: salt }]);
        // Two lists whose names make one slug: the files differ.
        const twin = await w.createList({ name: 'seaside!', ranked: false });
        await w.putListMovies(twin.id, [{ movieId: quiet }]);
      });

      const path = join(world.dir, 'letterboxd-alice.zip');
      const exported = await cli(['export', '--user', 'alice', '--format', 'letterboxd', '--out', path]);
      expect(exported.code, exported.stderr).toBe(0);
      const zip = unzipSync(readFileSync(path));
      expect(Object.keys(zip).sort()).toEqual([
        'diary.csv',
        'likes/films.csv',
        'lists/rainy-day-films.csv',
        'lists/seaside-2.csv',
        'lists/seaside.csv',
        'ratings.csv',
        'reviews.csv',
        'watched.csv',
        'watchlist.csv',
      ]);
      const text = (name: string) => new TextDecoder().decode(zip[name]!).split('\r\n');
      expect(text('diary.csv')).toEqual([
        'Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date',
        '2022-12-31,Harbour Lights Again,2001,,,,,2022-12-31',
        '2023-02-01,Salt Road Summer,2016,,4.5,,"road trip, summer ☀️",2023-02-01',
        '2023-02-01,Salt Road Summer,2016,,4.5,,"road trip, summer ☀️",2023-02-01',
        '2023-02-01,Ninefold,2020,,,Yes,,2023-02-01',
        '2023-03-02,Salt Road Summer,2016,,2.5,Yes,,2023-03-02',
        '2023-04-01,Ninefold,2020,,,,rainy,2023-04-01',
        '',
      ]);
      expect(text('lists/rainy-day-films.csv')).toEqual([
        'Letterboxd list export v7',
        'Date,Name,Tags,URL,Description',
        '2024-06-15,Rainy / day films 🌧,,,"For a wet afternoon.\n\nPosition,Name,Year,URL,Description\n(part of the description)"',
        '',
        'Position,Name,Year,URL,Description',
        '1,Ninefold,2020,,',
        '2,Harbour Lights,1999,,"A note\non two lines, ""quoted"""',
        "3,Harbour Lights Again,2001,,'-minus first",
        '',
      ]);
      expect(text('likes/films.csv')).toEqual([
        'Date,Name,Year,Letterboxd URI',
        '2023-02-02,Salt Road Summer,2016,',
        '2023-03-07,Ninefold,2020,',
        '',
      ]);

      const bob = await createUser(ctx, { name: 'bob' });
      await ctx.users.update('bob', { timezone: 'Europe/Berlin' });
      const imported = await cli(['import', 'letterboxd', '--user', 'bob', path]);
      expect(imported.code, imported.stderr).toBe(0);
      // 7 plays, 3 ratings, 1 watchlist entry, 2 likes, 3 lists.
      expect(counts(imported)).toEqual({ added: 16, existing: 4, unmatched: 0 });

      const mine = await landedOf(world.alice);
      expect(await landedOf(bob)).toEqual(mine);
      expect(mine.diary).toEqual([
        ['Ninefold', '2023-04-01', 1, null, false, ['rainy']],
        ['Salt Road Summer', '2023-03-02', 1, 5, true, []],
        ['Ninefold', '2023-02-01', 1, null, true, []],
        ['Salt Road Summer', '2023-02-01', 2, 9, false, ['road trip', 'summer ☀️']],
        ['Harbour Lights Again', '2022-12-31', 1, null, false, []],
      ]);
      expect(mine.lists.map((list) => [list.name, list.ranked, list.movies.length])).toEqual([
        ['Rainy / day films 🌧', true, 3],
        ['Seaside', false, 2],
        ['seaside!', false, 1],
      ]);
      const [minePlays, theirPlays] = [await lists(world.alice), await lists(bob)];
      expect(theirPlays.played).toEqual(minePlays.played);
      expect(theirPlays.history).toEqual(minePlays.history);
      expect(theirPlays.watchlist.watchlist.map((w: { movie: { title: string } }) => w.movie.title)).toEqual([
        'Harbour Lights',
      ]);

      const twice = await cli(['import', 'letterboxd', '--user', 'bob', path]);
      expect(counts(twice)).toEqual({ added: 0, existing: 20, unmatched: 0 });
      expect(await landedOf(bob)).toEqual(mine);
    });
  });
});
