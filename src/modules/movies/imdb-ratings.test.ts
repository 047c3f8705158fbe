import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeImdb,
  gzipped,
  type RatingRow,
  ratingsTsv,
  startFakeImdb,
} from '../../../test/fake-imdb.js';
import { createMovie, createUser, setRating, setupTestApp, type TestContext } from '../../../test/harness.js';
import { runCli } from '../../cli/program.js';
import {
  ImdbDownloadError,
  type ImdbImportProgress,
  ImdbRatingsFileError,
  ImdbRatingsFormatError,
  importImdbRatings,
  importImdbRatingsFromFile,
  importImdbRatingsFromUrl,
} from './imdb-ratings.service.js';

describe('IMDb ratings import', () => {
  let ctx: TestContext;
  let dir: string;
  beforeEach(async () => {
    ctx = await setupTestApp();
    dir = mkdtempSync(join(tmpdir(), 'cinelog-imdb-'));
  });
  afterEach(async () => {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The dataset written to a file of its own, gzipped unless `plain`. */
  function datasetFile(rows: readonly (RatingRow | string)[], options: { plain?: boolean } = {}) {
    const path = join(dir, options.plain ? 'title.ratings.tsv' : 'title.ratings.tsv.gz');
    const text = ratingsTsv(rows);
    writeFileSync(path, options.plain ? text : gzipped(text));
    return path;
  }

  const importFile = (path: string) => importImdbRatingsFromFile(path, { db: ctx.db, clock: ctx.clock });

  async function ratingsOf(...movieIds: number[]) {
    const rows = await ctx.db
      .selectFrom('movies')
      .select(['id', 'imdb_rating_average', 'imdb_rating_count', 'imdb_rating_updated_at'])
      .where('id', 'in', movieIds)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      average: row.imdb_rating_average,
      count: row.imdb_rating_count,
      at: row.imdb_rating_updated_at,
    }));
  }

  it('updates only the movies cinelog knows, skipping malformed lines, from a gzipped and a plain file', async () => {
    const known = await createMovie(ctx, { imdb_id: 'tt0111161' });
    const other = await createMovie(ctx, { imdb_id: 'tt0068646' });
    const absent = await createMovie(ctx, { imdb_id: 'tt9999999' });
    const noImdbId = await createMovie(ctx, { imdb_id: null });
    const rows: (RatingRow | string)[] = [
      ['tt0000001', 5.7, 2105],
      ['tt0111161', 9.3, 3_012_345],
      'tt0068646\tnine\t10', // malformed: the movie keeps its (empty) rating
      ['tt0068646', 9.2, 2_100_000],
      ['tt7654321', 6.1, 42],
    ];
    for (const plain of [false, true]) {
      const summary = await importFile(datasetFile(rows, { plain }));
      expect(summary).toEqual({ lines: 5, matched: 2, updated: plain ? 0 : 2, skipped: 1 });
    }
    expect(await ratingsOf(known.id, other.id, absent.id, noImdbId.id)).toEqual([
      { average: 9.3, count: 3_012_345, at: ctx.clock.now().toISOString() },
      { average: 9.2, count: 2_100_000, at: ctx.clock.now().toISOString() },
      { average: null, count: null, at: null },
      { average: null, count: null, at: null },
    ]);
    // The provider's side of the movie is untouched: updated_at says when TMDB data was refreshed.
    const row = await ctx.db
      .selectFrom('movies')
      .select(['updated_at', 'tmdb_vote_average'])
      .where('id', '=', known.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ updated_at: null, tmdb_vote_average: 7.5 });
  });

  it('a second import writes the changed ratings only; movies gone from the file keep theirs', async () => {
    const a = await createMovie(ctx, { imdb_id: 'tt0000101' });
    const b = await createMovie(ctx, { imdb_id: 'tt0000102' });
    const c = await createMovie(ctx, { imdb_id: 'tt0000103' });
    const first = ctx.clock.now().toISOString();
    expect(
      await importFile(
        datasetFile([
          ['tt0000101', 7.1, 100],
          ['tt0000102', 6.4, 50],
          ['tt0000103', 8, 10],
        ]),
      ),
    ).toEqual({ lines: 3, matched: 3, updated: 3, skipped: 0 });

    ctx.clock.advance(86_400_000);
    const second = ctx.clock.now().toISOString();
    expect(
      await importFile(
        datasetFile([
          ['tt0000101', 7.2, 130], // changed
          ['tt0000102', 6.4, 50], // the same
        ]),
      ),
    ).toEqual({ lines: 2, matched: 2, updated: 1, skipped: 0 });
    expect(await ratingsOf(a.id, b.id, c.id)).toEqual([
      { average: 7.2, count: 130, at: second },
      { average: 6.4, count: 50, at: first },
      { average: 8, count: 10, at: first },
    ]);
  });

  it('updates every movie sharing an IMDb id, and a title listed twice once', async () => {
    const a = await createMovie(ctx, { imdb_id: 'tt0000201' });
    const b = await createMovie(ctx, { imdb_id: 'tt0000201' });
    const summary = await importFile(
      datasetFile([
        ['tt0000201', 5, 10],
        ['tt0000201', 5, 10],
      ]),
    );
    expect(summary).toEqual({ lines: 2, matched: 2, updated: 2, skipped: 0 });
    expect((await ratingsOf(a.id, b.id)).map((r) => r.average)).toEqual([5, 5]);
  });

  it('writes in batches, each stamped later than the last, even when the clock stands still', async () => {
    const movies = [];
    for (let i = 0; i < 1203; i++) movies.push(await createMovie(ctx, { imdb_id: `tt${3_000_000 + i}` }));
    const before = ctx.clock.now().getTime();
    const summary = await importFile(datasetFile(movies.map((_, i) => [`tt${3_000_000 + i}`, 6, i])));
    expect(summary).toEqual({ lines: 1203, matched: 1203, updated: 1203, skipped: 0 });
    const stamps = await ctx.db
      .selectFrom('movies')
      .select((eb) => ['imdb_rating_updated_at', eb.fn.countAll<number>().as('movies')])
      .groupBy('imdb_rating_updated_at')
      .orderBy('imdb_rating_updated_at')
      .execute();
    // 500 + 500 + 203, and a second import after it moves on again.
    expect(stamps.map((s) => [Date.parse(s.imdb_rating_updated_at!) - before, Number(s.movies)])).toEqual([
      [0, 500],
      [1, 500],
      [2, 203],
    ]);
    await importFile(datasetFile([[`tt${3_000_000}`, 7, 1]]));
    expect((await ratingsOf(movies[0]!.id))[0]!.at).toBe(new Date(before + 3).toISOString());
  });

  it('refuses a file that is not the dataset, and one it cannot read, changing nothing', async () => {
    const movie = await createMovie(ctx, { imdb_id: 'tt0000301' });
    const wrongHeader = join(dir, 'ratings.tsv');
    writeFileSync(wrongHeader, 'imdb_id\trating\ttt0000301\t7.0\t5\n');
    await expect(importFile(wrongHeader)).rejects.toThrow(
      new ImdbRatingsFormatError(
        `${wrongHeader}: not an IMDb title.ratings.tsv(.gz) file: its first line is "imdb_id<TAB>rating<TAB>tt0000301<TAB>7.0<TAB>5", expected "tconst<TAB>averageRating<TAB>numVotes"`,
      ),
    );
    await expect(importFile(join(dir, 'missing.tsv.gz'))).rejects.toThrow(
      new ImdbRatingsFileError(`cannot read ${join(dir, 'missing.tsv.gz')}: no such file`),
    );
    await expect(importFile(dir)).rejects.toThrow(
      new ImdbRatingsFileError(`cannot read ${dir}: it is not a file`),
    );
    expect(await ratingsOf(movie.id)).toEqual([{ average: null, count: null, at: null }]);
  });

  it('changes nothing when the file breaks off after the ratings of known movies', async () => {
    const movies = [];
    for (let i = 0; i < 600; i++) movies.push(await createMovie(ctx, { imdb_id: `tt${5_000_000 + i}` }));
    const rows = movies.map((_, i): RatingRow => [`tt${5_000_000 + i}`, 6, i]);
    const filler = Array.from({ length: 20_000 }, (_, i): RatingRow => [`tt${6_000_000 + i}`, 5, i]);
    const gz = gzipped(ratingsTsv([...rows, ...filler]));
    const path = join(dir, 'cut.tsv.gz');
    writeFileSync(path, gz.subarray(0, Math.floor(gz.length * 0.8)));
    await expect(importFile(path)).rejects.toThrow(
      new ImdbRatingsFormatError(`${path}: not a readable gzip file: unexpected end of file`),
    );
    const rated = await ctx.db
      .selectFrom('movies')
      .select('id')
      .where('imdb_rating_average', 'is not', null)
      .execute();
    expect(rated).toEqual([]);
  });

  it('reports progress in bytes of the file, ending at its size', async () => {
    await createMovie(ctx, { imdb_id: 'tt0000401' });
    const rows = Array.from(
      { length: 20_000 },
      (_, i): RatingRow => [`tt${4_000_000 + i}`, (i % 100) / 10, i],
    );
    const path = datasetFile(rows, { plain: true });
    const reports: ImdbImportProgress[] = [];
    await importImdbRatingsFromFile(path, {
      db: ctx.db,
      onProgress: async (progress) => {
        await new Promise((resolve) => setImmediate(resolve));
        reports.push(progress);
      },
    });
    const size = Buffer.byteLength(ratingsTsv(rows));
    expect(reports.length).toBeGreaterThan(2);
    expect(reports.length).toBeLessThanOrEqual(101);
    expect(reports.every((r) => r.total === size)).toBe(true);
    expect(reports.map((r) => r.done)).toEqual([...reports.map((r) => r.done)].sort((x, y) => x - y));
    expect(reports.at(-1)).toEqual({ done: size, total: size });
  });

  it('stops when its signal is aborted', async () => {
    await createMovie(ctx, { imdb_id: 'tt0000501' });
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(
      importImdbRatings(Readable.from([Buffer.from(ratingsTsv([['tt0000501', 5, 5]]))]), {
        db: ctx.db,
        signal: controller.signal,
      }),
    ).rejects.toThrow('shutting down');
  });

  describe('a list page', () => {
    /** alice's ratings list as the API serves it (through the page cache). */
    async function listedCatalogRating(alice: Awaited<ReturnType<typeof createUser>>) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/users/${alice.user.name}/ratings/movies`,
        headers: alice.auth,
      });
      expect(res.statusCode).toBe(200);
      return res.json().ratings.map((r: { movie: { externalRatings: unknown } }) => r.movie.externalRatings);
    }

    it('shows the new rating after an import in this process (the daily job)', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx, { imdb_id: 'tt0000601' });
      await setRating(ctx, alice.user.id, movie.id, 8);
      const before = await listedCatalogRating(alice);
      expect(before).toEqual([
        { provider: { average: 7.5, count: 1234 }, catalog: { average: null, count: null } },
      ]);
      expect(await listedCatalogRating(alice)).toEqual(before);

      await importFile(datasetFile([['tt0000601', 7.7, 4321]]));
      expect(await listedCatalogRating(alice)).toEqual([
        { provider: { average: 7.5, count: 1234 }, catalog: { average: 7.7, count: 4321 } },
      ]);
      // The same clock reading: the page still changes with the next import's rating.
      await importFile(datasetFile([['tt0000601', 7.8, 4400]]));
      expect((await listedCatalogRating(alice))[0].catalog).toEqual({ average: 7.8, count: 4400 });
    });

    it('shows the new rating after `cinelog imdb import`, another process', async () => {
      const alice = await createUser(ctx);
      const movie = await createMovie(ctx, { imdb_id: 'tt0000701' });
      await setRating(ctx, alice.user.id, movie.id, 6);
      expect((await listedCatalogRating(alice))[0].catalog).toEqual({ average: null, count: null });

      const ignored = { write: () => true };
      const code = await runCli(['imdb', 'import', datasetFile([['tt0000701', 6.6, 66]])], {
        env: { DATABASE_URL: ctx.config.databaseUrl },
        stdout: ignored,
        stderr: ignored,
      });
      expect(code).toBe(0);
      expect((await listedCatalogRating(alice))[0].catalog).toEqual({ average: 6.6, count: 66 });
    });
  });

  describe('from a URL', () => {
    let imdb: FakeImdb;
    beforeAll(async () => {
      imdb = await startFakeImdb();
    });
    afterAll(async () => {
      await imdb.close();
    });

    const importUrl = (url: string, timeoutMs?: number) =>
      importImdbRatingsFromUrl(url, {
        db: ctx.db,
        clock: ctx.clock,
        ...(timeoutMs !== undefined && { timeoutMs }),
      });

    it('streams a gzipped answer into the movies, reporting progress against its Content-Length', async () => {
      const movie = await createMovie(ctx, { imdb_id: 'tt0000801' });
      const rows = Array.from({ length: 5000 }, (_, i): RatingRow => [`tt${8_000_000 + i}`, 5, i]);
      const body = gzipped(ratingsTsv([...rows, ['tt0000801', 8.1, 801]]));
      imdb.serve({ body, pieces: 8 });
      const reports: ImdbImportProgress[] = [];
      const summary = await importImdbRatingsFromUrl(imdb.url, {
        db: ctx.db,
        onProgress: (progress) => {
          reports.push(progress);
        },
      });
      expect(summary).toEqual({ lines: 5001, matched: 1, updated: 1, skipped: 0 });
      expect(await ratingsOf(movie.id)).toMatchObject([{ average: 8.1, count: 801 }]);
      expect(reports.at(-1)).toEqual({ done: body.length, total: body.length });
    });

    it('fails with the status of an answer other than 200', async () => {
      imdb.serve({ status: 404 });
      await expect(importUrl(imdb.url)).rejects.toThrow(
        new ImdbDownloadError(
          `the IMDb ratings download from ${imdb.url} failed: the server answered 404 Not Found`,
        ),
      );
    });

    it('fails when the answer is not the dataset', async () => {
      imdb.serve({ body: Buffer.from('<html>maintenance</html>\n') });
      await expect(importUrl(imdb.url)).rejects.toThrow(
        `${imdb.url}: not an IMDb title.ratings.tsv(.gz) file: its first line is "<html>maintenance</html>"`,
      );
    });

    it('times out when the headers or the rest of the body never come', async () => {
      const movie = await createMovie(ctx, { imdb_id: 'tt0000901' });
      const timedOut = new ImdbDownloadError(
        `the IMDb ratings download from ${imdb.url} timed out: nothing arrived for 300 ms`,
      );
      imdb.serve({ stall: 'headers' });
      await expect(importUrl(imdb.url, 300)).rejects.toThrow(timedOut);

      const rows = Array.from({ length: 20_000 }, (_, i): RatingRow => [`tt${9_000_000 + i}`, 5, i]);
      imdb.serve({ stall: 'body', body: gzipped(ratingsTsv([['tt0000901', 9, 9], ...rows])) });
      const started = Date.now();
      await expect(importUrl(imdb.url, 300)).rejects.toThrow(timedOut);
      expect(Date.now() - started).toBeLessThan(5000);
      // Its rating came before the silence, but an import that fails changes nothing.
      expect(await ratingsOf(movie.id)).toMatchObject([{ average: null }]);
    });

    it('stops at once when its signal is aborted during the download', async () => {
      const rows = Array.from({ length: 20_000 }, (_, i): RatingRow => [`tt${9_000_000 + i}`, 5, i]);
      imdb.serve({ stall: 'body', body: gzipped(ratingsTsv(rows)) });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      await expect(
        importImdbRatingsFromUrl(imdb.url, { db: ctx.db, signal: controller.signal }),
      ).rejects.toThrow(new ImdbDownloadError(`the IMDb ratings download from ${imdb.url} was aborted`));
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('fails with the reason when nothing listens', async () => {
      const closed = await startFakeImdb();
      const url = closed.url;
      await closed.close();
      await expect(importUrl(url)).rejects.toThrow(
        new ImdbDownloadError(`the IMDb ratings download from ${url} failed: ECONNREFUSED`),
      );
    });
  });
});
