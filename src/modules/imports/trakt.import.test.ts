import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeTmdbMovie } from '../../../test/fake-tmdb.js';
import {
  CARTOGRAPHER,
  cliImportWorld,
  exportFolders,
  NINEFOLD,
  SALT_ROAD,
} from '../../../test/import-world.js';
import { ImportFileError, type ImportRow } from './import.types.js';
import { parseHere } from './import-parse.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/imports/trakt');
const folder = exportFolders('trakt');

const parse = (path: string, timezone = 'America/New_York') =>
  parseHere({ format: 'trakt', path, context: { timezone, today: '2026-01-01' } });

/** The rows as short tuples, for exact comparisons. */
const brief = (rows: readonly ImportRow[]) =>
  rows.map((row) => {
    const name = row.movie.title ?? `trakt ${row.movie.traktId}`;
    if (row.kind === 'play') return ['play', name, row.watchedAt, row.plays];
    if (row.kind === 'rating') return ['rating', name, row.rating, row.ratedAt];
    if (row.kind === 'watchlist') return ['watchlist', name, row.addedAt];
    if (row.kind === 'like') return ['like', name, row.likedAt];
    if (row.kind === 'list-movie')
      return [
        'list-movie',
        name,
        row.list.name,
        row.list.description,
        row.list.ranked,
        row.note,
        row.addedAt,
      ];
    return ['watched', name];
  });

const skippedOf = (result: { skipped: { what: string; count: number }[] }) =>
  Object.fromEntries(result.skipped.map((s) => [s.what, s.count]));

const ids = (trakt: unknown, tmdb: unknown = null, imdb: unknown = null) => ({
  trakt,
  slug: 'made-up',
  imdb,
  tmdb,
});
const movie = (title: string, year: number, trakt: unknown, tmdb: unknown = null, imdb: unknown = null) => ({
  title,
  year,
  ids: ids(trakt, tmdb, imdb),
});
const SR = movie('Salt Road Summer', 2016, 901, 720001, 'tt9720001');
const NINE = movie('Ninefold', 2020, 903, 720003, 'tt9720003');
const HARBOUR = movie('Harbour Lights', 1999, 904, 720004, 'tt9720004');
const SHOW = { title: 'Lighthouse Keepers', year: 2019, ids: { trakt: 7001, tvdb: 88001 } };
let events = 0;
const played = (at: string, m: object, type = 'movie') => ({
  id: 10_000_000_000 + ++events,
  watched_at: at,
  action: 'watch',
  type,
  ...(type === 'movie' ? { movie: m } : { episode: { season: 1, number: 1 }, show: m }),
});
const listed = (m: object, type = 'movie') => ({
  rank: 1,
  id: 1,
  listed_at: '2024-02-10T09:00:00.000Z',
  notes: null,
  type,
  [type]: m,
});
const json = (value: unknown) => JSON.stringify(value);

