import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cliImportWorld,
  csv,
  exportFolders,
  FILMS,
  film,
  HARBOUR,
  NINEFOLD,
} from '../../../test/import-world.js';
import { ImportFileError, type ImportRow } from './import.types.js';
import { parseHere } from './import-parse.js';
import { titleKind } from './netflix.import.js';

const context = { timezone: 'Europe/Berlin', today: '2024-06-15' };

const exportDir = exportFolders('netflix');
const parse = (path: string) => parseHere({ format: 'netflix', path, context });
/** A NetflixViewingHistory.csv as Netflix writes it: every cell quoted. */
const history = (...rows: [string, string][]) =>
  csv('Title,Date', ...rows.map(([title, date]) => `"${title.replaceAll('"', '""')}","${date}"`));
const plays = (rows: ImportRow[]) =>
  rows.map((row) => [row.movie.title, row.kind === 'play' ? row.watchedAt : null]);
const skippedOf = (result: { skipped: { what: string; count: number }[] }) =>
  Object.fromEntries(result.skipped.map((s) => [s.what, s.count]));

describe('netflix: NetflixViewingHistory.csv', () => {
  it('reads the date in each locale format Netflix writes', async () => {
    const cases: [string, [string, string], [string, string]][] = [
      ['M/D/YY (US)', ['1/9/23', '2023-01-09'], ['12/25/22', '2022-12-25']],
      ['DD/MM/YYYY', ['27/07/2020', '2020-07-27'], ['05/03/2021', '2021-03-05']],
      ['DD-MM-YY', ['23-06-23', '2023-06-23'], ['01-02-23', '2023-02-01']],
      ['D.M.YYYY', ['16.8.2022', '2022-08-16'], ['1.2.2022', '2022-02-01']],
      ['DD.MM.YYYY', ['30.06.2022', '2022-06-30'], ['01.02.2022', '2022-02-01']],
      ['DD.MM.YY', ['28.02.23', '2023-02-28'], ['05.02.21', '2021-02-05']],
      ['YYYY/MM/DD (JP)', ['2020/05/27', '2020-05-27'], ['2020/01/02', '2020-01-02']],
      ['YYYY-MM-DD', ['2023-01-09', '2023-01-09'], ['2022-02-01', '2022-02-01']],
    ];
    for (const [format, [first, firstDay], [second, secondDay]] of cases) {
      const result = await parse(
        exportDir({
          'NetflixViewingHistory.csv': history(['Salt Road Summer', first], ['Ninefold', second]),
        }),
      );
      expect(result.unreadable, format).toEqual([]);
      expect(plays(result.rows), format).toEqual([
        ['Salt Road Summer', firstDay],
        ['Ninefold', secondDay],
      ]);
      expect(result.rows[0], format).toMatchObject({
        kind: 'play',
        movie: { title: 'Salt Road Summer', titleOnly: true },
        plays: 1,
        comment: null,
        file: 'NetflixViewingHistory.csv',
        line: 2,
      });
    }
  });

  it('finds the order of ambiguous dates from the whole file, else month first only for / with a 2-digit year', async () => {
    const cases: [string, [string, string][], string[]][] = [
      [
        'US: / and a 2-digit year',
        [
          ['1/2/23', ''],
          ['3/4/23', ''],
        ],
        ['2023-01-02', '2023-03-04'],
      ],
      [
        '/ and a 4-digit year',
        [
          ['01/02/2023', ''],
          ['03/04/2023', ''],
        ],
        ['2023-02-01', '2023-04-03'],
      ],
      [
        '- and a 2-digit year',
        [
          ['01-02-23', ''],
          ['03-04-23', ''],
        ],
        ['2023-02-01', '2023-04-03'],
      ],
      [
        'a later day above 12 says day first',
        [
          ['1/2/23', ''],
          ['3/4/23', ''],
          ['13/1/23', ''],
        ],
        ['2023-02-01', '2023-04-03', '2023-01-13'],
      ],
      [
        'a later day above 12 says month first',
        [
          ['01/02/2023', ''],
          ['1/13/2023', ''],
        ],
        ['2023-01-02', '2023-01-13'],
      ],
    ];
    for (const [name, dates, expected] of cases) {
      const result = await parse(
        exportDir({
          'NetflixViewingHistory.csv': history(
            ...dates.map(([date], i): [string, string] => [`Film ${i}`, date]),
          ),
        }),
      );
      expect(
        result.rows.map((r) => r.kind === 'play' && r.watchedAt),
        name,
      ).toEqual(expected);
    }
  });

  it('keeps movies, colons and all, and counts episodes of every shape as skipped', async () => {
    const movies = [
      'Glass Onion: A Knives Out Mystery',
      'The Pale Blue Eye',
      'King Arthur: Legend of the Sword',
      'Les Couleurs du mal : Noir',
      'Harry Potter and the Deathly Hallows: Part 2',
      'Kill Bill: Vol. 1',
      'Dune: Part Two',
      '3:10 to Yuma',
      'Demon Slayer: Kimetsu no Yaiba: The Movie: Mugen Train',
    ];
    const episodes = [
      'The Good Doctor: Season 3: Disaster',
      'Show: Season 1: "Episode"',
      'One Day: Limited Series: Episode 2',
      'Schlafende Hunde: Miniserie: Diep graven',
      'Money Heist: Part 5: Episode 1',
      'Money Heist: From Tokyo to Berlin: Volume 1: Episode 1',
      'Avatar: The Last Airbender: Book 1: The Avatar Returns',
      'Show: Chapter 3',
      'Lupin: Part 2: Chapter 6',
      'House of Cards: Season 1: Chapter 10',
      'Sherlock: Series 4: The Lying Detective',
      'Dark: Staffel 2 – Teil B: Folge',
      'Fantasmas: Temporada 1: Episódio 10',
      'Lupin: Saison 1: Chapitre 1',
      'Gomorra: Stagione 2: Episodio 3',
      'Undercover: Seizoen 1: Aflevering 2',
      'Lucifer: Sæson 5: Spoiler Alert',
      'Tapoin äsken isäni: Kausi 1: Big Bad Burt',
      'The Crown: 6. Sezon: Sonuçlar',
      'ザ・コード: シーズン1: エピソード3',
      'GIGN: Épisode\u00a06',
      'High Water: Episode 6',
      'American Horror Story: Murder House: Pilot',
      ': Episode 7',
    ];
    const result = await parse(
      exportDir({
        'NetflixViewingHistory.csv': history(
          ...[...movies, ...episodes].map((t): [string, string] => [t, '1/2/23']),
        ),
      }),
    );
    expect(result.rows.map((r) => r.movie.title)).toEqual(movies);
    expect(skippedOf(result)).toEqual({ 'TV episodes': episodes.length });
    for (const title of movies) expect(titleKind(title), title).toBe('movie');
  });

  it("takes a name that starts four different titles or more for a show's, and a series of films for movies", async () => {
    const show = [
      'Lantern Street: The Visitor',
      'Lantern Street: Cold Harbour',
      'Lantern Street: A Long Night',
      'Lantern Street: Old Debts',
      'Lantern Street: Old Debts',
    ];
    const films = [
      'Mission: Impossible II',
      'Mission: Impossible III',
      'Mission: Impossible - Fallout',
      'Mission: Impossible - Ghost Protocol',
      'The Lord of the Rings: The Fellowship of the Ring',
      'The Lord of the Rings: The Two Towers',
      'The Lord of the Rings: The Return of the King',
      'Three Shows: One',
      'Three Shows: Two',
      'Three Shows: Three',
    ];
    const result = await parse(
      exportDir({
        'NetflixViewingHistory.csv': history(
          ...[...show, ...films].map((t, i): [string, string] => [t, `1/${i + 1}/23`]),
        ),
      }),
    );
    expect(result.rows.map((r) => r.movie.title)).toEqual(films);
    expect(skippedOf(result)).toEqual({ 'TV episodes': show.length });
  });

  it('reports a row with a bad date as unreadable, counts titleless rows, and imports the rest', async () => {
    const result = await parse(
      exportDir({
        'NetflixViewingHistory.csv': history(
          ['Salt Road Summer', '1/2/23'],
          ['In The Future', '1/2/25'],
          ['Not A Day', '2/30/23'],
          ['Not A Date', 'yesterday'],
          [' ', '1/3/23'],
          ['Ninefold', '1/4/23'],
        ),
      }),
    );
    expect(plays(result.rows)).toEqual([
      ['Salt Road Summer', '2023-01-02'],
      ['Ninefold', '2023-01-04'],
    ]);
    expect(result.unreadable).toEqual([
      {
        file: 'NetflixViewingHistory.csv',
        line: 3,
        title: 'In The Future',
        year: null,
        reason: 'Date is "1/2/25": the date is in the future',
      },
      {
        file: 'NetflixViewingHistory.csv',
        line: 4,
        title: 'Not A Day',
        year: null,
        reason: 'Date is "2/30/23", not a date',
      },
      {
        file: 'NetflixViewingHistory.csv',
        line: 5,
        title: 'Not A Date',
        year: null,
        reason: 'Date is "yesterday", not a date',
      },
    ]);
    expect(skippedOf(result)).toEqual({ 'titles Netflix no longer names': 1 });
  });

  it('recognises the file by its content: renamed, re-saved with semicolons, or among other files', async () => {
    const renamed = await parse(
      join(exportDir({ 'netflix.csv': history(['Ninefold', '1/2/23']) }), 'netflix.csv'),
    );
    expect(plays(renamed.rows)).toEqual([['Ninefold', '2023-01-02']]);
    const resaved = await parse(exportDir({ 'upload.csv': 'Title;Date\r\nNinefold;02.01.2023\r\n' }));
    expect(plays(resaved.rows)).toEqual([['Ninefold', '2023-01-02']]);
    const among = await parse(
      exportDir({
        'mine.csv': history(['Ninefold', '1/2/23']),
        'other.csv': csv('a,b', '1,2'),
        'notes.txt': 'x',
      }),
    );
    expect(plays(among.rows)).toEqual([['Ninefold', '2023-01-02']]);
  });

  it('refuses a viewing history with the wrong header, and a directory without one', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { 'NetflixViewingHistory.csv': csv('Titel,Datum', 'Ninefold,1/2/23') },
        /NetflixViewingHistory\.csv is not a Netflix viewing history: its header is Titel,Datum/,
      ],
      [{ 'upload.csv': csv('Name,When', 'Ninefold,1/2/23') }, /upload\.csv is not a Netflix viewing history/],
      [{ 'a.csv': csv('a,b', '1,2'), 'b.csv': csv('c,d', '1,2') }, /found no Netflix viewing history/],
    ];
    for (const [contents, message] of cases) {
      const error = await parse(exportDir(contents)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportFileError);
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('netflix: ViewingActivity.csv of the data download', () => {
  const HEADER =
    'Profile Name,Start Time,Duration,Attributes,Title,Supplemental Video Type,Device Type,Bookmark,Latest Bookmark,Country';
  const activity = (profile: string, start: string, title: string, extra = '') =>
    `${profile},${start},01:30:00,,${title},${extra},Smart TV,01:30:00,01:30:00,DE (Germany)`;

  it('reads one profile: a play on the day its UTC start falls on in the user zone, one per movie and day', async () => {
    const result = await parse(
      exportDir({
        'netflix-report/CONTENT_INTERACTION/ViewingActivity.csv': csv(
          HEADER,
          activity('Alice', '2023-01-24 23:30:00', 'Salt Road Summer'),
          activity('Alice', '2023-01-25 10:00:00', 'Salt Road Summer'),
          activity('Alice', '2023-01-25 00:42:21', 'Temporada 2 (Clipe): Esquadrão', 'HOOK'),
          activity('Alice', '2023-01-25 00:40:00', 'Dumb and Dumber_hook_primary_16x9', 'TRAILER'),
          activity('Alice', '2023-01-26 20:00:00', 'Show: Season 5: Baby Shower (Episode 4)'),
          activity('Alice', '7/28/2022 4:22', 'Ninefold'),
          activity('Alice', '2023-02-01 12:00', 'Ninefold'),
          activity('Alice', '2023-02-05 12:00:00', 'Glass Onion: A Knives Out Mystery'),
        ),
        'netflix-report/CONTENT_INTERACTION/MyList.csv': csv(
          'Profile Name,Title Name,Country,Utc Title Add Date',
          'Alice,Harbour Lights,DE (Germany),2023-01-01',
        ),
        'netflix-report/CONTENT_INTERACTION/SearchHistory.csv': csv(
          'Profile Name,Device,Query',
          'Alice,TV,lights',
        ),
        'netflix-report/Cover sheet.pdf': new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 0, 1]),
      }),
    );
    expect(plays(result.rows)).toEqual([
      ['Salt Road Summer', '2023-01-25'],
      ['Ninefold', '2023-02-01'],
      ['Glass Onion: A Knives Out Mystery', '2023-02-05'],
    ]);
    expect(result.rows[0]).toMatchObject({ movie: { title: 'Salt Road Summer', titleOnly: true }, plays: 1 });
    expect(result.unreadable).toEqual([
      {
        file: 'netflix-report/CONTENT_INTERACTION/ViewingActivity.csv',
        line: 7,
        title: 'Ninefold',
        year: null,
        reason: 'Start Time is "7/28/2022 4:22", not a date and time (YYYY-MM-DD HH:MM:SS, UTC)',
      },
    ]);
    expect(skippedOf(result)).toEqual({
      'more sittings of a movie on a day it was already played': 1,
      'Netflix trailers, previews and other extras': 2,
      'TV episodes': 1,
      "titles on Netflix's My List": 1,
    });
  });

  it('refuses a file of several profiles, naming them', async () => {
    const error = await parse(
      exportDir({
        'ViewingActivity.csv': csv(
          HEADER,
          activity('Alice', '2023-01-24 23:30:00', 'Salt Road Summer'),
          activity('Kids', '2023-01-25 10:00:00', 'Paper Comets'),
          activity('Bob', '2023-01-25 10:00:00', 'Ninefold'),
        ),
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportFileError);
    expect((error as Error).message).toMatch(
      /ViewingActivity\.csv holds the viewing of 3 profiles \("Alice", "Kids", "Bob"\)/,
    );
  });

  it("reads the profile's own history instead when both are there, and counts the activity's rows", async () => {
    const result = await parse(
      exportDir({
        'ViewingActivity.csv': csv(
          HEADER,
          activity('Alice', '2023-01-24 10:00:00', 'Salt Road Summer'),
          activity('Bob', '2023-01-25 10:00:00', 'Ninefold'),
        ),
        'NetflixViewingHistory.csv': history(['Salt Road Summer', '1/24/23']),
      }),
    );
    expect(plays(result.rows)).toEqual([['Salt Road Summer', '2023-01-24']]);
    expect(skippedOf(result)).toEqual({
      'rows of ViewingActivity.csv (the viewing history file was read instead)': 2,
    });
  });
});

const LANTERNS = film(720020, 'Paper Lanterns: A Harbour Mystery', '2022-12-23', 'tt9720020');
/** A second film of the same title: TMDB's search lists it after the 1999 one. */
const HARBOUR_2015 = film(720021, 'Harbour Lights', '2015-03-03', 'tt9720021');
const world = cliImportWorld([...FILMS, LANTERNS, HARBOUR_2015]);
const { cli, counts, files, lists } = world;

describe('netflix: end to end', () => {
  it('imports the movies of a renamed file as plays matched by title, each listed as a guess, and skips episodes', async () => {
    const path = join(
      files('netflix', {
        'netflix.csv': history(
          ['Paper Lanterns: A Harbour Mystery', '1/2/23'],
          ['A Show: Season 1: "Pilot"', '1/2/23'],
          ['A Show: Limited Series: Chapter 2', '1/2/23'],
          ['Harbour Lights', '12/30/22'],
          ['Ninefold', '12/29/22'],
          ['Nobody Made This', '12/28/22'],
        ),
      }),
      'netflix.csv',
    );
    const first = await cli(['import', 'netflix', '--user', 'alice', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(counts(first)).toEqual({ added: 3, existing: 0, unmatched: 1 });
    expect(first.stderr).toContain('netflix.csv line 7: play of "Nobody Made This"');
    expect(first.stderr).toContain('2 TV episodes');
    expect(first.stderr).toContain('matched by a guess, check them: 3 rows');
    expect(first.stderr).toContain(
      'netflix.csv line 5: "Harbour Lights" → "Harbour Lights" (1999), title only',
    );

    const { played } = await lists(world.alice);
    expect(
      played.played
        .map(
          (p: { movie: { title: string; ids: { provider: number } }; watchedDates: { date: string }[] }) => [
            p.movie.ids.provider,
            p.movie.title,
            p.watchedDates.map((d) => d.date),
          ],
        )
        .sort(),
    ).toEqual([
      [NINEFOLD.id, 'Ninefold', ['2022-12-29']],
      [HARBOUR.id, 'Harbour Lights', ['2022-12-30']],
      [LANTERNS.id, 'Paper Lanterns: A Harbour Mystery', ['2023-01-02']],
    ]);
    // Searched by the movies' titles alone (no year); the episodes never reach TMDB.
    const searched = world.fake.requests.filter((r) => r.path === '/search/movie');
    expect(new Set(searched.map((r) => r.query.query))).toEqual(
      new Set(['Paper Lanterns: A Harbour Mystery', 'Harbour Lights', 'Ninefold', 'Nobody Made This']),
    );
    expect(
      searched.every((r) => r.query.year === undefined && r.query.primary_release_year === undefined),
    ).toBe(true);

    expect(counts(await cli(['import', 'netflix', '--user', 'alice', path]))).toEqual({
      added: 0,
      existing: 3,
      unmatched: 1,
    });
  });
});
