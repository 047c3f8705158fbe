import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CARTOGRAPHER,
  cliImportWorld,
  csv,
  exportFolders,
  FILMS,
  film,
  HARBOUR,
} from '../../../test/import-world.js';
import { ImportFileError } from './import.types.js';
import { parseHere } from './import-parse.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/imports/imdb');
const context = { timezone: 'Europe/Berlin', today: '2024-06-15' };
/** Noon of a day in Europe/Berlin in summer (CEST) and in winter (CET). */
const noonSummer = (day: string) => `${day}T10:00:00.000Z`;
const noonWinter = (day: string) => `${day}T11:00:00.000Z`;

const exportDir = exportFolders('imdb');
const parse = (path: string) => parseHere({ format: 'imdb', path, context });
/** Rows in file (by name, as bytes) and line order: a directory lists its files in any order. */
const inOrder = <T extends { file: string; line: number }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
const skippedOf = (result: { skipped: { what: string; count: number }[] }) =>
  Object.fromEntries(result.skipped.map((s) => [s.what, s.count]));

const RATINGS_2018 =
  'Const,Your Rating,Date Rated,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors';
const RATINGS_2024 =
  'Const,Your Rating,Date Rated,Title,Original Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors';
const LIST_2018 =
  'Position,Const,Created,Modified,Description,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors,Your Rating,Date Rated';
const LIST_2024 =
  'Position,Const,Created,Modified,Description,Title,Original Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors,Your Rating,Date Rated';
const LIST_2017 =
  '"position","const","created","modified","description","Title","Title type","Directors","You rated","IMDb Rating","Runtime (mins)","Year","Genres","Num. Votes","Release Date (month/day/year)","URL"';

/** A 2024+ list row: position, id, created, title, type, year, and the user's rating and its day. */
const list2024 = (
  position: number,
  id: string,
  created: string,
  title: string,
  type: string,
  year: number,
  rating = '',
  rated = '',
) =>
  `${position},${id},${created},${created},,"${title}","${title}",https://www.imdb.com/title/${id}/,${type},7.0,100,${year},Drama,1000,${year}-01-01,"Someone",${rating},${rated}`;

/** A 2017 row, every field quoted, asctime dates. */
const row2017 = (position: number, id: string, created: string, title: string, type: string, rated: string) =>
  `"${position}","${id}","${created}","","","${title}","${type}","Someone","${rated}","7.0","100","2011","drama","1000","2011-10-12","http://www.imdb.com/title/${id}/"`;