describe('trakt: reading the files', () => {
  it("reads Trakt's own export whole: the split history, ratings, the watchlist, favourites as likes, lists; the collection and shows are counted", async () => {
    const result = await parse(join(FIXTURES, 'official'));
    expect(result.unreadable).toEqual([]);
    expect(brief(result.rows)).toEqual([
      ['like', 'Harbour Lights', '2024-02-12T09:00:00.000Z'],
      // Named as lists-lists.json says; the person on it counted.
      ['list-movie', 'Harbour Lights', 'Watchlist ideas', null, false, null, '2024-02-13T09:00:00.000Z'],
      ['list-movie', 'Ninefold', 'Watchlist ideas', null, false, null, '2024-02-13T09:01:00.000Z'],
      ['watchlist', 'Harbour Lights Again', '2024-02-10T09:00:00.000Z'],
      ['rating', 'Salt Road Summer', 8, '2024-03-02T04:00:00.000Z'],
      ['rating', 'The Quiet Cartographer', 6, '2024-01-01T10:00:00.000Z'],
      ['play', 'Ninefold', '2024-05-01', 1],
      // 03:30 UTC is the evening before in New York.
      ['play', 'Salt Road Summer', '2024-03-01', 1],
      ['play', 'Salt Road Summer', '2024-03-02', 1],
      // The tenth page is read too (after the second).
      ['play', 'The Quiet Cartographer', '2023-12-31', 1],
    ]);
    expect(result.rows.find((row) => row.movie.title === 'Salt Road Summer')?.movie).toEqual({
      traktId: 901,
      tmdbId: 720001,
      imdbId: 'tt9720001',
      title: 'Salt Road Summer',
      year: 2016,
    });
    // A null TMDB id is no id, and the row still imports by its IMDb id.
    expect(result.rows.find((row) => row.movie.title === 'The Quiet Cartographer')?.movie.tmdbId).toBe(
      undefined,
    );
    expect(skippedOf(result)).toEqual({
      // The episode in the history, the rated show, the show on the watchlist (watched-shows.json is
      // the history again).
      'TV shows and episodes': 4,
      'people on Trakt lists': 1,
      'movies in the Trakt collection': 1,
    });
  });

  it('reads the same export in another zone to other days', async () => {
    const result = await parse(join(FIXTURES, 'official'), 'Asia/Tokyo');
    expect(brief(result.rows.filter((row) => row.kind === 'play'))).toEqual([
      ['play', 'Ninefold', '2024-05-02', 1],
      ['play', 'Salt Road Summer', '2024-03-02', 1],
      ['play', 'Salt Road Summer', '2024-03-03', 1],
      ['play', 'The Quiet Cartographer', '2024-01-01', 1],
    ]);
  });

  describe("watched-movies.json (plays and the last play's time, no history: defect 5)", () => {
    const watched = json([
      {
        plays: 3,
        last_watched_at: '2024-06-01T02:00:00.000Z',
        last_updated_at: '2024-06-01T02:00:00.000Z',
        movie: SR,
      },
      { plays: 1, last_watched_at: '2023-02-02T12:00:00.000Z', movie: NINE },
      { plays: 2, last_watched_at: null, movie: HARBOUR },
      { plays: 1, last_watched_at: '2024-01-01T00:00:00.000Z', show: SHOW, seasons: [] },
    ]);
    const expected = [
      // The last play on its day in the user's zone, the two others on no known date.
      ['play', 'Salt Road Summer', '2024-05-31', 1],
      ['play', 'Salt Road Summer', null, 2],
      ['play', 'Ninefold', '2023-02-02', 1],
      ['play', 'Harbour Lights', null, 2],
    ];

    it('alone, it is imported', async () => {
      const result = await parse(join(folder({ 'watched-movies.json': watched }), 'watched-movies.json'));
      expect(brief(result.rows)).toEqual(expected);
      expect(skippedOf(result)).toEqual({ 'TV shows and episodes': 1 });
    });

    it('in a folder without a history, it is imported beside the other files', async () => {
      const path = folder({
        'trakt-export/watched-movies.json': watched,
        'trakt-export/ratings-movies.json': json([
          { rated_at: '2024-06-02T10:00:00.000Z', rating: 7, type: 'movie', movie: SR },
        ]),
        'trakt-export/user-profile.json': json({ username: 'madeup' }),
      });
      const result = await parse(path);
      expect(brief(result.rows)).toEqual([
        ['rating', 'Salt Road Summer', 7, '2024-06-02T10:00:00.000Z'],
        ...expected,
      ]);
    });

    it('with a history beside it, the history wins', async () => {
      // (And an event a page repeats is one play.)
      const event = played('2024-05-20T12:00:00.000Z', SR);
      const path = folder({
        'watched-movies.json': watched,
        'watched-history-1.json': json([event]),
        'watched-history-2.json': json([event, played('2024-05-21T12:00:00.000Z', SR)]),
      });
      const result = await parse(path);
      expect(brief(result.rows)).toEqual([
        ['play', 'Salt Road Summer', '2024-05-20', 1],
        ['play', 'Salt Road Summer', '2024-05-21', 1],
      ]);
      expect(result.skipped).toEqual([]);
    });
  });

  describe('only the watchlist file is the watchlist (defect 4)', () => {
    it('favourites are likes and every list of the user a list, never put on the watchlist', async () => {
      const path = folder({
        'lists-favorites.json': json([listed(SR), listed(SHOW, 'show')]),
        'lists-list-4242-watchlist-ideas.json': json([listed(NINE)]),
        // Ranks out of the file's order, a note with CRLF, an episode.
        'lists-list-7-weekend-2.json': json([
          { ...listed(HARBOUR), rank: 2, notes: 'Late\r\nshow' },
          { ...listed(SR), rank: 1 },
          listed(SHOW, 'show'),
        ]),
        'lists-lists.json': json([
          {
            name: 'Weekend / 🍿',
            description: 'For Saturdays',
            privacy: 'private',
            display_numbers: true,
            item_count: 2,
            ids: { trakt: 7, slug: 'weekend-2' },
          },
        ]),
        'lists/want.json': json([listed(NINE)]),
        'my-favourites.json': json([listed(HARBOUR)]),
        // A list with nothing on it yet, and one of shows only: lists all the same, without movies.
        'lists-list-9-someday.json': json([]),
        'lists-list-10-shows.json': json([listed(SHOW, 'show')]),
      });
      const result = await parse(path);
      expect(result.unreadable).toEqual([]);
      expect(result.lists.map((list) => list.name)).toEqual([
        'Weekend / 🍿',
        'someday',
        'shows',
        'watchlist ideas',
        'want',
      ]);
      expect(brief(result.rows)).toEqual([
        ['like', 'Salt Road Summer', '2024-02-10T09:00:00.000Z'],
        [
          'list-movie',
          'Salt Road Summer',
          'Weekend / 🍿',
          'For Saturdays',
          true,
          null,
          '2024-02-10T09:00:00.000Z',
        ],
        [
          'list-movie',
          'Harbour Lights',
          'Weekend / 🍿',
          'For Saturdays',
          true,
          'Late\nshow',
          '2024-02-10T09:00:00.000Z',
        ],
        // Without lists-lists.json's word on it, a list is named by its slug (files in numeric order).
        ['list-movie', 'Ninefold', 'watchlist ideas', null, false, null, '2024-02-10T09:00:00.000Z'],
        ['list-movie', 'Ninefold', 'want', null, false, null, '2024-02-10T09:00:00.000Z'],
        ['like', 'Harbour Lights', '2024-02-10T09:00:00.000Z'],
      ]);
      expect(skippedOf(result)).toEqual({ 'TV shows and episodes': 3 });
    });

    it('the watchlist is lists-watchlist.json, an older tool’s watchlist_movies.json, or a file sent without a name', async () => {
      for (const name of [
        'lists-watchlist.json',
        'lists-watchlist-2.json',
        'watchlist_movies.json',
        'upload.json',
      ]) {
        const result = await parse(
          join(folder({ [name]: json([listed(NINE), listed(SHOW, 'show')]) }), name),
        );
        expect(brief(result.rows), name).toEqual([['watchlist', 'Ninefold', '2024-02-10T09:00:00.000Z']]);
        expect(skippedOf(result), name).toEqual({ 'TV shows and episodes': 1 });
      }
    });
  });

  it('reads the files of older backup tools by their content', async () => {
    const path = folder({
      'madeup-history_movies.json': json([played('2022-01-01T12:00:00.000Z', SR)]),
      'madeup-ratings_movies.json': json([{ rated_at: '2022-01-02T12:00:00.000Z', rating: 10, movie: SR }]),
      'madeup-watchlist_movies.json': json([{ listed_at: '2022-01-03T12:00:00.000Z', movie: NINE }]),
      'madeup-watched_movies.json': json([
        { plays: 9, last_watched_at: '2022-01-01T12:00:00.000Z', movie: SR },
      ]),
      'madeup-collection_movies.json': json([{ collected_at: '2022-01-01T12:00:00.000Z', movie: HARBOUR }]),
    });
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([
      ['play', 'Salt Road Summer', '2022-01-01', 1],
      ['rating', 'Salt Road Summer', 10, '2022-01-02T12:00:00.000Z'],
      ['watchlist', 'Ninefold', '2022-01-03T12:00:00.000Z'],
    ]);
    expect(skippedOf(result)).toEqual({ 'movies in the Trakt collection': 1 });
  });

  it('reads a traktexport document (one JSON object of sections)', async () => {
    const path = folder({
      'data.json': json({
        type: 'full',
        username: 'madeup',
        profile: { username: 'madeup' },
        watched: [{ plays: 4, last_watched_at: '2024-01-01T12:00:00.000Z', movie: SR }],
        history: [
          played('2024-01-01T12:00:00.000Z', SR),
          played('2024-01-02T12:00:00.000Z', SHOW, 'episode'),
        ],
        ratings: [{ rated_at: '2024-01-03T12:00:00.000Z', rating: 5, type: 'movie', movie: NINE }],
        watchlist: [listed(HARBOUR)],
        lists: [{ name: 'Some list', ids: { trakt: 1, slug: 'some-list' } }],
      }),
    });
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([
      ['play', 'Salt Road Summer', '2024-01-01', 1],
      ['rating', 'Ninefold', 5, '2024-01-03T12:00:00.000Z'],
      ['watchlist', 'Harbour Lights', '2024-02-10T09:00:00.000Z'],
    ]);
    expect(result.rows[0]).toMatchObject({ file: 'data.json (history)', line: 1 });
    expect(skippedOf(result)).toEqual({ 'TV shows and episodes': 1 });
  });

  it('an id that cannot be one (1e300, 999999999999, a string, a negative) makes its row unreadable, with why', async () => {
    const path = folder({
      'watched-history.json': `[${[
        json(played('2024-01-01T12:00:00.000Z', movie('Good', 2001, 1001, null, null))),
        '{"watched_at":"2024-01-01T12:00:00.000Z","type":"movie","movie":{"title":"Huge","year":2001,"ids":{"trakt":1e300}}}',
        json(played('2024-01-01T12:00:00.000Z', movie('Too big', 2002, 1002, 999999999999))),
        json(played('2024-01-01T12:00:00.000Z', movie('Text', 2003, '1003'))),
        json(played('2024-01-01T12:00:00.000Z', movie('Negative', 2004, 1004, -5))),
        json(played('2024-01-01T12:00:00.000Z', { ids: { trakt: null, tmdb: null, imdb: null } })),
        json(played('2024-01-01T12:00:00.000Z', movie('Bad IMDb', 2005, 1005, null, 'nm0000001'))),
        json(played('2030-01-01T12:00:00.000Z', movie('Future', 2006, 1006))),
        json(played('not a date', movie('Undated', 2007, 1007))),
        json({ watched_at: '2024-01-01T12:00:00.000Z', type: 'movie' }),
      ].join(',')}]`,
    });
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([['play', 'Good', '2024-01-01', 1]]);
    expect(result.unreadable.map((row) => [row.line, row.title, row.year, row.reason])).toEqual([
      [2, 'Huge', 2001, 'movie.ids.trakt is "1e+300", not a numeric id'],
      [3, 'Too big', 2002, 'movie.ids.tmdb is "999999999999", not a numeric id'],
      [4, 'Text', 2003, 'movie.ids.trakt is "1003", not a numeric id'],
      [5, 'Negative', 2004, 'movie.ids.tmdb is "-5", not a numeric id'],
      [6, null, null, 'its movie has no id and no title'],
      [7, 'Bad IMDb', 2005, 'movie.ids.imdb is "nm0000001", not an IMDb id (tt…)'],
      [8, 'Future', 2006, 'watched_at is "2030-01-01T12:00:00.000Z": the date is in the future'],
      [9, 'Undated', 2007, 'watched_at is "not a date", not a date and time'],
      [10, null, null, 'it has no movie'],
    ]);
    expect(result.unreadable[0]?.file).toBe('watched-history.json');
  });

  it('a 5,000-deep array as an item or in a field makes an unreadable row; as the whole file, a clear refusal', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const item = (movieJson: string) =>
      `{"watched_at":"2024-01-01T12:00:00.000Z","action":"watch","type":"movie","movie":${movieJson}}`;
    const path = folder({
      'watched-history.json': `[${[
        item(json(SR)),
        deep,
        item(deep),
        item(`{"title":${deep},"ids":{"trakt":5}}`),
        item(`{"title":"Deep ids","year":2001,"ids":{"trakt":5,"tmdb":${deep}}}`),
        item(`{"title":"Deep year","year":${deep},"ids":{"trakt":5}}`),
        `{"watched_at":${deep},"type":"movie","movie":${json(NINE)}}`,
        `{"watched_at":"2024-01-01T12:00:00.000Z","type":${deep},"movie":${json(NINE)}}`,
      ].join(',')}]`,
      'ratings-movies.json': `[{"rated_at":"2024-01-01T12:00:00.000Z","rating":${deep},"movie":${json(SR)}}]`,
    });
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([['play', 'Salt Road Summer', '2024-01-01', 1]]);
    expect(result.unreadable.map((row) => [row.file, row.line, row.reason])).toEqual([
      ['ratings-movies.json', 1, 'rating is a list: a rating is from 1 to 10'],
      ['watched-history.json', 2, 'item 2 is a list, not an object'],
      ['watched-history.json', 3, 'movie is a list, not an object'],
      ['watched-history.json', 4, 'movie.title is a list, not text'],
      ['watched-history.json', 5, 'movie.ids.tmdb is "a list", not a numeric id'],
      ['watched-history.json', 6, 'movie.year is "a list", not a year'],
      ['watched-history.json', 7, 'watched_at is "a list", not a date and time'],
      ['watched-history.json', 8, 'type is "a list", not movie, show, season or episode'],
    ]);
    const whole = folder({ 'watched-history.json': deep });
    await expect(parse(whole)).rejects.toThrow(/found no Trakt export/);
  });

  it('ignores JSON that is no list of Trakt items and files of other kinds; refuses a folder with no Trakt file', async () => {
    const path = folder({
      'user-profile.json': json({
        username: 'madeup',
        deep: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`),
      }),
      '_errors.json': json([
        { endpoint: 'users/madeup/history', error: 'HTTP 502', fetchedPages: 3, totalPages: 9 },
      ]),
      'lists-lists.json': json([{ name: 'Weekend', ids: { trakt: 7, slug: 'weekend' } }]),
      'numbers.json': '[1, 2, 3]',
      'README.txt': 'An export of Trakt.',
      'poster.jpg': new Uint8Array([0xff, 0xd8, 0xff, 0, 1, 2, 0]),
    });
    await expect(parse(path)).rejects.toThrow(
      new ImportFileError(
        'found no Trakt export: expected JSON files of Trakt items, such as watched-history.json (watched_at), ' +
          'watched-movies.json (plays, last_watched_at), ratings-movies.json (rated_at, rating) or ' +
          'lists-watchlist.json (listed_at)',
      ),
    );
    writeFileSync(join(path, 'watched-history.json'), json([played('2024-01-01T12:00:00.000Z', SR)]));
    const result = await parse(path);
    expect(brief(result.rows)).toEqual([['play', 'Salt Road Summer', '2024-01-01', 1]]);
    expect(result.unreadable).toEqual([]);
    expect(result.skipped).toEqual([]);
  });

  it('refuses the whole import for a .json file that is not valid JSON, whichever it is', async () => {
    const history = json([played('2024-01-01T12:00:00.000Z', SR)]);
    await expect(
      parse(folder({ 'watched-history.json': history, 'ratings-movies.json': '[{"rated_at": "2024-01-0' })),
    ).rejects.toThrow(/^ratings-movies\.json is not valid JSON/);
    await expect(
      parse(folder({ 'watched-history.json': history, 'user-profile.json': '{"username": madeup}' })),
    ).rejects.toThrow(/^user-profile\.json is not valid JSON/);
    // Broken after its first item (which made it known as a history).
    await expect(
      parse(folder({ 'watched-history.json': `${history.slice(0, -1)},{"watched_at"` })),
    ).rejects.toThrow(/^watched-history\.json is not valid JSON/);
  });
});

describe('trakt: importing through the command line', () => {
  const world = cliImportWorld();
  const { cli, counts, files, lists } = world;

  it('recognises files by content, puts instants on the user’s day, skips episodes, makes lists, and the export keeps the Trakt id', async () => {
    await world.ctx.users.update('alice', { timezone: 'America/New_York' });
    const traktMovie = (m: FakeTmdbMovie, trakt: number, more: object = {}) => ({
      title: m.title,
      year: Number(m.release_date.slice(0, 4)),
      ids: { trakt, slug: m.title.toLowerCase().replace(/ /g, '-'), imdb: m.imdb_id, tmdb: m.id, ...more },
    });
    const path = files('trakt', {
      'watched-history.json': JSON.stringify([
        {
          id: 1,
          watched_at: '2024-03-02T03:30:00.000Z',
          action: 'scrobble',
          type: 'movie',
          movie: traktMovie(SALT_ROAD, 5001),
        },
        {
          id: 2,
          watched_at: '2024-03-02T15:00:00.000Z',
          action: 'watch',
          type: 'movie',
          movie: traktMovie(SALT_ROAD, 5001),
        },
        {
          id: 3,
          watched_at: '2024-03-03T20:00:00.000Z',
          action: 'watch',
          type: 'episode',
          episode: { season: 1, number: 1, title: 'Pilot' },
          show: { title: 'Some Show' },
        },
        {
          id: 4,
          watched_at: '2024-04-01T12:00:00.000Z',
          action: 'checkin',
          type: 'movie',
          movie: traktMovie(CARTOGRAPHER, 5002, { tmdb: null }),
        },
      ]),
      'ratings_movies.json': JSON.stringify([
        {
          rated_at: '2024-03-02T04:00:00.000Z',
          rating: 9,
          type: 'movie',
          movie: traktMovie(SALT_ROAD, 5001),
        },
      ]),
      'lists-watchlist.json': JSON.stringify([
        {
          rank: 1,
          id: 9,
          listed_at: '2024-01-10T10:00:00.000Z',
          notes: null,
          type: 'movie',
          movie: traktMovie(NINEFOLD, 5003),
        },
      ]),
      // A list of the user's: a list, never the watchlist (defect 4).
      'lists/want.json': JSON.stringify([
        {
          rank: 1,
          id: 10,
          listed_at: '2024-01-11T10:00:00.000Z',
          notes: null,
          type: 'movie',
          movie: traktMovie(CARTOGRAPHER, 5002),
        },
      ]),
      'profile.json': JSON.stringify({ username: 'alice' }),
    });
    const first = await cli(['import', 'trakt', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 6, existing: 0, unmatched: 0 });
    const skippedLine = first.stderr.split('\n').find((line) => line.startsWith('skipped'));
    expect(skippedLine?.split(': ')[1]?.split(', ').sort()).toEqual(['1 TV shows and episodes']);
    expect(first.stderr).toContain('lists: added 1, already there 0');
    const { played, ratings, watchlist } = await lists(world.alice);
    const byTitle = Object.fromEntries(
      played.played.map((p: { movie: { title: string }; watchedDates: unknown }) => [
        p.movie.title,
        p.watchedDates,
      ]),
    );
    expect(byTitle).toEqual({
      'Salt Road Summer': [
        { date: '2024-03-02', plays: 1, comment: null },
        { date: '2024-03-01', plays: 1, comment: null },
      ],
      'The Quiet Cartographer': [{ date: '2024-04-01', plays: 1, comment: null }],
    });
    // 04:00 UTC is the evening before in New York.
    expect(ratings.ratings.map((r: { rating: number; ratedAt: string }) => [r.rating, r.ratedAt])).toEqual([
      [9, '2024-03-01'],
    ]);
    expect(watchlist.watchlist.map((w: { movie: { title: string } }) => w.movie.title)).toEqual(['Ninefold']);

    // The Trakt ids are the user's own (never the shared catalogue's): the export carries them back.
    const exported = await cli(['export', '--user', 'alice', '--format', 'json']);
    expect(exported.code, exported.stderr).toBe(0);
    const document = JSON.parse(exported.stdout);
    const traktIdOf = (title: string) =>
      document.history.find((h: { movie: { title: string } }) => h.movie.title === title)?.movie.traktId;
    expect(traktIdOf('Salt Road Summer')).toBe(5001);
    expect(traktIdOf('The Quiet Cartographer')).toBe(5002);
    expect(
      document.watchlist.map((w: { movie: { title: string; traktId: number } }) => [
        w.movie.title,
        w.movie.traktId,
      ]),
    ).toEqual([['Ninefold', 5003]]);

    expect(counts(await cli(['import', 'trakt', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 6,
      unmatched: 0,
    });
  });

  it('fills in what an earlier import skipped (favourites, lists) without a play more; again, nothing', async () => {
    const history = JSON.stringify([played('2024-03-02T15:00:00.000Z', SR)]);
    // An earlier import (before issue 30) read the history and counted favourites and lists: as a
    // folder of the history alone.
    expect(
      counts(
        await cli(['import', 'trakt', '--user', 'alice', files('old', { 'watched-history.json': history })]),
      ),
    ).toEqual({
      added: 1,
      existing: 0,
      unmatched: 0,
    });
    const path = files('full', {
      'watched-history.json': history,
      'lists-favorites.json': JSON.stringify([{ ...listed(SR), listed_at: '2024-03-03T10:00:00.000Z' }]),
      'lists-list-9-late-night.json': JSON.stringify([
        { ...listed(NINE), rank: 2 },
        { ...listed(SR), rank: 1, notes: 'Start here' },
      ]),
      'lists-lists.json': JSON.stringify([
        { name: 'Late night', description: '', privacy: 'public', display_numbers: true, ids: { trakt: 9 } },
      ]),
    });
    const second = await cli(['import', 'trakt', '--user', 'alice', path]);
    expect(second.code, second.stderr).toBe(0);
    expect(counts(second)).toEqual({ added: 2, existing: 1, unmatched: 0 });
    expect((await world.api(world.alice, 'likes/movies')).likes).toMatchObject([
      { movie: { title: 'Salt Road Summer' }, likedAt: '2024-03-03' },
    ]);
    const [list] = (await world.api(world.alice, 'lists')).lists;
    expect(list).toMatchObject({
      name: 'Late night',
      description: null,
      ranked: true,
      visibility: 'private',
    });
    const full = await world.api(world.alice, `lists/${list.id}`);
    expect(
      full.movies.map((m: { position: number; movie: { title: string }; note: string | null }) => [
        m.position,
        m.movie.title,
        m.note,
      ]),
    ).toEqual([
      [1, 'Salt Road Summer', 'Start here'],
      [2, 'Ninefold', null],
    ]);
    expect(counts(await cli(['import', 'trakt', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 3,
      unmatched: 0,
    });
  });

  it('imports watched-movies.json alone (no history): the plays, the last one dated', async () => {
    const path = files('trakt-watched', {
      'watched-movies.json': JSON.stringify([
        {
          plays: 3,
          last_watched_at: '2024-06-01T20:00:00.000Z',
          last_updated_at: '2024-06-01T20:00:00.000Z',
          movie: {
            title: SALT_ROAD.title,
            year: 2016,
            ids: { trakt: 5001, slug: 'salt-road-summer', imdb: null, tmdb: SALT_ROAD.id },
          },
        },
      ]),
    });
    const first = await cli(['import', 'trakt', '--user', 'alice', join(path, 'watched-movies.json')]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 3, existing: 0, unmatched: 0 });
    const { played } = await lists(world.alice);
    // Berlin: 20:00 UTC is 22:00 on the same day.
    expect(played.played.map((p: { watchedDates: unknown }) => p.watchedDates)).toEqual([
      [
        { date: '2024-06-01', plays: 1, comment: null },
        { date: null, plays: 2, comment: null },
      ],
    ]);
    expect(counts(await cli(['import', 'trakt', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 3,
      unmatched: 0,
    });
  });
});
