import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkProperty, runs, timeoutFor } from '../../../test/adversarial/fc.js';
import { TEST_ENGINE } from '../../../test/databases.js';
import {
  FAKE_TMDB_MOVIES,
  type FakeTmdb,
  type FakeTmdbMovie,
  FAKE_TMDB_PEOPLE as P,
} from '../../../test/fake-tmdb.js';
import { createMovie, createUser, type TestContext, type TestUser } from '../../../test/harness.js';
import { tmdbWorld } from '../../../test/tmdb-world.js';
import { openDatabase } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import { createImportsService } from '../imports/import.service.js';
import { createLibrary } from '../library/library.service.js';
import {
  catchUpStatistics,
  STEP_MOVIES,
  statisticsFollowCatalog,
  statisticsFromScratch,
} from '../library/statistics-aggregates.js';
import { createMoviesService } from '../movies/movies.service.js';
import { StatisticsResponse } from './statistics.schemas.js';
import { createStatisticsService } from './statistics.service.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const validResponse = addFormats(new Ajv({ strict: false })).compile(StatisticsResponse);

const IMAGES = 'http://images.test/t/p';
const url = (name: string, query = '') => `/api/users/${name}/statistics${query}`;

// ---- The expected figures, computed here from the seeded rows alone ----------------------------------

/** A movie as the test knows it: TMDB's data of the fake, or a bare local movie (no details). */
interface Known {
  id: number;
  tmdb: FakeTmdbMovie | null;
  title: string;
  runtime: number;
  releaseDate: string | null;
  language: string;
}

/**
 * One watch entry as seeded: a movie, a date (null: unknown) and its plays; the diary's own rating,
 * rewatch flag as set (absent or null: derived) and tags (issue 30).
 */
interface Entry {
  movie: Known;
  date: string | null;
  plays: number;
  rating?: number | null;
  rewatch?: boolean | null;
  tags?: string[];
}

const sortBy =
  <T>(...keys: ((item: T) => number | string)[]) =>
  (a: T, b: T) => {
    for (const key of keys) {
      const [x, y] = [key(a), key(b)];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };

function expectedStatistics(args: {
  entries: Entry[];
  ratings: Map<number, number>;
  year?: number;
  /** This month in the user's time zone, `YYYY-MM`. */
  month: string;
  people: Map<number, number>;
  languageNames: Map<string, string>;
}) {
  const { ratings, year, people, languageNames } = args;
  const entries = args.entries.filter((e) => year === undefined || e.date?.startsWith(`${year}-`));
  const dated = entries.filter((e) => e.date !== null) as (Entry & { date: string })[];
  const sum = (list: Entry[]) => list.reduce((n, e) => n + e.plays, 0);
  const playsOf = new Map<number, { movie: Known; plays: number }>();
  for (const e of entries) {
    const got = playsOf.get(e.movie.id) ?? { movie: e.movie, plays: 0 };
    got.plays += e.plays;
    playsOf.set(e.movie.id, got);
  }
  const movies = [...playsOf.values()];
  const minutes = (list: Entry[]) => list.reduce((n, e) => n + e.plays * e.movie.runtime, 0);

  // Each movie once: the own rating of its latest entry in scope that has one (by date, the undated
  // one oldest), else the movie's rating.
  const ratingOf = (movie: Known) => {
    const own = entries
      .filter((e) => e.movie.id === movie.id && e.rating != null)
      .sort(sortBy((e) => e.date ?? ''))
      .at(-1);
    return own?.rating ?? ratings.get(movie.id);
  };
  const rated = movies.map((m) => ratingOf(m.movie)).filter((r) => r !== undefined);
  // A rewatch as set, else when the movie has a dated entry on an earlier date (of any year).
  const isRewatch = (entry: Entry) =>
    entry.rewatch ??
    (entry.date !== null &&
      args.entries.some((e) => e.movie.id === entry.movie.id && e.date !== null && e.date < entry.date!));
  const tagCount = new Map<string, number>();
  for (const entry of entries)
    for (const tag of entry.tags ?? []) tagCount.set(tag, (tagCount.get(tag) ?? 0) + 1);
  const dates = [...new Set(dated.map((e) => e.date))].sort();
  const years = dated.map((e) => Number(e.date.slice(0, 4)));
  const [firstYear, lastYear] = year !== undefined ? [year, year] : [Math.min(...years), Math.max(...years)];
  const playsPerYear = [];
  if (year !== undefined || dated.length > 0) {
    for (let y = firstYear; y <= lastYear; y++) {
      const inYear = dated.filter((e) => e.date.startsWith(`${y}-`));
      playsPerYear.push({
        year: y,
        plays: sum(inYear),
        movies: new Set(inYear.map((e) => e.movie.id)).size,
        minutesWatched: minutes(inYear),
      });
    }
  }
  const months: string[] = [];
  if (year !== undefined) {
    for (let m = 1; m <= 12; m++) months.push(`${year}-${String(m).padStart(2, '0')}`);
  } else {
    const d = new Date(`${args.month}-01T00:00:00Z`);
    for (let back = 11; back >= 0; back--) {
      const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1));
      months.push(m.toISOString().slice(0, 7));
    }
  }
  const weekday = (date: string) => {
    const day = new Date(`${date}T12:00:00Z`).getUTCDay();
    return day === 0 ? 7 : day;
  };
  // The longest run of consecutive days; the latest of equal runs.
  let streak = { days: 0, from: null as string | null, to: null as string | null };
  for (let i = 0; i < dates.length; i++) {
    let j = i;
    while (
      j + 1 < dates.length &&
      new Date(`${dates[j + 1]}T00:00:00Z`).getTime() - new Date(`${dates[j]}T00:00:00Z`).getTime() ===
        86_400_000
    )
      j++;
    if (j - i + 1 >= streak.days) streak = { days: j - i + 1, from: dates[i]!, to: dates[j]! };
  }

  /** Ranks groups of movies: `keysOf` gives each movie's keys (each counted once per movie). */
  const rank = <K extends string | number>(keysOf: (movie: Known) => K[]) => {
    const groups = new Map<K, { key: K; movies: number; plays: number }>();
    for (const { movie, plays } of movies) {
      for (const key of new Set(keysOf(movie))) {
        const group = groups.get(key) ?? { key, movies: 0, plays: 0 };
        group.movies += 1;
        group.plays += plays;
        groups.set(key, group);
      }
    }
    return [...groups.values()];
  };
  const byMovies = <T extends { movies: number; plays: number }>(tie: (t: T) => number | string) =>
    sortBy<T>(
      (g) => -g.movies,
      (g) => -g.plays,
      tie,
    );
  const tmdbOf = (movie: Known) => movie.tmdb;

  const genres = rank((m) => tmdbOf(m)?.genres.map((g) => g.id) ?? []);
  const genreName = new Map(FAKE_TMDB_MOVIES.flatMap((m) => m.genres.map((g) => [g.id, g.name] as const)));
  const countries = rank((m) => tmdbOf(m)?.production_countries.map((c) => c.iso_3166_1) ?? []);
  const countryName = new Map(
    FAKE_TMDB_MOVIES.flatMap((m) => m.production_countries.map((c) => [c.iso_3166_1, c.name] as const)),
  );
  const languages = rank((m) => [m.language]);
  const decades = rank((m) =>
    m.releaseDate ? [Math.floor(Number(m.releaseDate.slice(0, 4)) / 10) * 10] : [],
  );
  const personOf = new Map(
    args.entries
      .flatMap((e) => [...(e.movie.tmdb?.cast ?? []), ...(e.movie.tmdb?.crew ?? [])])
      .map((p) => [p.id, p] as const),
  );
  const topPeople = (keysOf: (movie: Known) => number[]) => {
    const ranked = rank(keysOf);
    const entry = (g: { key: number; movies: number; plays: number }) => {
      const p = personOf.get(g.key)!;
      return {
        person: {
          id: people.get(g.key)!,
          providerId: g.key,
          name: p.name,
          profilePath: p.profile_path ? `${IMAGES}/w185${p.profile_path}` : null,
        },
        movies: g.movies,
        plays: g.plays,
      };
    };
    return {
      byMovies: [...ranked]
        .sort(byMovies((g) => g.key))
        .slice(0, 10)
        .map(entry),
      byPlays: [...ranked]
        .sort(
          sortBy(
            (g) => -g.plays,
            (g) => -g.movies,
            (g) => g.key,
          ),
        )
        .slice(0, 10)
        .map(entry),
    };
  };

  return {
    year: year ?? null,
    totals: {
      plays: sum(entries),
      movies: movies.length,
      minutesWatched: minutes(entries),
      averageRating:
        rated.length === 0 ? null : Math.round((rated.reduce((a, b) => a + b, 0) / rated.length) * 100) / 100,
      firstWatchedAt: dates[0] ?? null,
      lastWatchedAt: dates.at(-1) ?? null,
    },
    playsPerYear,
    playsPerMonth: months.map((month) => ({
      month,
      plays: sum(dated.filter((e) => e.date.startsWith(month))),
    })),
    playsPerWeekday: [1, 2, 3, 4, 5, 6, 7].map((day) => ({
      weekday: day,
      plays: sum(dated.filter((e) => weekday(e.date) === day)),
    })),
    ratings: Array.from({ length: 10 }, (_, i) => ({
      rating: i + 1,
      movies: rated.filter((r) => r === i + 1).length,
    })),
    topGenres: genres
      .sort(byMovies((g) => g.key))
      .slice(0, 10)
      .map((g) => ({ id: g.key, name: genreName.get(g.key)!, movies: g.movies, plays: g.plays })),
    topLanguages: languages
      .sort(byMovies((g) => g.key))
      .slice(0, 10)
      .map((g) => ({
        code: g.key,
        name: languageNames.get(g.key) ?? null,
        movies: g.movies,
        plays: g.plays,
      })),
    topCountries: countries
      .sort(byMovies((g) => g.key))
      .slice(0, 10)
      .map((g) => ({ code: g.key, name: countryName.get(g.key)!, movies: g.movies, plays: g.plays })),
    topDecades: decades
      .sort(byMovies((g) => g.key))
      .map((g) => ({ decade: g.key, movies: g.movies, plays: g.plays })),
    topDirectors: topPeople(
      (m) =>
        tmdbOf(m)
          ?.crew.filter((c) => c.job === 'Director')
          .map((c) => c.id) ?? [],
    ),
    // Actors: the first 15 places of the bill, in TMDB's order.
    topActors: topPeople((m) =>
      [...(tmdbOf(m)?.cast ?? [])]
        .sort((a, b) => a.order - b.order)
        .slice(0, 15)
        .map((c) => c.id),
    ),
    mostRewatched: movies
      .filter((m) => m.plays > 1)
      .sort(
        sortBy(
          (m) => -m.plays,
          (m) => m.movie.id,
        ),
      )
      .slice(0, 10)
      .map((m) => ({
        movie: expect.objectContaining({
          title: m.movie.title,
          ids: expect.objectContaining({
            service: m.movie.id,
            provider: m.movie.tmdb?.id ?? expect.any(Number),
          }),
          posterPath: m.movie.tmdb
            ? m.movie.tmdb.poster_path && `${IMAGES}/w342${m.movie.tmdb.poster_path}`
            : expect.stringMatching(/^http:\/\/images\.test\/t\/p\/w342\//),
          userRating: ratings.get(m.movie.id) ?? null,
        }),
        plays: m.plays,
      })),
    longestStreak: streak,
    // Plays added to a day there is are one entry (the test's list may hold it twice).
    rewatches: new Set(entries.filter(isRewatch).map((e) => `${e.movie.id}|${e.date}`)).size,
    topTags: [...tagCount]
      .sort(
        sortBy(
          ([, n]) => -n,
          ([name]) => name.toLowerCase(),
        ),
      )
      .slice(0, 10)
      .map(([name, n]) => ({ name, entries: n })),
  };
}