describe('imdb: the layouts since 2017', () => {
  it('reads the 2024+ watchlist, whose rows carry Your Rating, as the watchlist and never as ratings', async () => {
    const result = await parse(
      exportDir({
        'WATCHLIST.csv': csv(
          LIST_2024,
          list2024(1, 'tt9720004', '2023-11-02', 'Harbour Lights', 'Movie', 1999),
          list2024(2, 'tt9720002', '2024-01-05', 'The Quiet Cartographer', 'Movie', 2011, '8', '2024-03-01'),
          list2024(3, 'tt9799001', '2022-05-05', 'A Show', 'TV Series', 2015),
          list2024(4, 'tt9799002', '2022-05-06', 'A Mini Series', 'TV Mini Series', 1973, '7', '2022-06-01'),
        ),
      }),
    );
    expect(result.rows).toEqual([
      {
        file: 'WATCHLIST.csv',
        line: 2,
        kind: 'watchlist',
        movie: { imdbId: 'tt9720004', title: 'Harbour Lights', year: 1999 },
        addedAt: noonWinter('2023-11-02'),
      },
      {
        file: 'WATCHLIST.csv',
        line: 3,
        kind: 'watchlist',
        movie: { imdbId: 'tt9720002', title: 'The Quiet Cartographer', year: 2011 },
        addedAt: noonWinter('2024-01-05'),
      },
    ]);
    expect(skippedOf(result)).toEqual({
      'TV series on the IMDb watchlist': 1,
      'TV mini series on the IMDb watchlist': 1,
      'ratings in IMDb watchlist and list files (import the ratings export for them)': 1,
    });
  });

  it('takes a list-shaped file sent without a name (upload.csv) for the watchlist, whatever its case', async () => {
    for (const name of ['upload.csv', 'watchlist.CSV', 'My WATCHLIST (1).csv']) {
      const result = await parse(
        exportDir({
          [name]: csv(
            LIST_2024,
            list2024(1, 'tt9720004', '2023-11-02', 'Harbour Lights', 'Movie', 1999, '9', '2024-01-01'),
          ),
        }),
      );
      expect(
        result.rows.map((r) => r.kind),
        name,
      ).toEqual(['watchlist']);
    }
  });

  it('counts the movies of any other list as skipped, and takes no rating from a list', async () => {
    const result = await parse(
      exportDir({
        'ls012345678.csv': csv(
          LIST_2024,
          list2024(1, 'tt9720004', '2023-11-02', 'Harbour Lights', 'Movie', 1999, '9', '2024-01-01'),
          list2024(2, 'tt9720002', '2023-11-03', 'The Quiet Cartographer', 'Movie', 2011),
          list2024(3, 'tt9799001', '2023-11-04', 'A Show', 'TV Series', 2015),
        ),
        'My favourites.csv': csv(
          LIST_2018,
          '1,tt9720001,2020-01-01,2020-01-01,,Salt Road Summer,https://www.imdb.com/title/tt9720001/,movie,7.0,100,2016,Drama,100,2016-07-01,,,',
        ),
      }),
    );
    expect(result.rows).toEqual([]);
    expect(result.unreadable).toEqual([]);
    expect(skippedOf(result)).toEqual({
      'movies on IMDb lists': 3,
      'TV series on IMDb lists': 1,
      'ratings in IMDb watchlist and list files (import the ratings export for them)': 1,
    });
  });

  it('reads the 2024+ ratings: Original Title, capitalised types; skips and counts series, episodes, games, podcasts', async () => {
    const rating = (id: string, rated: string, title: string, type: string, release = '2011-10-12') =>
      `${id},7,${rated},"${title}","${title}",https://www.imdb.com/title/${id},${type},7.7,155,2011,"Drama",1000,"${release}","A,B"`;
    const result = await parse(
      exportDir({
        'ratings.csv': csv(
          RATINGS_2024,
          rating('tt9720001', '2024-01-01', 'Kept Movie', 'Movie'),
          rating('tt9720002', '2024-01-02', 'Kept TV Movie', 'TV Movie'),
          rating('tt9720003', '2024-01-03', 'Kept Short', 'Short'),
          rating('tt9720004', '2024-01-04', 'Kept Video', 'Video', '2011-10'),
          rating('tt9720005', '2024-01-05', 'Kept Untyped', '', '2011'),
          rating('tt9799001', '2024-02-01', 'Series', 'TV Series'),
          rating('tt9799002', '2024-02-02', 'Mini', 'TV Mini Series'),
          rating('tt9799003', '2024-02-03', 'Episode', 'TV Episode'),
          rating('tt9799004', '2024-02-04', 'Episode 2', 'TV Episode'),
          rating('tt9799005', '2024-02-05', 'Special', 'TV Special'),
          rating('tt9799006', '2024-02-06', 'Game', 'Video Game'),
          rating('tt9799007', '2024-02-07', 'Podcast', 'Podcast Series'),
          rating('tt9799008', '2024-02-08', 'Podcast Episode', 'Podcast Episode'),
          rating('tt9799009', '2024-02-09', 'Clip', 'Music Video'),
        ),
      }),
    );
    expect(result.rows.map((r) => [r.kind, r.movie.imdbId, r.kind === 'rating' && r.rating])).toEqual([
      ['rating', 'tt9720001', 7],
      ['rating', 'tt9720002', 7],
      ['rating', 'tt9720003', 7],
      ['rating', 'tt9720004', 7],
      ['rating', 'tt9720005', 7],
    ]);
    expect(result.rows[0]).toMatchObject({ ratedAt: noonWinter('2024-01-01'), line: 2 });
    expect(skippedOf(result)).toEqual({
      'ratings of TV series': 1,
      'ratings of TV mini series': 1,
      'ratings of TV episodes': 2,
      'ratings of TV specials': 1,
      'ratings of video games': 1,
      'ratings of podcasts': 2,
      'ratings of music videos': 1,
    });
  });

  it('reads the 2018–2023 ratings and watchlist: camelCase types, watchlist rows with Your Rating', async () => {
    const result = await parse(
      exportDir({
        'ratings.csv': csv(
          RATINGS_2018,
          'tt9720002,8,2017-04-16,Le Cartographe silencieux,https://www.imdb.com/title/tt9720002/,movie,8.0,120,2011,"Drama, Romance",744373,2011-10-12,"A, B"',
          'tt9720003,6,2019-06-10,Ninefold,https://www.imdb.com/title/tt9720003/,tvMovie,6.0,90,2020,Drama,10,2020-01-02,',
          'tt9799001,9,2019-06-11,Some Show,https://www.imdb.com/title/tt9799001/,tvSeries,8.0,45,2015,Drama,10,2015-01-01,',
          'tt9799002,9,2019-06-12,Some Episode,https://www.imdb.com/title/tt9799002/,tvEpisode,8.0,45,2016,Drama,10,2016-01-01,',
          'tt9799003,9,2019-06-13,Some Special,https://www.imdb.com/title/tt9799003/,tvSpecial,8.0,45,2016,Drama,10,2016-01-01,',
          'tt9799004,9,2019-06-14,Some Game,https://www.imdb.com/title/tt9799004/,videoGame,8.0,,2016,Action,10,2016-01-01,',
        ),
        'WATCHLIST.csv': csv(
          LIST_2018,
          '6,tt9799005,2018-08-08,2018-08-08,,Welt am Draht,https://www.imdb.com/title/tt9799005/,tvMiniSeries,7.7,212,1973,"Crime, Mystery, Sci-Fi",6246,1973-10-14,,,',
          '7,tt9720004,2018-08-09,2018-08-09,,Harbour Lights,https://www.imdb.com/title/tt9720004/,movie,6.5,100,1999,Drama,12,1999-05-05,,7,2019-01-01',
        ),
      }),
    );
    expect(inOrder(result.rows)).toEqual([
      {
        file: 'WATCHLIST.csv',
        line: 3,
        kind: 'watchlist',
        movie: { imdbId: 'tt9720004', title: 'Harbour Lights', year: 1999 },
        addedAt: noonSummer('2018-08-09'),
      },
      {
        file: 'ratings.csv',
        line: 2,
        kind: 'rating',
        movie: { imdbId: 'tt9720002', title: 'Le Cartographe silencieux', year: 2011 },
        rating: 8,
        ratedAt: noonSummer('2017-04-16'),
      },
      {
        file: 'ratings.csv',
        line: 3,
        kind: 'rating',
        movie: { imdbId: 'tt9720003', title: 'Ninefold', year: 2020 },
        rating: 6,
        ratedAt: noonSummer('2019-06-10'),
      },
    ]);
    expect(skippedOf(result)).toEqual({
      'ratings of TV series': 1,
      'ratings of TV episodes': 1,
      'ratings of TV specials': 1,
      'ratings of video games': 1,
      'TV mini series on the IMDb watchlist': 1,
      'ratings in IMDb watchlist and list files (import the ratings export for them)': 1,
    });
  });

  it('reads the 2017 layout: quoted lowercase header, asctime dates, "You rated"; ratings.csv is the ratings', async () => {
    const result = await parse(
      exportDir({
        'ratings.csv': csv(
          LIST_2017,
          row2017(
            1,
            'tt9720002',
            'Sun Mar  1 00:00:00 2015',
            'Le Cartographe silencieux',
            'Feature Film',
            '6',
          ),
          row2017(2, 'tt9720003', 'Tue Jan 20 00:00:00 2015', 'Ninefold', 'Documentary', '9'),
          row2017(3, 'tt9799001', 'Tue Jan 20 00:00:00 2015', 'A Series', 'TV Series', '8'),
          row2017(4, 'tt9799002', 'Tue Jan 20 00:00:00 2015', 'A Mini-Series', 'Mini-Series', '8'),
        ),
        'WATCHLIST.csv': csv(
          LIST_2017,
          row2017(1, 'tt9720004', 'Thu Aug 14 16:20:52 2014', 'Harbour Lights', 'Feature Film', ''),
          row2017(2, 'tt9720001', 'Mon Sep  1 13:55:45 2014', 'Salt Road Summer', 'Short Film', '7'),
          row2017(3, 'tt9799003', 'Mon Sep  1 13:55:45 2014', 'An Episode', 'TV Episode', ''),
        ),
        'ls000000001.csv': csv(
          LIST_2017,
          row2017(1, 'tt9720005', 'Mon Sep  1 13:55:45 2014', 'Harbour Lights Again', 'Feature Film', ''),
        ),
      }),
    );
    expect(result.unreadable).toEqual([]);
    expect(
      inOrder(result.rows).map((r) => [
        r.file,
        r.kind,
        r.movie.imdbId,
        r.kind === 'rating' ? [r.rating, r.ratedAt] : r.kind === 'watchlist' ? r.addedAt : null,
      ]),
    ).toEqual([
      ['WATCHLIST.csv', 'watchlist', 'tt9720004', noonSummer('2014-08-14')],
      ['WATCHLIST.csv', 'watchlist', 'tt9720001', noonSummer('2014-09-01')],
      ['ratings.csv', 'rating', 'tt9720002', [6, noonWinter('2015-03-01')]],
      ['ratings.csv', 'rating', 'tt9720003', [9, noonWinter('2015-01-20')]],
    ]);
    expect(skippedOf(result)).toEqual({
      'ratings of TV series': 1,
      'ratings of TV mini series': 1,
      'TV episodes on the IMDb watchlist': 1,
      'ratings in IMDb watchlist and list files (import the ratings export for them)': 1,
      'movies on IMDb lists': 1,
    });
  });

  it('takes a 2017 list sent without a name for the ratings when every row is rated, else for the watchlist', async () => {
    const rated = await parse(
      exportDir({
        'upload.csv': csv(
          LIST_2017,
          row2017(
            1,
            'tt9720002',
            'Sun Mar  1 00:00:00 2015',
            'Le Cartographe silencieux',
            'Feature Film',
            '6',
          ),
          row2017(2, 'tt9720003', 'Tue Jan 20 00:00:00 2015', 'Ninefold', 'Feature Film', '9'),
        ),
      }),
    );
    expect(rated.rows.map((r) => r.kind)).toEqual(['rating', 'rating']);
    const watchlist = await parse(
      exportDir({
        'upload.csv': csv(
          LIST_2017,
          row2017(
            1,
            'tt9720002',
            'Sun Mar  1 10:00:00 2015',
            'Le Cartographe silencieux',
            'Feature Film',
            '6',
          ),
          row2017(2, 'tt9720003', 'Tue Jan 20 10:00:00 2015', 'Ninefold', 'Feature Film', ''),
        ),
      }),
    );
    expect(watchlist.rows.map((r) => r.kind)).toEqual(['watchlist', 'watchlist']);
  });

  it('reads a Windows-1252 export (2018–2021) byte for byte', async () => {
    const result = await parse(join(FIXTURES, 'ratings-2019-windows-1252.csv'));
    expect(result.unreadable).toEqual([]);
    expect(result.rows.map((r) => [r.movie.title, r.movie.imdbId, r.kind === 'rating' && r.rating])).toEqual([
      ['Le Cartographe silencieux', 'tt9720002', 8],
      ['Café Überall', 'tt9730001', 7],
      ['The Keeper’s Daughter', 'tt9730002', 9],
    ]);
  });

  it('reads the M/D/YYYY dates of a spreadsheet re-save, D.M.YYYY and D/M/YYYY ones, and partial release dates', async () => {
    const result = await parse(
      exportDir({
        'ratings.csv': csv(
          RATINGS_2018,
          // no date tells the order: month first
          'tt9720001,7,3/4/2024,Salt Road Summer,https://www.imdb.com/title/tt9720001/,movie,7,100,,Drama,1,2016-07,',
          'tt9720002,8,1/31/2024,The Quiet Cartographer,https://www.imdb.com/title/tt9720002/,movie,7,100,,Drama,1,2011,',
        ),
        'WATCHLIST.csv': csv(
          LIST_2018.replaceAll(',', ';'),
          // a day above 12 in a later row says day first, for the whole file
          '1;tt9720003;03/04/2024;03/04/2024;;Ninefold;https://x;movie;7;100;2020;Drama;1;2020-01-02;;;',
          '2;tt9720004;31/01/2024;31/01/2024;;Harbour Lights;https://x;movie;7;100;1999;Drama;1;1999-05-05;;;',
        ),
        'WATCHLIST (1).csv': csv(
          LIST_2018,
          '1,tt9720005,5.4.2024,5.4.2024,,Harbour Lights Again,https://x,movie,7,100,2001,Drama,1,2001-08-08,,,',
        ),
      }),
    );
    expect(result.unreadable).toEqual([]);
    expect(
      inOrder(result.rows).map((r) => [
        r.movie.imdbId,
        r.movie.year,
        r.kind === 'rating' ? r.ratedAt : r.kind === 'watchlist' ? r.addedAt : null,
      ]),
    ).toEqual([
      ['tt9720005', 2001, noonSummer('2024-04-05')],
      ['tt9720003', 2020, noonSummer('2024-04-03')],
      ['tt9720004', 1999, noonWinter('2024-01-31')],
      ['tt9720001', 2016, noonWinter('2024-03-04')],
      ['tt9720002', 2011, noonWinter('2024-01-31')],
    ]);
  });

  it('reports a row with a Const without tt, a bad rating or a bad date as unreadable, and imports the rest', async () => {
    const row = (id: string, rating: string, date: string, title: string) =>
      `${id},${rating},${date},${title},https://x,movie,7,100,2011,Drama,1,2011-10-12,`;
    const result = await parse(
      exportDir({
        'ratings.csv': csv(
          RATINGS_2018,
          row('9720001', '7', '2024-01-01', 'No Tt'),
          row('tt9720002', '11', '2024-01-02', 'Too High'),
          row('tt9720003', 'x', '2024-01-03', 'Not A Number'),
          row('tt9720004', '7', '2024-13-01', 'Month Thirteen'),
          row('tt9720005', '7', '2025-01-01', 'Future'),
          row('tt9720006', '', '2024-01-01', 'No Rating'),
          'tt9720007,7,2024-01-01,Cut Short',
          row('tt9720008', '10', '2024-01-08', 'Good'),
        ),
      }),
    );
    expect(result.rows.map((r) => r.movie.imdbId)).toEqual(['tt9720008']);
    expect(result.unreadable).toEqual([
      {
        file: 'ratings.csv',
        line: 2,
        title: 'No Tt',
        year: 2011,
        reason: 'Const is "9720001", not an IMDb id (tt…)',
      },
      {
        file: 'ratings.csv',
        line: 3,
        title: 'Too High',
        year: 2011,
        reason: 'Your Rating is "11", not a rating from 1 to 10',
      },
      {
        file: 'ratings.csv',
        line: 4,
        title: 'Not A Number',
        year: 2011,
        reason: 'Your Rating is "x", not a rating from 1 to 10',
      },
      {
        file: 'ratings.csv',
        line: 5,
        title: 'Month Thirteen',
        year: 2011,
        reason: expect.stringMatching(/^Date Rated is "2024-13-01", not a date/),
      },
      {
        file: 'ratings.csv',
        line: 6,
        title: 'Future',
        year: 2011,
        reason: 'Date Rated is "2025-01-01": the date is in the future',
      },
      {
        file: 'ratings.csv',
        line: 7,
        title: 'No Rating',
        year: 2011,
        reason: 'Your Rating is empty: the row has no rating',
      },
      {
        file: 'ratings.csv',
        line: 8,
        title: 'Cut Short',
        year: null,
        reason: 'it has 4 cells where the header has 13',
      },
    ]);
  });

  it('refuses the whole import when one file has the wrong header, its sibling files with it', async () => {
    const good = csv(LIST_2024, list2024(1, 'tt9720004', '2023-11-02', 'Harbour Lights', 'Movie', 1999));
    const cases: [Record<string, string>, RegExp][] = [
      [
        { 'WATCHLIST.csv': good, 'ratings.csv': csv('Const,Rating,Title', 'tt9720001,7,X') },
        /ratings\.csv lacks the columns Your Rating, Date Rated/,
      ],
      [
        { 'WATCHLIST.csv': good, 'notes.csv': csv('a,b', '1,2') },
        /notes\.csv is not an IMDb export: its header is a,b/,
      ],
      [{ 'readme.md': '# my IMDb data' }, /readme\.md is not an IMDb export/],
      [{ 'readme.md': '# my IMDb data', 'picture.png': 'x' }, /found no IMDb export/],
    ];
    for (const [contents, message] of cases) {
      const error = await parse(exportDir(contents)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportFileError);
      expect((error as Error).message).toMatch(message);
    }
  });
});

