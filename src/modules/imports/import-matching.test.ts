import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUser, setupTestApp } from '../../../test/harness.js';
import {
  CARTOGRAPHER,
  cliImportWorld,
  csv,
  FILMS,
  film,
  HARBOUR,
  NINEFOLD,
  SALT_ROAD,
} from '../../../test/import-world.js';
import { MAX_LIST_MOVIES } from '../library/library.rules.js';
import { planImport } from './import.service.js';
import type { ImportRow } from './import.types.js';
import { normalTitle } from './movie-matcher.js';

// Issue 27: how rows find their movies (ids before titles, exact before a guess, never another user's
// claim), and what survives a round trip.

const LOVING_2016 = film(730001, 'Loving', '2016-11-04', 'tt9730001');
const LOVING_2017 = film(730002, 'Loving', '2017-05-01', 'tt9730002');
const TRAIN_1895 = film(730003, 'The Arrival of a Train', '1895-12-28', 'tt9730003');
const TRAIN_1896 = film(730004, 'The Arrival of a Train', '1896-01-25', 'tt9730004');
const CAFE = film(730005, 'Café Noir', '2016-03-03', 'tt9730005');

const HISTORY = 'title,year,tmdbId,imdbId,watchedAt,comment,location';
const RATINGS = 'title,year,tmdbId,imdbId,userRating';

const world = cliImportWorld([...FILMS, LOVING_2016, LOVING_2017, TRAIN_1895, TRAIN_1896, CAFE]);
const { cli, counts, files, lists } = world;

const titlesAndDates = (played: {
  played: { movie: { title: string; releaseDate: string }; watchedDates: { date: string | null }[] }[];
}) => played.played.flatMap((p) => p.watchedDates.map((d) => [p.movie.title, p.movie.releaseDate, d.date]));

const cinelogExport = (history: object[], extra: object = {}) =>
  JSON.stringify({ format: 'cinelog', version: 1, history, watchlist: [], ratings: [], ...extra });

