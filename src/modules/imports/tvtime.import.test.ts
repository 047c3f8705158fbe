import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { cliImportWorld, exportFolders } from '../../../test/import-world.js';
import type { ImportRow } from './import.types.js';
import { parseHere } from './import-parse.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/imports/tvtime');
const folder = exportFolders('tvtime');

/** A fixture folder's files, each under `prefix` (a zip's folder). */
const fixtureFiles = (name: string, prefix = '') =>
  Object.fromEntries(
    readdirSync(join(FIXTURES, name)).map((file) => [
      `${prefix}${file}`,
      new Uint8Array(readFileSync(join(FIXTURES, name, file))),
    ]),
  );

const parse = (path: string, timezone = 'America/New_York') =>
  parseHere({ format: 'tvtime', path, context: { timezone, today: '2026-01-01' } });

/** The rows as short tuples, for exact comparisons. */
const brief = (rows: readonly ImportRow[]) =>
  rows.map((row) => {
    const movie = [row.movie.title ?? null, row.movie.year ?? row.movie.imdbId ?? null];
    if (row.kind === 'play') return ['play', ...movie, row.watchedAt, row.plays];
    if (row.kind === 'rating') return ['rating', ...movie, row.rating];
    if (row.kind === 'watchlist') return ['watchlist', ...movie, row.addedAt];
    return ['watched', ...movie];
  });

const skippedOf = (result: { skipped: { what: string; count: number }[] }) =>
  Object.fromEntries(result.skipped.map((s) => [s.what, s.count]));