const SHOW = film(720010, 'A Show That Is Not A Movie', '2015-01-01', null);
const world = cliImportWorld([...FILMS, SHOW]);
const { cli, counts, files, lists } = world;

describe('imdb: end to end', () => {
  it('resolves IMDb ids through TMDB /find, skips series, and lands ratings and the watchlist', async () => {
    const path = files('imdb', {
      'ratings.csv': csv(
        RATINGS_2018,
        'tt9720002,9,2024-01-05,The Quiet Cartographer,https://www.imdb.com/title/tt9720002/,Movie,7.1,104,2011,Drama,256,2011-10-12,Someone',
        'tt9799999,5,2024-01-06,Some Show,https://www.imdb.com/title/tt9799999/,TV Series,7.0,45,2015,Drama,10,2015-01-01,',
        'tt9799998,6,2024-01-07,Lost Film,https://www.imdb.com/title/tt9799998/,Movie,6.0,90,1950,Drama,10,1950-01-01,',
      ),
      'WATCHLIST.csv': csv(
        'Position,Const,Created,Modified,Description,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors',
        '1,tt9720004,2024-02-01,2024-02-01,,Harbour Lights,https://www.imdb.com/title/tt9720004/,Movie,6.5,100,1999,Drama,12,1999-05-05,',
      ),
    });
    const first = await cli(['import', 'imdb', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 2, existing: 0, unmatched: 1 });
    const { ratings, watchlist } = await lists(world.alice);
    expect(
      ratings.ratings.map((r: { movie: { title: string }; rating: number; ratedAt: string }) => [
        r.movie.title,
        r.rating,
        r.ratedAt,
      ]),
    ).toEqual([['The Quiet Cartographer', 9, '2024-01-05']]);
    expect(
      watchlist.watchlist.map((w: { movie: { title: string }; addedAt: string }) => [
        w.movie.title,
        w.addedAt,
      ]),
    ).toEqual([['Harbour Lights', '2024-02-01']]);
    expect(world.fake.requests.some((r) => r.path === '/find/tt9720002')).toBe(true);
    expect(first.stderr).toContain('1 ratings of TV series');
    expect(counts(await cli(['import', 'imdb', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 2,
      unmatched: 1,
    });
  });

  it('lands a 2024+ WATCHLIST.csv, whose rows carry Your Rating and Date Rated, on the watchlist and not as ratings', async () => {
    const path = files('imdb-2024', {
      'WATCHLIST.csv': csv(
        LIST_2024,
        list2024(
          1,
          CARTOGRAPHER.imdb_id!,
          '2023-10-01',
          'The Quiet Cartographer',
          'Movie',
          2011,
          '8',
          '2023-12-24',
        ),
        list2024(2, HARBOUR.imdb_id!, '2024-02-01', 'Harbour Lights', 'Movie', 1999),
        list2024(3, 'tt9799001', '2024-02-02', 'A Show That Is Not A Movie', 'TV Series', 2015),
      ),
    });
    const result = await cli(['import', 'imdb', '--user', 'alice', path]);
    expect(result.code, result.stderr).toBe(0);
    expect(counts(result)).toEqual({ added: 2, existing: 0, unmatched: 0 });
    const { ratings, watchlist } = await lists(world.alice);
    expect(ratings.ratings).toEqual([]);
    expect(
      watchlist.watchlist
        .map((w: { movie: { title: string }; addedAt: string }) => [w.movie.title, w.addedAt])
        .sort(),
    ).toEqual([
      ['Harbour Lights', '2024-02-01'],
      ['The Quiet Cartographer', '2023-10-01'],
    ]);
    expect(result.stderr).toContain('1 TV series on the IMDb watchlist');
    // The series is counted, never looked up (its title would find the made-up "movie" of that name).
    expect(world.fake.requests.some((r) => r.path === '/find/tt9799001' || r.query.query !== undefined)).toBe(
      false,
    );
  });
});