describe('matching asks before it guesses', () => {
  it("one user's Loving (2017) does not catch another's Loving (2016): the exact year is asked at TMDB", async () => {
    const bob = await createUser(world.ctx, { name: 'bob' });
    const bobs = await cli([
      'import',
      'movary',
      '--user',
      'bob',
      files('bob', { 'h.csv': csv(HISTORY, 'Loving,2017,,,2023-01-01,,') }),
    ]);
    expect(counts(bobs)).toEqual({ added: 1, existing: 0, unmatched: 0 });

    world.fake.requests.length = 0;
    const alices = await cli([
      'import',
      'movary',
      '--user',
      'alice',
      files('alice', { 'h.csv': csv(HISTORY, 'Loving,2016,,,2024-02-02,,') }),
    ]);
    expect(counts(alices)).toEqual({ added: 1, existing: 0, unmatched: 0 });
    expect(titlesAndDates((await lists(world.alice)).played)).toEqual([
      ['Loving', '2016-11-04', '2024-02-02'],
    ]);
    expect(titlesAndDates((await lists(bob)).played)).toEqual([['Loving', '2017-05-01', '2023-01-01']]);
    expect(
      world.fake.requests.some((r) => r.path === '/search/movie' && r.query.primary_release_year === '2016'),
    ).toBe(true);
  });

  it('a play and rating of the 1896 film never land on the 1895 one, nor overwrite its rating', async () => {
    const rated = files('rated', { 'ratings.csv': csv(RATINGS, 'The Arrival of a Train,1895,730003,,8') });
    expect(counts(await cli(['import', 'movary', '--user', 'alice', rated])).added).toBe(1);
    const path = files('train', {
      'ratings.csv': csv(RATINGS, 'The Arrival of a Train,1896,,,6'),
      'history.csv': csv(HISTORY, 'The Arrival of a Train,1896,,,2020-05-05,,'),
    });
    expect(counts(await cli(['import', 'movary', '--user', 'alice', path]))).toEqual({
      added: 2,
      existing: 0,
      unmatched: 0,
    });
    const { ratings, played } = await lists(world.alice);
    expect(
      ratings.ratings
        .map((r: { movie: { releaseDate: string }; rating: number }) => [r.movie.releaseDate, r.rating])
        .sort(),
    ).toEqual([
      ['1895-12-28', 8],
      ['1896-01-25', 6],
    ]);
    expect(titlesAndDates(played)).toEqual([['The Arrival of a Train', '1896-01-25', '2020-05-05']]);
  });

  it('a year off by one is taken only when TMDB has nothing exact, and is listed as a guess; the dry run says exactly what the run does', async () => {
    const path = files('near', {
      'history.csv': csv(
        HISTORY,
        'Harbour Lights,2000,,,2021-01-01,,',
        'Ninefold,2020,,,2021-01-02,,',
        'Nothing Like It,1990,,,2021-01-03,,',
      ),
    });
    const dry = await cli(['import', 'movary', '--user', 'alice', path, '--dry-run']);
    const real = await cli(['import', 'movary', '--user', 'alice', path]);
    expect(counts(real)).toEqual({ added: 2, existing: 0, unmatched: 1 });
    expect(counts(dry)).toEqual(counts(real));
    const guessLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('→'));
    expect(guessLines(real.stderr)).toEqual([
      '  history.csv line 2: "Harbour Lights" (2000) → "Harbour Lights" (1999), year ±1',
    ]);
    expect(guessLines(dry.stderr)).toEqual(guessLines(real.stderr));
    expect(real.stderr).toContain('matched by a guess, check them: 1 row');
  });

  it('an explicit TMDB id wins over an IMDb id that names another stored movie', async () => {
    // Ninefold is in the catalogue; the row's TMDB id is Salt Road Summer's, its IMDb id Ninefold's.
    await cli([
      'import',
      'movary',
      '--user',
      'alice',
      files('first', { 'h.csv': csv(HISTORY, 'Ninefold,2020,720003,,2020-01-01,,') }),
    ]);
    const row = `Salt Road Summer,2016,${SALT_ROAD.id},${NINEFOLD.imdb_id},2021-06-06,,`;
    expect(
      counts(
        await cli(['import', 'movary', '--user', 'alice', files('ids', { 'h.csv': csv(HISTORY, row) })]),
      ),
    ).toEqual({
      added: 1,
      existing: 0,
      unmatched: 0,
    });
    expect(titlesAndDates((await lists(world.alice)).played).sort()).toEqual([
      ['Ninefold', '2020-01-02', '2020-01-01'],
      ['Salt Road Summer', '2016-07-01', '2021-06-06'],
    ]);
  });

  it("a Trakt id one user's file claims stays that user's: it never moves another user's rows, nor the shared movie", async () => {
    // Bob's file says Ninefold's Trakt id (9003) is Salt Road Summer's.
    const bob = await createUser(world.ctx, { name: 'bob' });
    const lie = files('bob', {
      'bob.json': cinelogExport([
        {
          movie: { title: 'Salt Road Summer', tmdbId: SALT_ROAD.id, traktId: 9003 },
          watchedAt: '2022-02-02',
          plays: 1,
        },
        // The same id again on another movie: no raw UNIQUE error, the first claim holds.
        {
          movie: { title: 'Harbour Lights', tmdbId: HARBOUR.id, traktId: 9003 },
          watchedAt: '2022-02-03',
          plays: 1,
        },
      ]),
    });
    const bobs = await cli(['import', 'cinelog', '--user', 'bob', lie]);
    expect(bobs.code, bobs.stderr).toBe(0);
    expect(counts(bobs)).toEqual({ added: 2, existing: 0, unmatched: 0 });

    // Alice's row names Ninefold by its Trakt id, title and year only.
    const truth = files('alice', {
      'alice.json': cinelogExport([
        { movie: { title: 'Ninefold', year: 2020, traktId: 9003 }, watchedAt: '2023-03-03', plays: 1 },
      ]),
    });
    expect(counts(await cli(['import', 'cinelog', '--user', 'alice', truth]))).toEqual({
      added: 1,
      existing: 0,
      unmatched: 0,
    });
    expect(titlesAndDates((await lists(world.alice)).played)).toEqual([
      ['Ninefold', '2020-01-02', '2023-03-03'],
    ]);

    // The shared catalogue holds no file's Trakt id; each user's export gives back their own.
    const catalogue = await world.ctx.db.selectFrom('movies').select(['tmdb_id', 'trakt_id']).execute();
    expect(catalogue.every((movie) => movie.trakt_id === null)).toBe(true);
    const traktIds = async (name: string) =>
      Object.fromEntries(
        JSON.parse((await cli(['export', '--user', name, '--format', 'json'])).stdout).history.map(
          (entry: { movie: { title: string; traktId: number | null } }) => [
            entry.movie.title,
            entry.movie.traktId,
          ],
        ),
      );
    expect(await traktIds('bob')).toEqual({ 'Salt Road Summer': 9003, 'Harbour Lights': null });
    expect(await traktIds('alice')).toEqual({ Ninefold: 9003 });
    // Bob's next import by that id finds his own movie again.
    const again = files('bob-again', {
      'again.json': cinelogExport([
        { movie: { traktId: 9003, title: 'Who Knows' }, watchedAt: '2022-02-02', plays: 1 },
      ]),
    });
    expect(counts(await cli(['import', 'cinelog', '--user', 'bob', again]))).toEqual({
      added: 0,
      existing: 1,
      unmatched: 0,
    });
    expect(titlesAndDates((await lists(bob)).played).sort()).toEqual([
      ['Harbour Lights', '1999-05-05', '2022-02-03'],
      ['Salt Road Summer', '2016-07-01', '2022-02-02'],
    ]);
  });
});