const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('tvtime: the GDPR export', () => {
  it('reads the movies of tracking-prod-records.csv: plays on their day, the watchlist, episodes counted', async () => {
    const result = await parse(join(FIXTURES, 'gdpr'));
    expect(brief(result.rows)).toEqual([
      // 03:30 UTC is the evening before in New York.
      ['play', 'Salt Road Summer', 2016, '2024-03-01', 1],
      // A rewatch is one more play.
      ['play', 'Salt Road Summer', 2016, '2024-06-01', 1],
      // `0001-01-01`: TV Time did not know the release date.
      ['play', 'Ninefold', null, '2024-05-01', 1],
      // No name: the alphabetical key names it.
      ['play', 'the quiet cartographer', 2011, '2023-12-31', 1],
      // Followed or "to watch", never watched (the follow of a watched movie is none).
      ['watchlist', 'Harbour Lights Again', 2001, '2024-02-10T09:00:00.000Z'],
      ['watchlist', 'Harbour Lights', 1999, '2023-05-05T08:00:00.000Z'],
    ]);
    expect(result.rows[0]).toMatchObject({ file: 'tracking-prod-records.csv', line: 2 });
    expect(result.unreadable).toEqual([
      {
        file: 'tracking-prod-records.csv',
        line: 13,
        title: 'A Film Nobody Made',
        year: 1987,
        reason: 'created_at is "last tuesday", not a date and time',
      },
    ]);
    // One episode in tracking-prod-records.csv, a watch and a rewatch in its v2, and the followed show
    // (seen_episode.csv and followed_tv_show.csv repeat them, and user.csv is never opened).
    expect(skippedOf(result)).toEqual({ 'TV episodes': 3, 'TV shows': 1 });
  });

  it('reads the columns by name, whatever their order or separator', async () => {
    // The header of another real export: other columns, another order; saved again with semicolons.
    const header =
      'type-uuid-n;watch_count;watches;user_id;entity_type;movie_name;uuid;rewatch_count;follow_date_range_key;release_date;created_at;alpha_range_key;updated_at;release_date_range_key;type;total_movies_runtime;runtime;watch_date_range_key;country';
    const path = folder({
      'TV Time Backup/tracking-prod-records.csv': `\uFEFF${csv(
        header,
        'watch-u1-0;;;90000002;movie;Harbour Lights;u1;0;;1999-05-05 00:00:00;2023-07-05 18:48:28;watch-alpha-harbour-lights;2023-07-05 18:48:28;;watch;;6000;watch-date-1688582908;GB',
        'towatch-u2;;;90000002;movie;Ninefold;u2;;towatch-follow-date-1688582908;2020-01-02 00:00:00;2023-07-05 18:48:28;;2023-07-05 18:48:28;;towatch;;;;GB',
        'watch-u3-0;;;90000002;movie;"Salt Road; Summer";u3;0;;2016-07-01 00:00:00;2023-07-05 18:48:28;;;;watch;;;;GB',
      )}`,
    });
    const result = await parse(path, 'Asia/Tokyo');
    expect(brief(result.rows)).toEqual([
      ['play', 'Harbour Lights', 1999, '2023-07-06', 1],
      ['play', 'Salt Road; Summer', 2016, '2023-07-06', 1],
      ['watchlist', 'Ninefold', 2020, '2023-07-05T18:48:28.000Z'],
    ]);
    expect(result.rows[0]?.file).toBe('TV Time Backup/tracking-prod-records.csv');
  });

  it('an older export without movies: its episodes and shows are counted, nothing is refused', async () => {
    const path = folder({
      'seen_episode.csv': readFileSync(join(FIXTURES, 'gdpr', 'seen_episode.csv')),
      'followed_tv_show.csv': readFileSync(join(FIXTURES, 'gdpr', 'followed_tv_show.csv')),
    });
    const result = await parse(path);
    expect(result.rows).toEqual([]);
    expect(skippedOf(result)).toEqual({ 'TV episodes': 1, 'TV shows': 1 });
  });

  it('a follow is a watchlist entry only for a movie the file never plays, by its id or its name and year', async () => {
    const header = 'type-uuid-n,entity_type,type,uuid,movie_name,release_date,created_at';
    const path = folder({
      'tracking-prod-records.csv': csv(
        header,
        'follow-u1-0,movie,follow,u1,Harbour Lights,1999-05-05 00:00:00,2023-01-01 10:00:00',
        // Watched under another uuid (followed again): still the same film by name and year.
        'watch-u2-0,movie,watch,u2,Harbour Lights,1999-05-05 00:00:00,2023-02-01 10:00:00',
        // Another film of the same name.
        'follow-u3-0,movie,follow,u3,Harbour Lights,2021-01-01 00:00:00,2023-01-01 10:00:00',
        'towatch-u4,movie,towatch,u4,,2020-01-02 00:00:00,2023-01-01 10:00:00',
        'mystery-u5,movie,unfollow,u5,Ninefold,2020-01-02 00:00:00,2023-01-01 10:00:00',
        'watch-u6-0,movie,watch,u6,Ninefold,1000-01-01 00:00:00,2023-01-01 10:00:00',
        'watch-u7-0,movie,watch,u7,Ninefold,2020-01-02 00:00:00,2030-01-01 10:00:00',
        'watch-u8-0,movie,watch,u8,Ninefold,2020-01-02 00:00:00',
        'watch-u9-0,movie,watch,u9,Ninefold,2020-01-02 00:00:00,',
        // A total of the export, however many cells it has: no record.
        'count-watch-movie,,,[u2 u9],3',
      ),
    });
    const result = await parse(path, 'UTC');
    expect(brief(result.rows)).toEqual([
      ['play', 'Harbour Lights', 1999, '2023-02-01', 1],
      // No date: a play on an unknown date.
      ['play', 'Ninefold', 2020, null, 1],
      ['watchlist', 'Harbour Lights', 2021, '2023-01-01T10:00:00.000Z'],
    ]);
    expect(result.unreadable.map((row) => [row.line, row.reason])).toEqual([
      [5, 'movie_name is empty: the row names no movie'],
      [7, 'release_date is "1000", not a year'],
      [8, 'created_at is "2030-01-01T10:00:00.000Z": the date is in the future'],
      [9, 'it has 6 cells where the header has 7'],
    ]);
    expect(skippedOf(result)).toEqual({ 'other TV Time movie records': 1 });
  });

  it('refuses a folder with no TV Time file, and a broken tracking file', async () => {
    await expect(
      parse(
        folder({ 'notes.csv': csv('id,text', '1,hello'), 'user.csv': csv('id,email', '1,a@example.com') }),
      ),
    ).rejects.toThrow(/^found no TV Time export: expected the CSV files of TV Time’s data export/);
    await expect(
      parse(
        folder({
          'tracking-prod-records.csv': csv(
            'type-uuid-n,entity_type,type,movie_name,release_date,created_at',
            'watch-u1-0,movie,watch,"Harbour Lights,1999-05-05 00:00:00,2023-01-01 10:00:00',
          ),
        }),
      ),
    ).rejects.toThrow(/^tracking-prod-records\.csv is not a readable CSV file/);
  });
});