// ---- The tests -------------------------------------------------------------------------------------

describe('statistics', () => {
  const world = tmdbWorld();
  let fake: FakeTmdb;
  let ctx: TestContext;
  let alice: TestUser;
  let bob: TestUser;

  beforeEach(async () => {
    ({ fake, ctx } = world);
    alice = await createUser(ctx, { name: 'alice' });
    bob = await createUser(ctx, { name: 'bob' });
  });

  const get = (name: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: url(name, query), headers });
  const statisticsOf = async (owner: TestUser, query = '', as: TestUser = owner) => {
    const res = await get(owner.user.name, as.auth, query);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(validResponse(body), JSON.stringify(validResponse.errors)).toBe(true);
    return body;
  };
  const send = async (method: 'POST' | 'PUT', path: string, owner: TestUser, payload: unknown) => {
    const res = await ctx.app.inject({
      method,
      url: `/api/users/${owner.user.name}/${path}`,
      headers: owner.auth,
      payload: payload as object,
    });
    expect(res.statusCode, res.body).toBe(204);
  };

  /** Adds the fake's movie through the API; the test's record of it. */
  const add = async (tmdb: FakeTmdbMovie): Promise<Known> => {
    fake.putMovie(tmdb);
    const tmdbId = tmdb.id;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/movies/add',
      headers: alice.auth,
      payload: { providerId: tmdbId },
    });
    expect(res.statusCode, res.body).toBe(200);
    return {
      id: res.json().serviceId,
      tmdb,
      title: tmdb.title,
      runtime: tmdb.runtime,
      releaseDate: tmdb.release_date || null,
      language: tmdb.original_language,
    };
  };

  /** Dated entries through POST history, undated ones through POST played, ratings through PUT. */
  const seed = async (owner: TestUser, entries: Entry[], ratings: Map<number, number>) => {
    const dated = entries.filter((e) => e.date !== null);
    await send(
      'POST',
      'history/movies',
      owner,
      dated.map((e) => ({ serviceId: e.movie.id, watchedAt: e.date, plays: e.plays })),
    );
    await send(
      'POST',
      'played/movies',
      owner,
      entries
        .filter((e) => e.date === null)
        .map((e) => ({ serviceId: e.movie.id, watchDates: [{ watchedAt: null, plays: e.plays }] })),
    );
    await send(
      'PUT',
      'ratings/movies',
      owner,
      [...ratings].map(([serviceId, rating]) => ({ serviceId, rating })),
    );
  };

  /** The people's cinelog ids by TMDB id, and the languages' English names: what the database assigned. */
  const lookups = async () => {
    const people = await ctx.db.selectFrom('people').select(['id', 'tmdb_id']).execute();
    const names = new Map<string, string>();
    for (const m of FAKE_TMDB_MOVIES)
      for (const l of m.spoken_languages) names.set(l.iso_639_1, l.english_name);
    return { people: new Map(people.map((p) => [p.tmdb_id, p.id])), languageNames: names };
  };

  /** The six movies of the fake, a local movie without details, and a history over five years. */
  const seedHistory = async () => {
    const [ledger, kiel, comets, comets2, harbor, garden] = await Promise.all(
      FAKE_TMDB_MOVIES.map((m) =>
        // Ada voices two parts of the sequel (she counts once); 16 more actors, the last of them Greta
        // (billed 19th: she does not count there).
        m.id === 710004
          ? add({
              ...m,
              cast: [
                ...m.cast,
                { ...P.ada, character: 'Wren’s echo (voice)', order: 1 },
                ...Array.from({ length: 16 }, (_, i) => ({
                  id: 7_600_000 + i,
                  name: `Extra ${i + 1}`,
                  profile_path: null,
                  known_for_department: 'Acting',
                  character: 'Crowd',
                  order: 10 + i,
                })),
                { ...P.greta, character: 'Passer-by', order: 40 },
              ],
            })
          : add(m),
      ),
    ).then((list) => list as [Known, Known, Known, Known, Known, Known]);
    const local = await createMovie(ctx, {
      release_date: '1987-05-01',
      runtime: 95,
      original_language: 'sv',
    });
    const bare: Known = {
      id: local.id,
      tmdb: null,
      title: local.title,
      runtime: 95,
      releaseDate: '1987-05-01',
      language: 'sv',
    };
    const unplayed = await createMovie(ctx);
    const e = (movie: Known, date: string | null, plays = 1): Entry => ({ movie, date, plays });
    const entries: Entry[] = [
      e(ledger, '2023-07-01'),
      e(ledger, '2023-07-02', 2),
      e(ledger, '2023-07-03'),
      e(ledger, '2024-01-10'),
      e(ledger, null, 2),
      e(kiel, '2023-07-02'),
      e(kiel, '2022-12-31'),
      e(kiel, '2024-06-15'),
      e(comets, '2024-02-29', 3),
      e(comets, '2024-03-01'),
      e(comets, '2024-03-02'),
      e(comets, '2024-03-03'),
      e(comets2, '2020-05-05'),
      e(harbor, null),
      e(harbor, '2024-03-03'),
      e(garden, '2023-06-30'),
      e(bare, '2019-12-31', 4),
      e(bare, '2024-05-20'),
    ];
    const ratings = new Map([
      [ledger.id, 8],
      [comets.id, 10],
      [comets2.id, 7],
      [garden.id, 3],
      [bare.id, 8],
      // Rated, never played: in no figure.
      [unplayed.id, 1],
    ]);
    await seed(alice, entries, ratings);
    return { entries, ratings, movies: { ledger, kiel, comets, comets2, harbor, garden, bare } };
  };

  describe('figures', () => {
    it('equal the figures computed from the seeded history: all time and per year', async () => {
      const { entries, ratings } = await seedHistory();
      const known = await lookups();
      const all = await statisticsOf(alice);
      expect(all).toEqual(expectedStatistics({ entries, ratings, month: '2024-06', ...known }));
      // A few figures by hand, so that a mistake shared by both computations shows.
      expect(all.totals).toMatchObject({ plays: 25, movies: 7, firstWatchedAt: '2019-12-31' });
      expect(all.totals.lastWatchedAt).toBe('2024-06-15');
      expect(all.longestStreak).toEqual({ days: 4, from: '2024-02-29', to: '2024-03-03' });
      expect(all.playsPerYear.map((y: { year: number }) => y.year)).toEqual([
        2019, 2020, 2021, 2022, 2023, 2024,
      ]);
      expect(all.playsPerYear[2]).toEqual({ year: 2021, plays: 0, movies: 0, minutesWatched: 0 });
      const actor = (id: number) =>
        all.topActors.byMovies.find((a: { person: { providerId: number } }) => a.person.providerId === id);
      expect(actor(P.ada.id)).toMatchObject({ movies: 2, plays: 7 });
      expect(actor(P.greta.id)).toMatchObject({ movies: 1, plays: 3 });

      for (const year of [2019, 2020, 2021, 2022, 2023, 2024, 1999]) {
        const body = await statisticsOf(alice, `?year=${year}`);
        expect(body, String(year)).toEqual(
          expectedStatistics({ entries, ratings, year, month: '2024-06', ...known }),
        );
      }
      const y2024 = await statisticsOf(alice, '?year=2024');
      // Ledger (8), Comets (10) and the local movie (8) were played in 2024 and are rated; Kiel and
      // Harbor are not rated.
      expect(y2024.totals).toMatchObject({ plays: 10, movies: 5, averageRating: 8.67 });
      const empty = await statisticsOf(alice, '?year=1999');
      expect(empty.totals).toEqual({
        plays: 0,
        movies: 0,
        minutesWatched: 0,
        averageRating: null,
        firstWatchedAt: null,
        lastWatchedAt: null,
      });
      expect(empty.playsPerYear).toEqual([{ year: 1999, plays: 0, movies: 0, minutesWatched: 0 }]);
      expect(empty.longestStreak).toEqual({ days: 0, from: null, to: null });
    });

    it('are empty, not missing, for a user without plays', async () => {
      const body = await statisticsOf(bob);
      expect(body.totals.plays).toBe(0);
      expect(body.playsPerYear).toEqual([]);
      expect(body.playsPerMonth).toHaveLength(12);
      expect(body.topDirectors).toEqual({ byMovies: [], byPlays: [] });
      expect(body.ratings.every((r: { movies: number }) => r.movies === 0)).toBe(true);
    });

    it('read the days in date order whatever order they were stored in', async () => {
      const { movies } = await seedHistory();
      // Each play counted before the next is logged: the days' rows are stored newest first.
      for (const date of ['2024-03-03', '2024-03-02', '2024-03-01', '2019-01-01']) {
        await seed(bob, [{ movie: movies.kiel, date, plays: 1 }], new Map());
        await statisticsOf(bob);
      }
      const body = await statisticsOf(bob, '?year=2024');
      expect(body.longestStreak).toEqual({ days: 3, from: '2024-03-01', to: '2024-03-03' });
      expect([body.totals.firstWatchedAt, body.totals.lastWatchedAt]).toEqual(['2024-03-01', '2024-03-03']);
      const all = await statisticsOf(bob);
      expect([all.totals.firstWatchedAt, all.totals.lastWatchedAt]).toEqual(['2019-01-01', '2024-03-03']);
    });

    it("show the last 12 months in the user's time zone, and move with the month without any write", async () => {
      const { entries, ratings } = await seedHistory();
      const known = await lookups();
      // 23:30 UTC on 30 June is already 1 July in Auckland.
      ctx.clock.set('2024-06-30T23:30:00.000Z');
      const utc = await statisticsOf(alice);
      expect(utc.playsPerMonth.at(-1)).toEqual({ month: '2024-06', plays: 1 });
      await ctx.users.update('alice', { timezone: 'Pacific/Auckland' });
      const auckland = await statisticsOf(alice);
      expect(auckland.playsPerMonth[0].month).toBe('2023-08');
      expect(auckland).toEqual(expectedStatistics({ entries, ratings, month: '2024-07', ...known }));
      ctx.clock.set('2025-02-10T12:00:00.000Z');
      expect(await statisticsOf(alice)).toEqual(
        expectedStatistics({ entries, ratings, month: '2025-02', ...known }),
      );
    });

    it('change after each change to the history or the ratings (the cache follows the list version)', async () => {
      const { entries, ratings, movies } = await seedHistory();
      const known = await lookups();
      const before = await statisticsOf(alice);
      expect(await statisticsOf(alice)).toEqual(before);
      const more: Entry = { movie: movies.garden, date: '2024-06-14', plays: 2 };
      await seed(alice, [more], new Map([[movies.kiel.id, 6]]));
      entries.push(more);
      ratings.set(movies.kiel.id, 6);
      const after = await statisticsOf(alice);
      expect(after.totals.plays).toBe(before.totals.plays + 2);
      expect(after).toEqual(expectedStatistics({ entries, ratings, month: '2024-06', ...known }));
      const y2024 = expectedStatistics({ entries, ratings, year: 2024, month: '2024-06', ...known });
      expect(await statisticsOf(alice, '?year=2024')).toEqual(y2024);
      // A deletion too.
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: '/api/users/alice/history/movies',
        headers: alice.auth,
        payload: [{ serviceId: movies.comets.id }],
      });
      expect(res.statusCode).toBe(204);
      const left = entries.filter((entry) => entry.movie !== movies.comets);
      expect(await statisticsOf(alice)).toEqual(
        expectedStatistics({ entries: left, ratings, month: '2024-06', ...known }),
      );
    });

    it('are computed once for requests that arrive together', async () => {
      await seedHistory();
      let statements = 0;
      const counted = ctx.db.withPlugin({
        transformQuery: (args) => {
          statements += 1;
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const service = () => createStatisticsService({ db: counted, clock: ctx.clock, imageBaseUrl: IMAGES });
      const owner = (await ctx.users.findByName('alice'))!;
      await service().json(owner);
      const alone = statements;
      statements = 0;
      const together = service();
      const answers = await Promise.all(Array.from({ length: 5 }, () => together.json(owner)));
      expect(new Set(answers.map(String)).size).toBe(1);
      // Five computations would take five times the statements; one, plus each request's cache check.
      expect(statements).toBeLessThan(2 * alone);
    });

    it("follow a refresh of the movies' data, even one that changes only credits", async () => {
      const { entries, movies } = await seedHistory();
      const service = createMoviesService({
        catalog: statisticsFollowCatalog,
        db: ctx.db,
        clock: ctx.clock,
        tmdb: world.tmdb,
        marks: ctx.library.marks,
      });
      const directorsOf = async () =>
        (await statisticsOf(alice)).topDirectors.byMovies.map(
          (d: { person: { providerId: number }; movies: number }) => [d.person.providerId, d.movies],
        );
      expect(await directorsOf()).toContainEqual([P.friedrich.id, 1]);
      // Kiel's director is now Maren Holt, who also directed the Ledger: only the credits change, not the
      // movie's row (its updatedAt stays).
      const kiel = structuredClone(movies.kiel.tmdb!);
      kiel.crew = kiel.crew.map((c) => (c.job === 'Director' ? { ...c, ...P.maren } : c));
      fake.putMovie(kiel);
      ctx.clock.advance(3_600_000);
      const updatedAt = () =>
        ctx.db.selectFrom('movies').select('updated_at').where('id', '=', movies.kiel.id).executeTakeFirst();
      const before = await updatedAt();
      expect(await service.refresh(movies.kiel.id)).toBe('refreshed');
      expect(await updatedAt()).toEqual(before);
      const directors = await directorsOf();
      expect(directors).toContainEqual([P.maren.id, 2]);
      expect(directors).not.toContainEqual([P.friedrich.id, 1]);
      // A new runtime: the minutes follow.
      fake.putMovie({ ...kiel, runtime: 120 });
      ctx.clock.advance(3_600_000);
      await service.refresh(movies.kiel.id);
      const kielPlays = entries.filter((e) => e.movie === movies.kiel).reduce((n, e) => n + e.plays, 0);
      expect((await statisticsOf(alice)).totals.minutesWatched).toBe(
        entries.reduce((n, e) => n + e.plays * e.movie.runtime, 0) + kielPlays * (120 - 97),
      );
    });
  });

  describe('aggregates', () => {
    const moviesService = () =>
      createMoviesService({
        catalog: statisticsFollowCatalog,
        db: ctx.db,
        clock: ctx.clock,
        tmdb: world.tmdb,
        marks: ctx.library.marks,
      });
    const e = (movie: Known, date: string | null, plays = 1): Entry => ({ movie, date, plays });

    /**
     * Brings the users' aggregates up to date, as their next read would, and compares every row of them
     * with the same computed from `watch_dates` and the movies' data alone.
     */
    const expectExactAggregates = async (...users: TestUser[]) => {
      const ids = users.map((u) => u.user.id);
      for (const id of ids) await catchUpStatistics(ctx.db, id);
      const scratch = statisticsFromScratch(ids);
      const rows = (list: Record<string, unknown>[], text: string[]) =>
        list
          .map((row) =>
            JSON.stringify(
              Object.keys(row)
                .sort()
                .map((key) => [key, text.includes(key) ? row[key] : Number(row[key])]),
            ),
          )
          .sort();
      const stored = (table: 'statistics_movies' | 'statistics_days' | 'statistics_groups') =>
        ctx.db.selectFrom(table).selectAll().where('user_id', 'in', ids).execute();
      expect(rows(await stored('statistics_movies'), []), 'statistics_movies').toEqual(
        rows((await scratch.movies.execute(ctx.db)).rows, []),
      );
      expect(rows(await stored('statistics_days'), ['watched_at']), 'statistics_days').toEqual(
        rows((await scratch.days.execute(ctx.db)).rows, ['watched_at']),
      );
      expect(rows(await stored('statistics_groups'), ['kind', 'item']), 'statistics_groups').toEqual(
        rows((await scratch.groups.execute(ctx.db)).rows, ['kind', 'item']),
      );
      // Nothing left to count.
      for (const table of ['statistics_pending', 'statistics_counting'] as const) {
        expect(
          await ctx.db.selectFrom(table).selectAll().where('user_id', 'in', ids).execute(),
          table,
        ).toEqual([]);
      }
    };

    /** Every (movie, date) of `entries` with the given plays (null: deleted), or moved to another date. */
    const change = (entries: Entry[], movie: Known, date: string | null, to: Entry | null) => {
      for (let i = entries.length - 1; i >= 0; i--) {
        if (entries[i]!.movie === movie && entries[i]!.date === date) entries.splice(i, 1);
      }
      if (to) entries.push(to);
    };

    it('catch up in steps, each its own transaction, and count the writes made between steps', async () => {
      const count = 2 * STEP_MOVIES + 10;
      const ids: number[] = [];
      for (let i = 0; i < count; i++) {
        ids.push((await createMovie(ctx, { runtime: 80 + i, release_date: `19${50 + (i % 50)}-01-01` })).id);
      }
      const play = (movieIds: number[], watchedAt: string) =>
        ctx.library.write(alice.user.id, (lib) =>
          lib.addPlays(movieIds.map((movieId) => ({ movieId, watchedAt, plays: 1, comment: null }))),
        );
      await play(ids, '2024-01-01');
      await play(ids.slice(0, 20), '2023-05-05');
      const pendingMovies = async () => {
        const movies = new Set<number>();
        for (const table of ['statistics_pending', 'statistics_counting'] as const) {
          const rows = await ctx.db
            .selectFrom(table)
            .select('movie_id')
            .where('user_id', '=', alice.user.id)
            .execute();
          for (const row of rows) movies.add(row.movie_id);
        }
        return movies.size;
      };
      expect(await pendingMovies()).toBe(count);

      // Between steps the event loop runs other work: a reader sees part of the movies counted, and a
      // write of the movies already counted and of some still pending lands in the middle.
      let done = false;
      const seen: number[] = [];
      let wrote: Promise<unknown> | undefined;
      const catchingUp = catchUpStatistics(ctx.db, alice.user.id).finally(() => {
        done = true;
      });
      while (!done) {
        const pending = await pendingMovies();
        seen.push(pending);
        if (pending > 0 && pending < count && wrote === undefined) {
          wrote = play([ids[0]!, ids[count - 1]!], '2022-02-02');
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      await catchingUp;
      await wrote;
      expect(
        seen.some((n) => n > 0 && n < count),
        `pending movies seen: ${seen.join(' ')}`,
      ).toBe(true);
      expect(wrote).toBeDefined();
      await expectExactAggregates(alice, bob);
      const totals = (await statisticsOf(alice)).totals;
      expect(totals).toMatchObject({ plays: count + 20 + 2, movies: count });
    });

    it('stay exact after an add, an edit (plays, date moved), a delete and a rating change', async () => {
      const { entries, ratings, movies } = await seedHistory();
      // Bob keeps some of the same movies: his aggregates never move with alice's writes.
      await seed(
        bob,
        [e(movies.ledger, '2024-01-10', 2), e(movies.kiel, null)],
        new Map([[movies.kiel.id, 4]]),
      );
      const known = await lookups();
      const check = async (step: string) => {
        expect(await statisticsOf(alice), step).toEqual(
          expectedStatistics({ entries, ratings, month: '2024-06', ...known }),
        );
        for (const year of [2022, 2023, 2024]) {
          expect(await statisticsOf(alice, `?year=${year}`), `${step}, ${year}`).toEqual(
            expectedStatistics({ entries, ratings, year, month: '2024-06', ...known }),
          );
        }
        await expectExactAggregates(alice, bob);
      };
      await check('seeded');

      // Adds: a new movie of the year, plays added to a day there is, an undated play.
      const added = [
        e(movies.garden, '2024-06-01'),
        e(movies.comets, '2024-03-01', 2),
        e(movies.kiel, null, 3),
      ];
      await seed(alice, added, new Map());
      entries.push(...added);
      await check('added');

      // Edits, as the history page makes them: plays replaced; a date moved to another year; the
      // undated entry given a date; a movie's only entry of a year moved out of it.
      const edit = (movie: Known, from: string | null, to: string | null, plays: number) =>
        ctx.library.write(alice.user.id, (lib) =>
          lib.editEntry(movie.id, from, { to, plays, comment: null, position: 1 }),
        );
      await edit(movies.comets, '2024-03-01', '2024-03-01', 5);
      change(entries, movies.comets, '2024-03-01', e(movies.comets, '2024-03-01', 5));
      await edit(movies.kiel, '2022-12-31', '2021-06-01', 1);
      change(entries, movies.kiel, '2022-12-31', e(movies.kiel, '2021-06-01'));
      await edit(movies.harbor, null, '2024-04-01', 2);
      change(entries, movies.harbor, null, e(movies.harbor, '2024-04-01', 2));
      await edit(movies.comets2, '2020-05-05', '2019-05-05', 1);
      change(entries, movies.comets2, '2020-05-05', e(movies.comets2, '2019-05-05'));
      await check('edited');

      // Deletes: one date, then a whole movie (its days shared with other movies stay).
      await ctx.library.write(alice.user.id, (lib) =>
        lib.deleteDates([{ movieId: movies.ledger.id, dates: ['2023-07-02'] }]),
      );
      change(entries, movies.ledger, '2023-07-02', null);
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: '/api/users/alice/history/movies',
        headers: alice.auth,
        payload: [{ serviceId: movies.harbor.id }],
      });
      expect(res.statusCode).toBe(204);
      for (const date of ['2024-03-03', '2024-04-01']) change(entries, movies.harbor, date, null);
      expect(entries.some((entry) => entry.movie === movies.harbor)).toBe(false);
      await check('deleted');

      // Ratings: one changed, one removed, one given.
      await ctx.library.write(alice.user.id, async (lib) => {
        await lib.setRatings([
          { movieId: movies.ledger.id, rating: 2 },
          { movieId: movies.kiel.id, rating: 9 },
        ]);
        await lib.clearRatings([movies.comets.id]);
      });
      ratings.set(movies.ledger.id, 2).set(movies.kiel.id, 9).delete(movies.comets.id);
      await check('rated');
    });

    it("stay exact after the diary's writes: own ratings, rewatch flags, tags, moves and deletes", async () => {
      const { entries, ratings, movies } = await seedHistory();
      await seed(bob, [e(movies.ledger, '2024-01-10', 2)], new Map([[movies.kiel.id, 4]]));
      const known = await lookups();
      const check = async (step: string) => {
        expect(await statisticsOf(alice), step).toEqual(
          expectedStatistics({ entries, ratings, month: '2024-06', ...known }),
        );
        for (const year of [2021, 2022, 2023, 2024]) {
          expect(await statisticsOf(alice, `?year=${year}`), `${step}, ${year}`).toEqual(
            expectedStatistics({ entries, ratings, year, month: '2024-06', ...known }),
          );
        }
        await expectExactAggregates(alice, bob);
      };
      const diary = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) => {
        const res = await ctx.app.inject({
          method,
          url: `/api/users/alice/diary${path}`,
          headers: alice.auth,
          ...(payload !== undefined && { payload: payload as object }),
        });
        expect(res.statusCode, res.body).toBeLessThan(300);
      };
      const idOf = async (movie: Known, date: string | null) =>
        (
          await ctx.db
            .selectFrom('watch_dates')
            .select('id')
            .where('user_id', '=', alice.user.id)
            .where('movie_id', '=', movie.id)
            .where('watched_at', date === null ? 'is' : '=', date)
            .executeTakeFirstOrThrow()
        ).id;
      const entry = (movie: Known, date: string | null) =>
        entries.find((x) => x.movie === movie && x.date === date)!;

      // Logged with a rating and tags: the entry's rating and the movie's (Garden 3 -> 6).
      await diary('POST', '', [
        { serviceId: movies.garden.id, watchedAt: '2024-06-10', rating: 6, tags: ['Cosy', 'rain'] },
        { serviceId: movies.kiel.id, watchedAt: '2021-03-03', tags: ['rain'] },
      ]);
      entries.push(
        { ...e(movies.garden, '2024-06-10'), rating: 6, tags: ['Cosy', 'rain'] },
        { ...e(movies.kiel, '2021-03-03'), tags: ['rain'] },
      );
      ratings.set(movies.garden.id, 6);
      await check('logged');
      const y2024 = await statisticsOf(alice, '?year=2024');
      expect(y2024.topTags).toEqual([
        { name: 'Cosy', entries: 1 },
        { name: 'rain', entries: 1 },
      ]);

      // An earlier entry's own rating: 2023 counts Garden at 2; all time and 2024 keep 6, the latest.
      await diary('PATCH', `/${await idOf(movies.garden, '2023-06-30')}`, { rating: 2 });
      entry(movies.garden, '2023-06-30').rating = 2;
      await check('rated an earlier entry');
      const byRating = (body: { ratings: { rating: number; movies: number }[] }, rating: number) =>
        body.ratings.find((r) => r.rating === rating)!.movies;
      expect(byRating(await statisticsOf(alice, '?year=2023'), 2)).toBe(1);
      // The movie rated again: the entries' ratings still lead.
      await send('PUT', 'ratings/movies', alice, [{ serviceId: movies.garden.id, rating: 9 }]);
      ratings.set(movies.garden.id, 9);
      await check('the movie rated again');
      // The latest rated entry's rating cleared: the earlier one leads.
      await diary('PATCH', `/${await idOf(movies.garden, '2024-06-10')}`, { rating: null });
      entry(movies.garden, '2024-06-10').rating = null;
      await check('a rating cleared');

      // Kiel's first entry (2021-03-03) moved after the others: 2022-12-31 is the first watch now, and
      // the moved one a rewatch.
      await diary('PATCH', `/${await idOf(movies.kiel, '2021-03-03')}`, { watchedAt: '2024-06-14' });
      entry(movies.kiel, '2021-03-03').date = '2024-06-14';
      await check('an earlier entry moved');
      // An earlier entry deleted: the next one is a first watch.
      await diary('DELETE', `/${await idOf(movies.kiel, '2022-12-31')}`);
      entries.splice(entries.indexOf(entry(movies.kiel, '2022-12-31')), 1);
      await check('an earlier entry deleted');

      // Flags: a later entry "not a rewatch", a first one "a rewatch", an undated one "a rewatch", and
      // one back to derived.
      await diary('PATCH', `/${await idOf(movies.comets, '2024-03-02')}`, { rewatch: false });
      entry(movies.comets, '2024-03-02').rewatch = false;
      await diary('PATCH', `/${await idOf(movies.comets2, '2020-05-05')}`, { rewatch: true });
      entry(movies.comets2, '2020-05-05').rewatch = true;
      await diary('PATCH', `/${await idOf(movies.ledger, null)}`, { rewatch: true });
      entry(movies.ledger, null).rewatch = true;
      await check('flags set');
      await diary('PATCH', `/${await idOf(movies.comets, '2024-03-02')}`, { rewatch: null });
      entry(movies.comets, '2024-03-02').rewatch = null;
      await check('a flag derived again');

      // Tags replaced and added; more than ten tags, ranked by entries then name.
      await diary('PATCH', `/${await idOf(movies.garden, '2024-06-10')}`, { tags: ['RAIN', 'night'] });
      entry(movies.garden, '2024-06-10').tags = ['rain', 'night'];
      const many = Array.from({ length: 11 }, (_, i) => `t${String(i).padStart(2, '0')}`);
      await ctx.library.write(alice.user.id, (lib) =>
        lib.describeEntries([
          { movieId: movies.ledger.id, watchedAt: '2023-07-01', tags: many, rating: 4 },
          { movieId: movies.ledger.id, watchedAt: '2024-01-10', tags: ['t05', 'night'], rewatch: false },
        ]),
      );
      Object.assign(entry(movies.ledger, '2023-07-01'), { tags: many, rating: 4 });
      Object.assign(entry(movies.ledger, '2024-01-10'), { tags: ['t05', 'night'], rewatch: false });
      await check('tagged');
      const all = await statisticsOf(alice);
      expect(all.topTags.slice(0, 3)).toEqual([
        { name: 'night', entries: 2 },
        { name: 'rain', entries: 2 },
        { name: 't05', entries: 2 },
      ]);
      expect(all.topTags).toHaveLength(10);

      // A whole movie's history deleted, then a rewatch count by hand.
      const res = await ctx.app.inject({
        method: 'DELETE',
        url: '/api/users/alice/history/movies',
        headers: alice.auth,
        payload: [{ serviceId: movies.comets.id }],
      });
      expect(res.statusCode).toBe(204);
      for (let i = entries.length - 1; i >= 0; i--)
        if (entries[i]!.movie === movies.comets) entries.splice(i, 1);
      await check('a movie deleted');
      // Ledger: 2023-07-02, 07-03 (derived) and the undated one (set); 2024-01-10 is set "not". Kiel's
      // first is 2023-07-02 now: 2024-06-14 and 2024-06-15. Comets2 (set). Bare 2024-05-20. Garden
      // 2024-06-10.
      expect((await statisticsOf(alice)).rewatches).toBe(3 + 2 + 1 + 1 + 1);
    });

    it('stay exact after an import (it writes through the library too)', async () => {
      const { entries, ratings, movies } = await seedHistory();
      const known = await lookups();
      const dir = mkdtempSync(join(tmpdir(), 'cinelog-statistics-'));
      try {
        // New days of known movies, a day already stored (adds nothing) and a movie new to alice.
        const row = (m: FakeTmdbMovie, date: string) =>
          `"${m.title}",${m.release_date.slice(0, 4)},${m.id},,${date},,`;
        const ledger = movies.ledger.tmdb!;
        const garden = movies.garden.tmdb!;
        writeFileSync(
          join(dir, 'history.csv'),
          [
            'title,year,tmdbId,imdbId,watchedAt,comment,location',
            row(ledger, '2022-02-02'),
            row(ledger, '2023-07-01'),
            row(garden, '2024-05-05'),
            row(garden, '2021-01-01'),
            '',
          ].join('\n'),
        );
        const imports = createImportsService({
          library: ctx.library,
          movies: moviesService(),
          users: ctx.users,
          clock: ctx.clock,
        });
        const summary = await imports.importPath('movary', (await ctx.users.findByName('alice'))!, dir);
        expect(summary).toMatchObject({ added: 3, unmatched: 0 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      entries.push(
        e(movies.ledger, '2022-02-02'),
        e(movies.garden, '2024-05-05'),
        e(movies.garden, '2021-01-01'),
      );
      expect(await statisticsOf(alice)).toEqual(
        expectedStatistics({ entries, ratings, month: '2024-06', ...known }),
      );
      expect(await statisticsOf(alice, '?year=2021')).toEqual(
        expectedStatistics({ entries, ratings, year: 2021, month: '2024-06', ...known }),
      );
      await expectExactAggregates(alice);
    });

    it("follow a refresh that changes a movie's credits, genres, countries, language, decade and runtime, for every user who has it", async () => {
      const { entries, ratings, movies } = await seedHistory();
      await seed(bob, [e(movies.kiel, '2024-01-01', 2)], new Map());
      await expectExactAggregates(alice, bob);
      // Bob's next play of it is still pending when the refresh comes: it is counted after, as it is then.
      await seed(bob, [e(movies.kiel, '2024-02-01')], new Map());
      const ledger = movies.ledger.tmdb!;
      const kiel: FakeTmdbMovie = {
        ...structuredClone(movies.kiel.tmdb!),
        genres: ledger.genres,
        production_countries: [{ iso_3166_1: 'FR', name: 'France' }],
        original_language: 'fr',
        release_date: '1999-03-01',
        runtime: 120,
        cast: [{ ...P.edda, character: 'Someone', order: 0 }, ...ledger.cast.slice(0, 2)],
        crew: [{ ...P.maren, department: 'Directing', job: 'Director' }],
      };
      fake.putMovie(kiel);
      ctx.clock.advance(3_600_000);
      expect(await moviesService().refresh(movies.kiel.id)).toBe('refreshed');
      Object.assign(movies.kiel, { tmdb: kiel, runtime: 120, releaseDate: '1999-03-01', language: 'fr' });
      const known = await lookups();
      expect(await statisticsOf(alice)).toEqual(
        expectedStatistics({ entries, ratings, month: '2024-06', ...known }),
      );
      expect(await statisticsOf(alice, '?year=2024')).toEqual(
        expectedStatistics({ entries, ratings, year: 2024, month: '2024-06', ...known }),
      );
      await expectExactAggregates(alice, bob);
      // Refreshed again as it is: nothing moves.
      ctx.clock.advance(3_600_000);
      expect(await moviesService().refresh(movies.kiel.id)).toBe('refreshed');
      await expectExactAggregates(alice, bob);
      // Added again from the provider, with other credits: the same as a refresh.
      fake.putMovie({
        ...kiel,
        crew: [{ ...P.agnes, department: 'Directing', job: 'Director' }],
        runtime: 95,
      });
      expect(await moviesService().addFromProvider(kiel.id)).toBe(movies.kiel.id);
      await expectExactAggregates(alice, bob);
    });

    it('stay exact after a write too large to add change by change (counted again from scratch)', async () => {
      const { movies } = await seedHistory();
      await seed(bob, [e(movies.kiel, '2024-01-01')], new Map());
      await expectExactAggregates(alice, bob);
      // 2,600 more movies played once in 2021: 5,200 changed scopes, past what a catch-up adds one by one.
      const now = ctx.clock.now().toISOString();
      const many: number[] = [];
      for (let i = 0; i < 2_600; i += 500) {
        const rows = await ctx.db
          .insertInto('movies')
          .values(
            Array.from({ length: Math.min(500, 2_600 - i) }, (_, j) => ({
              title: `Bulk ${i + j}`,
              release_date: `19${50 + ((i + j) % 50)}-01-01`,
              original_language: (i + j) % 2 ? 'en' : 'fr',
              runtime: 90,
              created_at: now,
            })),
          )
          .returning('id')
          .execute();
        many.push(...rows.map((row) => row.id));
      }
      await ctx.library.write(alice.user.id, (lib) =>
        lib.addPlays(
          many.map((movieId, i) => ({
            movieId,
            watchedAt: `2021-0${1 + (i % 9)}-1${i % 10}`,
            plays: 1 + (i % 2),
            comment: null,
          })),
        ),
      );
      await expectExactAggregates(alice, bob);
      expect((await statisticsOf(alice, '?year=2021')).totals).toMatchObject({ movies: 2_600, plays: 3_900 });
    });

    it("of a deleted user go with them; another user's stay as they were", async () => {
      const { movies } = await seedHistory();
      await seed(
        bob,
        [e(movies.kiel, '2024-01-01', 2), e(movies.ledger, null)],
        new Map([[movies.kiel.id, 5]]),
      );
      await statisticsOf(alice);
      await catchUpStatistics(ctx.db, bob.user.id);
      const rowsOf = async (userId: number) => {
        let count = 0;
        for (const table of [
          'statistics_movies',
          'statistics_days',
          'statistics_groups',
          'statistics_pending',
        ] as const) {
          count += (await ctx.db.selectFrom(table).selectAll().where('user_id', '=', userId).execute())
            .length;
        }
        return count;
      };
      expect(await rowsOf(bob.user.id)).toBeGreaterThan(0);
      const alicesBefore = await statisticsOf(alice);
      await ctx.users.delete('bob');
      expect(await rowsOf(bob.user.id)).toBe(0);
      expect(await statisticsOf(alice)).toEqual(alicesBefore);
      await expectExactAggregates(alice);
    });

    it('stay exact, and nothing deadlocks, when writes, reads and refreshes of the same movies run at once', async () => {
      const carol = await createUser(ctx, { name: 'carol' });
      const users = [alice, bob, carol];
      // Its own connections, closed at the end: PostgreSQL counts a deadlock when the backend that met it
      // reports (at the latest when it ends), even one that `inTransaction` then ran again successfully.
      const other = openDatabase(ctx.config.databaseUrl, { poolSize: 8 });
      const deadlocks = async () =>
        TEST_ENGINE === 'postgres'
          ? Number(
              (
                await sql<{ deadlocks: unknown }>`select deadlocks from pg_stat_database
                  where datname = current_database()`.execute(ctx.db)
              ).rows[0]!.deadlocks,
            )
          : 0;
      const before = await deadlocks();
      try {
        const library = createLibrary({ db: other.db, clock: ctx.clock, imageBaseUrl: IMAGES });
        const movies = createMoviesService({
          catalog: statisticsFollowCatalog,
          db: other.db,
          clock: ctx.clock,
          tmdb: world.tmdb,
          marks: library.marks,
        });
        const base = FAKE_TMDB_MOVIES.slice(0, 3);
        const ids: number[] = [];
        for (const movie of base) {
          fake.putMovie(movie);
          ids.push(await movies.addFromProvider(movie.id));
        }
        const people = Object.values(P);
        const tasks: Promise<unknown>[] = [];
        for (let i = 0; i < 60; i++) {
          const user = users[i % users.length]!;
          const movieIds = [ids[i % ids.length]!, ids[(i + 1) % ids.length]!];
          tasks.push(
            library.write(user.user.id, (lib) =>
              lib.addPlays(
                movieIds.map((movieId) => ({
                  movieId,
                  watchedAt: `202${i % 4}-0${1 + (i % 9)}-1${i % 10}`,
                  plays: 1,
                  comment: null,
                })),
              ),
            ),
          );
          if (i % 3 === 0) tasks.push(catchUpStatistics(other.db, user.user.id));
          if (i % 5 === 0) {
            const movie = base[i % base.length]!;
            fake.putMovie({
              ...movie,
              runtime: 80 + i,
              genres: i % 2 ? movie.genres : base[0]!.genres,
              cast: people
                .slice(i % 7, (i % 7) + 5)
                .map((p, order) => ({ ...p, character: 'A part', order })),
              crew: [{ ...people[i % people.length]!, department: 'Directing', job: 'Director' }],
            });
            tasks.push(movies.refresh(ids[i % ids.length]!));
          }
        }
        await Promise.all(tasks);
      } finally {
        await other.close();
      }
      await expectExactAggregates(...users);
      // The closed connections' reports may take a moment to land.
      await new Promise((resolve) => setTimeout(resolve, TEST_ENGINE === 'postgres' ? 1_500 : 0));
      expect(await deadlocks()).toBe(before);
    });

    it(
      'equal the aggregates computed from scratch after any sequence of writes, refreshes and reads',
      async () => {
        // Four movies, each refreshed now and then with other credits, genres, countries, language,
        // release date and runtime (from a small pool, so that groups are shared and emptied); two
        // users writing to them in every way the library allows.
        const base = FAKE_TMDB_MOVIES.slice(0, 4);
        const stored: number[] = [];
        for (const movie of base) {
          fake.putMovie(movie);
          stored.push(await moviesService().addFromProvider(movie.id));
        }
        const people = Object.values(P);
        const genres = [...new Map(FAKE_TMDB_MOVIES.flatMap((m) => m.genres.map((g) => [g.id, g]))).values()];
        const users = [alice, bob];
        const movie = fc.integer({ min: 0, max: stored.length - 1 });
        const date = fc.constantFrom(
          null,
          '2022-12-31',
          '2023-01-01',
          '2023-06-15',
          '2024-02-29',
          '2024-03-01',
        );
        const who = fc.integer({ min: 0, max: users.length - 1 });
        const plays = fc.integer({ min: 1, max: 3 });
        const op = fc.oneof(
          fc.record({ kind: fc.constant('add' as const), who, movie, date, plays }),
          fc.record({ kind: fc.constant('replace' as const), who, movie, date, plays }),
          fc.record({
            kind: fc.constant('delete' as const),
            who,
            movie,
            date: fc.option(date, { nil: undefined }),
          }),
          fc.record({ kind: fc.constant('move' as const), who, movie, date, to: date, plays }),
          fc.record({
            kind: fc.constant('batch' as const),
            who,
            movies: fc.uniqueArray(movie, { minLength: 2 }),
            date,
          }),
          fc.record({
            kind: fc.constant('rate' as const),
            who,
            movie,
            rating: fc.option(fc.integer({ min: 1, max: 10 })),
          }),
          fc.record({
            kind: fc.constant('refresh' as const),
            movie,
            cast: fc.subarray(people, { maxLength: people.length }),
            directors: fc.subarray(people, { maxLength: 2 }),
            genres: fc.subarray(genres, { maxLength: 3 }),
            country: fc.constantFrom('US', 'DE', 'FR'),
            language: fc.constantFrom('en', 'de', 'fr'),
            release: fc.constantFrom('', '1974-03-05', '2019-04-12'),
            runtime: fc.integer({ min: 0, max: 180 }),
          }),
          fc.record({ kind: fc.constant('read' as const), who }),
        );
        type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
        const apply = async (step: Op) => {
          if (step.kind === 'refresh') {
            const tmdb: FakeTmdbMovie = {
              ...base[step.movie]!,
              genres: step.genres,
              production_countries: [{ iso_3166_1: step.country, name: step.country }],
              original_language: step.language,
              release_date: step.release,
              runtime: step.runtime,
              // The fourth billed past the first 15; the first again in a second part.
              cast: [...step.cast, ...step.cast.slice(0, 1)].map((p, order) => ({
                ...p,
                character: 'A part',
                order: order === 3 ? 20 : order === step.cast.length ? 30 : order,
              })),
              crew: step.directors.map((p) => ({ ...p, department: 'Directing', job: 'Director' })),
            };
            fake.putMovie(tmdb);
            ctx.clock.advance(60_000);
            await moviesService().refresh(stored[step.movie]!);
            return;
          }
          const user = users[step.who]!;
          if (step.kind === 'read') return void (await statisticsOf(user));
          const id = stored[step.kind === 'batch' ? step.movies[0]! : step.movie]!;
          await ctx.library
            .write(user.user.id, async (lib) => {
              if (step.kind === 'add')
                await lib.addPlays([{ movieId: id, watchedAt: step.date, plays: step.plays, comment: null }]);
              if (step.kind === 'replace')
                await lib.replacePlays([
                  { movieId: id, watchedAt: step.date, plays: step.plays, comment: null },
                ]);
              if (step.kind === 'delete')
                await lib.deleteDates([
                  { movieId: id, dates: step.date === undefined ? undefined : [step.date] },
                ]);
              if (step.kind === 'move')
                await lib.editEntry(id, step.date, {
                  to: step.to,
                  plays: step.plays,
                  comment: null,
                  position: 1,
                });
              if (step.kind === 'batch') {
                await lib.addPlays(
                  step.movies.map((m) => ({
                    movieId: stored[m]!,
                    watchedAt: step.date,
                    plays: 1,
                    comment: null,
                  })),
                );
              }
              if (step.kind === 'rate') {
                if (step.rating === null) await lib.clearRatings([id]);
                else await lib.setRatings([{ movieId: id, rating: step.rating }]);
              }
            })
            // An edit of an entry that is not there, or onto one that is, is refused: nothing changes.
            .catch((error: unknown) => {
              if (!(error instanceof AppError)) throw error;
            });
        };
        await checkProperty(
          'aggregates after random writes',
          fc.array(op, { minLength: 1, maxLength: 15 }),
          async (steps) => {
            for (const step of steps) await apply(step);
            await expectExactAggregates(...users);
          },
          runs(25),
        );
      },
      timeoutFor(25, 3_000),
    );
  });

  describe('access', () => {
    it('requires a token', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: url('alice') });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toBe('');
    });

    it('answers 404 for an unknown user', async () => {
      const res = await get('nobody', alice.auth);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'UserNotFound' });
    });

    it("lets others read a user's statistics unless they are private, as the history", async () => {
      await seedHistory();
      const own = await statisticsOf(alice);
      expect(await statisticsOf(alice, '', bob)).toEqual(own);
      await ctx.users.update('alice', { privacy: 'private' });
      for (const path of ['statistics', 'statistics?year=2024', 'history/movies']) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: `/api/users/alice/${path}`,
          headers: bob.auth,
        });
        expect(res.statusCode, path).toBe(403);
        expect(res.json()).toEqual({ error: 'Forbidden', message: expect.any(String) });
      }
      expect(await statisticsOf(alice)).toEqual(own);
      // Bob's own statistics are his, never alice's.
      expect((await statisticsOf(bob)).totals.plays).toBe(0);
    });

    it.each([['abc'], ['999'], ['10000'], ['2024.5'], ['-2024'], ['']])(
      'refuses year=%s with a 400',
      async (year) => {
        const res = await get('alice', alice.auth, `?year=${year}`);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'InvalidQueryParameter' });
      },
    );

    it('is in the OpenAPI document', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
      const operation = res.json().paths['/users/{username}/statistics'].get;
      expect(operation.tags).toEqual(['statistics']);
      expect(operation.description).toMatch(/undated/);
      expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '401', '403', '404', '413']);
    });
  });
});