describe('round trips and what a file holds', () => {
  it('the JSON export keeps every Trakt id and Letterboxd slug through a fresh instance, and a comment that starts with a newline', async () => {
    const source = files('src', {
      'src.json': cinelogExport(
        [
          {
            movie: {
              title: 'Salt Road Summer',
              tmdbId: SALT_ROAD.id,
              traktId: 5001,
              letterboxdId: 'salt-road-summer',
            },
            watchedAt: '2022-02-02',
            plays: 2,
            comment: '\nafter a blank line',
          },
          { movie: { title: 'Ninefold', tmdbId: NINEFOLD.id, traktId: 5003 }, watchedAt: null, plays: 1 },
        ],
        {
          watchlist: [
            {
              movie: { title: 'The Quiet Cartographer', tmdbId: CARTOGRAPHER.id, traktId: 5002 },
              addedAt: '2024-01-01T10:00:00.000Z',
            },
          ],
        },
      ),
    });
    expect((await cli(['import', 'cinelog', '--user', 'alice', source])).code).toBe(0);
    const first = JSON.parse((await cli(['export', '--user', 'alice', '--format', 'json'])).stdout);
    const out = join(world.dir, 'first.json');
    writeFileSync(out, JSON.stringify(first));

    const other = await setupTestApp();
    try {
      await createUser(other, { name: 'carol' });
      expect((await cli(['import', 'cinelog', '--user', 'carol', out], other)).code).toBe(0);
      const second = JSON.parse((await cli(['export', '--user', 'carol', '--format', 'json'], other)).stdout);
      const ids = (doc: {
        history: { movie: object; comment?: string | null }[];
        watchlist: { movie: object }[];
      }) =>
        [...doc.history, ...doc.watchlist].map((entry) => {
          const { title, traktId, letterboxdId } = entry.movie as Record<string, unknown>;
          return [title, traktId, letterboxdId, 'comment' in entry ? entry.comment : undefined];
        });
      expect(ids(second)).toEqual(ids(first));
      expect(ids(first)).toContainEqual([
        'Salt Road Summer',
        5001,
        'salt-road-summer',
        '\nafter a blank line',
      ]);
      expect(ids(first)).toContainEqual(['The Quiet Cartographer', 5002, null, undefined]);
    } finally {
      await other.close();
    }
  });

  it('a comment that starts with a newline survives the Movary export and import', async () => {
    await cli([
      'import',
      'cinelog',
      '--user',
      'alice',
      files('a', {
        'a.json': cinelogExport([
          {
            movie: { tmdbId: SALT_ROAD.id, title: 'Salt Road Summer' },
            watchedAt: '2022-02-02',
            plays: 1,
            comment: '\n  indented, after a newline',
          },
        ]),
      }),
    ]);
    const out = join(world.dir, 'movary-out');
    expect((await cli(['export', '--user', 'alice', '--format', 'movary', '--out', out])).code).toBe(0);
    await createUser(world.ctx, { name: 'bob' });
    expect((await cli(['import', 'movary', '--user', 'bob', out])).code).toBe(0);
    const bob = (await world.ctx.users.findByName('bob'))!;
    const entries = await world.ctx.db
      .selectFrom('watch_dates')
      .select(['comment'])
      .where('user_id', '=', bob.id)
      .execute();
    expect(entries.map((e) => e.comment)).toEqual(['\n  indented, after a newline']);
  });

  it('a row that cannot be read is listed with its line and why; the rest of the file imports', async () => {
    const path = files('rows', {
      'history.csv': csv(
        HISTORY,
        'Salt Road Summer,2016,720001,,2023-04-01,,',
        "Salt Road Summer,2016,720001,,=cmd|' /C calc'!A0,,",
        'Salt Road Summer,2016',
        'Ninefold,2020,999999999999,,2023-04-02,,',
        'Ninefold,2020,720003,,0100-01-01,,',
        'Ninefold,2020,720003,,9999-12-31,,',
        'Ninefold,2020,720003,,2024-06-16,,',
      ),
    });
    const result = await cli(['import', 'movary', '--user', 'alice', path]);
    expect(result.code, result.stderr).toBe(0);
    expect(counts(result)).toEqual({ added: 1, existing: 0, unmatched: 6 });
    for (const line of [
      'history.csv line 3: cannot be read: watchedAt is "=cmd|\' /C calc\'!A0", not a date (YYYY-MM-DD)',
      'history.csv line 4: cannot be read: it has 2 cells where the header has 7',
      'history.csv line 5: cannot be read: tmdbId is "999999999999", not a numeric id',
      'history.csv line 6: cannot be read: watchedAt is "0100-01-01": the date is before the first movie',
      'history.csv line 7: cannot be read: watchedAt is "9999-12-31": the date is in the future',
      'history.csv line 8: cannot be read: watchedAt is "2024-06-16": the date is in the future',
    ]) {
      expect(result.stderr).toContain(line);
    }
  });

  it('a batch is whole or nothing: a good history beside a ratings.csv with the wrong columns imports nothing', async () => {
    const path = files('siblings', {
      'history.csv': csv(HISTORY, 'Salt Road Summer,2016,720001,,2023-04-01,,'),
      'ratings.csv': csv('title,year,tmdbId,imdbId,stars', 'Salt Road Summer,2016,720001,,8'),
    });
    const result = await cli(['import', 'movary', '--user', 'alice', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /ratings\.csv is not a Movary export: its header is title,year,tmdbId,imdbId,stars/,
    );
    expect(await world.ctx.db.selectFrom('watch_dates').selectAll().execute()).toEqual([]);
    expect(world.fake.requests).toEqual([]);
  });

  it('reads Windows-1252 and semicolon-separated files as a spreadsheet saves them', async () => {
    const path = files('sheet', {
      'history.csv': Buffer.concat([
        Buffer.from('title;year;tmdbId;imdbId;watchedAt;comment;location\r\n'),
        Buffer.from('Caf\xe9 Noir;2016;;;2023-04-01;\x93quoted\x94;\r\n', 'latin1'),
      ]),
    });
    const result = await cli(['import', 'movary', '--user', 'alice', path]);
    expect(result.code, result.stderr).toBe(0);
    expect(counts(result)).toEqual({ added: 1, existing: 0, unmatched: 0 });
    const { played } = await lists(world.alice);
    expect(
      played.played.map((p: { movie: { title: string }; watchedDates: { comment: string }[] }) => [
        p.movie.title,
        p.watchedDates[0]!.comment,
      ]),
    ).toEqual([['Café Noir', '“quoted”']]);
  });
});

describe('planImport', () => {
  it('plans hundreds of thousands of new entries without overflowing the call stack', async () => {
    const rows: ImportRow[] = Array.from({ length: 200_000 }, (_, i) => ({
      file: 'h.csv',
      line: i + 2,
      kind: 'play',
      movie: { tmdbId: 1 + (i % 4000) },
      // 4,000 movies on 50 days each: 200,000 distinct entries.
      watchedAt: new Date(Date.UTC(2000, 0, 1 + Math.floor(i / 4000))).toISOString().slice(0, 10),
      plays: 1,
      comment: null,
    }));
    const plan = await planImport(
      rows,
      (row) => ({ movieId: (row.movie.tmdbId ?? 0) + 1, by: 'id' }),
      new Map(),
      false,
    );
    expect(plan.summary.plays.added).toBe(200_000);
    expect(plan.writes.plays).toHaveLength(200_000);
  });

  it('a list of more movies than a list holds keeps the first 5,000 and lists each one left out, with why', async () => {
    const list = { file: 'lists/everything.csv', name: 'Everything', description: null, ranked: true };
    const rows: ImportRow[] = Array.from({ length: MAX_LIST_MOVIES + 3 }, (_, i) => ({
      file: list.file,
      line: i + 6,
      kind: 'list-movie',
      movie: { tmdbId: 1 + i, title: `Film ${i + 1}`, year: 2000 },
      list,
      note: null,
    }));
    // The same movie again past the cap is no movie more: it is on the list already.
    rows.push({ ...rows[0]!, line: MAX_LIST_MOVIES + 9 } as ImportRow);
    const plan = await planImport(
      rows,
      (row) => ({ movieId: (row.movie.tmdbId ?? 0) + 1, by: 'id' }),
      new Map(),
      false,
    );
    expect(plan.writes.lists).toHaveLength(1);
    expect(plan.writes.lists[0]!.movies).toHaveLength(MAX_LIST_MOVIES);
    expect(plan.summary.unmatched).toBe(3);
    expect(plan.summary.unmatchedRows.map((row) => [row.line, row.title, row.reason])).toEqual(
      [5001, 5002, 5003].map((n) => [
        n + 5,
        `Film ${n}`,
        'Everything holds 5,000 movies already: a list holds at most 5,000',
      ]),
    );
  });
});

describe('normalTitle', () => {
  it('reads curly and typewriter quotes, case and runs of spaces as the same title', () => {
    expect(normalTitle('Schindler’s  List')).toBe(normalTitle("schindler's list"));
    expect(normalTitle('Schindler‘s List')).toBe(normalTitle('Schindler`s List'));
    expect(normalTitle('Schindler´s List')).toBe("schindler's list");
    expect(normalTitle('The “Quiet” One')).toBe(normalTitle('The "Quiet" One'));
    expect(normalTitle('Amélie')).not.toBe(normalTitle('Amelie'));
  });
});