describe('tvtime: the TV Time Liberator', () => {
  it('reads movies.json: plays with rewatches, the watchlist and ratings; the CSVs count episodes, shows, favourites and lists', async () => {
    const result = await parse(join(FIXTURES, 'liberator'));
    expect(brief(result.rows)).toEqual([
      ['play', 'Salt Road Summer', 'tt9720001', '2024-04-13', 1],
      // Two rewatches, on no known date.
      ['play', 'Salt Road Summer', 'tt9720001', null, 2],
      ['rating', 'Salt Road Summer', 'tt9720001', 8],
      // IMDb id "-1": none.
      ['watchlist', 'Ninefold', null, '2024-04-13T10:49:58.000Z'],
      // Watched, when is unknown.
      ['play', 'Harbour Lights', 'tt9720004', null, 1],
      // An older Liberator's "2023-12-31 23:30:00" is UTC too.
      ['play', 'Le Cartographe silencieux', null, '2023-12-31', 1],
      ['rating', 'Le Cartographe silencieux', null, 4],
    ]);
    // No year in the file: the title alone, a guess listed for review when nothing else finds it.
    expect(result.rows.every((row) => row.movie.titleOnly === true)).toBe(true);
    expect(result.unreadable).toEqual([]);
    expect(skippedOf(result)).toEqual({
      'TV episodes': 2,
      'TV shows': 1,
      'TV Time favourites': 2,
      'movies on TV Time lists': 2,
      'TV shows on TV Time lists': 1,
    });
  });

  it('reads activity_history.csv alone (before movies.json was in the zip, before ratings)', async () => {
    const path = folder({
      'watchlist.csv': csv(
        'imdb_id,tvdb_id,type,title,season,episode,is_special,is_watched,watched_at,status,is_watchlisted',
        'tt9720001,500001,movie,Salt Road Summer,,,false,true,2024-09-13 10:50:49,,false',
        '-1,500002,movie,Ninefold,,,false,false,,,true',
        '-1,500003,movie,,,,false,true,,,true',
        'tt123,500004,movie,Bad Id,,,false,true,,,true',
        '-1,88101,show,Lighthouse Keepers,1,2,false,true,2024-03-03T20:00:00Z,continuing,false',
      ),
    });
    const result = await parse(path, 'Asia/Tokyo');
    expect(brief(result.rows)).toEqual([
      ['play', 'Salt Road Summer', 'tt9720001', '2024-09-13', 1],
      ['watchlist', 'Ninefold', null, undefined],
    ]);
    expect(result.unreadable.map((row) => [row.line, row.reason])).toEqual([
      [4, 'it names no movie (no IMDb id, no title)'],
      [5, 'imdb is "tt123", not an IMDb id (tt…)'],
    ]);
    // The oldest Liberator wrote episodes as "show" rows with their season and number.
    expect(skippedOf(result)).toEqual({ 'TV episodes': 1 });
  });

  it('a 5,000-deep array in movies.json makes an unreadable row, never a crash', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const path = folder({
      'movies.json': `[{"uuid":"u1","id":{"tvdb":1,"imdb":"tt9720001"},"title":"Salt Road Summer","is_watched":true,"watched_at":"2024-01-01T10:00:00Z"},${deep},{"uuid":"u2","id":{"tvdb":2,"imdb":${deep}},"title":"Deep","is_watched":true},{"uuid":"u3","id":{"tvdb":3,"imdb":"-1"},"title":"Rated","is_watched":true,"rating":${deep}}]`,
    });
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([['play', 'Salt Road Summer', 'tt9720001', '2024-01-01', 1]]);
    expect(result.unreadable.map((row) => [row.line, row.reason])).toEqual([
      [2, 'item 2 is a list, not an object'],
      [3, 'imdb is "a list", not an IMDb id (tt…)'],
      [4, 'rating is a list: a rating is from 1 to 10'],
    ]);
  });
});

describe('tvtime: importing through the command line', () => {
  const world = cliImportWorld();
  const { cli, counts, lists } = world;

  it('imports a GDPR zip, matching movies by name and release year at TMDB', async () => {
    const path = join(world.dir, 'tv-time-personal-data.zip');
    writeFileSync(path, zipSync(fixtureFiles('gdpr', 'TV Time Backup/')));
    const first = await cli(['import', 'tvtime', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 6, existing: 0, unmatched: 1 });
    expect(first.stderr).toContain(
      'TV Time Backup/tracking-prod-records.csv line 13: cannot be read: created_at is "last tuesday", not a date and time',
    );
    expect(first.stderr).toContain('skipped, cinelog does not keep these yet: 3 TV episodes, 1 TV shows');
    // Ninefold had no release year: the one film of that name, listed as a guess.
    expect(first.stderr).toContain('"Ninefold" → "Ninefold" (2020), title only');

    const { played, watchlist } = await lists(world.alice);
    const byTitle = Object.fromEntries(
      played.played.map((p: { movie: { title: string }; watchedDates: unknown }) => [
        p.movie.title,
        p.watchedDates,
      ]),
    );
    // Berlin: 03:30 UTC is 04:30 the same day; 23:30 UTC on New Year's Eve is the next year.
    expect(byTitle).toEqual({
      'Salt Road Summer': [
        { date: '2024-06-01', plays: 1, comment: null },
        { date: '2024-03-02', plays: 1, comment: null },
      ],
      Ninefold: [{ date: '2024-05-01', plays: 1, comment: null }],
      'The Quiet Cartographer': [{ date: '2024-01-01', plays: 1, comment: null }],
    });
    expect(watchlist.watchlist.map((w: { movie: { title: string } }) => w.movie.title).sort()).toEqual([
      'Harbour Lights',
      'Harbour Lights Again',
    ]);
    // Asked by name and year, as the file has no id.
    expect(
      world.fake.requests.some(
        (r) =>
          r.path === '/search/movie' &&
          r.query.query === 'Salt Road Summer' &&
          r.query.primary_release_year === '2016',
      ),
    ).toBe(true);

    expect(counts(await cli(['import', 'tvtime', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 6,
      unmatched: 1,
    });
  });

  it('imports a Liberator export by IMDb id, and by title alone where it has none', async () => {
    const path = join(world.dir, 'tv-time-export.zip');
    writeFileSync(path, zipSync(fixtureFiles('liberator')));
    const first = await cli(['import', 'tvtime', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    // Plays: Salt Road Summer 3, Harbour Lights 1, the Cartographer 1; Ninefold on the watchlist; two ratings.
    expect(counts(first)).toEqual({ added: 8, existing: 0, unmatched: 0 });
    expect(world.fake.requests.some((r) => r.path === '/find/tt9720001')).toBe(true);
    const { ratings, watchlist } = await lists(world.alice);
    expect(
      ratings.ratings
        .map((r: { movie: { title: string }; rating: number }) => [r.movie.title, r.rating])
        .sort(),
    ).toEqual([
      ['Salt Road Summer', 8],
      ['The Quiet Cartographer', 4],
    ]);
    expect(watchlist.watchlist.map((w: { movie: { title: string } }) => w.movie.title)).toEqual(['Ninefold']);
  });
});
