import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { calendarDateIn } from '../../shared/dates.js';
import { tagCounts } from '../library/diary.repository.js';
import { findMoviesWithRating } from '../library/library-movies.repository.js';
import { ListPageCache } from '../library/page-cache.js';
import { profileImageUrl, toMovie } from '../movies/movies.presenter.js';
import { keptNewestDetailsFetch, newestDetailsFetch } from '../movies/movies.repository.js';
import type { User } from '../users/users.service.js';
import {
  catchUp,
  type DayPlays,
  type FigureKind,
  type FigureRow,
  movieFigures,
  playsPerDay,
  type RankedPerson,
  type Scope,
  topPeople,
} from './statistics.repository.js';
import { type Statistics, TOP } from './statistics.schemas.js';

export type { Statistics };

export interface StatisticsOptions {
  /** Only the plays dated in this year; absent: every play. */
  year?: number | undefined;
}

/**
 * A user's statistics (issue 20): read from the aggregates the library keeps (issue 28: a few ms at
 * 100,000 plays, after catching up with the last writes), kept by the list page cache under the user's
 * data version, so they are read again only after a change to the user's lists or to the movies' data.
 * Nothing is computed in the background: catching up costs about 0.5 ms per movie changed (SQLite), and
 * done 2 s after each pause in a user's writes it took more CPU than the writes themselves under a
 * stream of one-play POSTs, for statistics nobody might open (issue 28). The first read after changes
 * catches up with them, a few movies per transaction.
 */
export interface StatisticsService {
  /** The statistics as an object (the web pages). */
  forUser(owner: User, options?: StatisticsOptions): Promise<Statistics>;
  /** The same, as the API's JSON bytes. */
  json(owner: User, options?: StatisticsOptions): Promise<Buffer>;
}

export function createStatisticsService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  imageBaseUrl: string;
}): StatisticsService {
  const { db, clock, imageBaseUrl } = deps;
  const cache = new ListPageCache(db, 4 * 1024 * 1024);
  // A movie's genres, countries and credits change with a refresh that may leave its row (and so the
  // cache's catalog version) as it was: the newest details fetch keys the statistics too.
  const details = keptNewestDetailsFetch<string>(db);
  const detailsVersion = () => details.get('details', () => newestDetailsFetch(db));

  // Requests that arrive together while the statistics are computed share the computation.
  const computing = new Map<string, Promise<string>>();

  const json = async (owner: User, options: StatisticsOptions = {}) => {
    const year = options.year;
    // All time, the months shown are the last 12 up to this one: the answer changes with the month.
    const month = year === undefined ? calendarDateIn(clock.now(), owner.timezone).slice(0, 7) : null;
    const query = { year: year ?? null, month, details: await detailsVersion() };
    return cache.bytes({ list: 'statistics', owner, query }, (key) => {
      let made = computing.get(key);
      if (made === undefined) {
        made = compute(db, imageBaseUrl, owner, year, month)
          .then((statistics) => JSON.stringify(statistics))
          .finally(() => computing.delete(key));
        computing.set(key, made);
      }
      return made;
    });
  };

  return {
    json,
    async forUser(owner, options) {
      return JSON.parse((await json(owner, options)).toString('utf8'));
    },
  };
}

/** Every figure, from the aggregates; `month` (`YYYY-MM`) ends the 12 months shown when no year is asked. */
export async function compute(
  db: Kysely<Database>,
  imageBaseUrl: string,
  owner: User,
  year: number | undefined,
  month: string | null,
): Promise<Statistics> {
  const scope: Scope = { userId: owner.id, year };
  // The tags are counted from the entries' links, not the aggregates: read while the aggregates catch
  // up (on PostgreSQL, 5-11 ms of the first answer after a play hidden under the catch-up's 18 ms).
  const counting = tagCounts(db, owner.id, { year, limit: TOP });
  counting.catch(() => {}); // A failure is thrown below, once the catch-up is done with.
  await catchUp(db, owner.id);
  const [figures, people, days, tags] = await Promise.all([
    movieFigures(db, scope, TOP),
    topPeople(db, scope, TOP),
    playsPerDay(db, scope),
    counting,
  ]);
  const of = (kind: FigureKind) => figures.filter((row) => row.kind === kind);
  const totalsOf = (row: FigureRow | undefined) => ({
    plays: row?.plays ?? 0,
    movies: row?.movies ?? 0,
    minutes: row?.minutes ?? 0,
  });
  const scopeTotals = totalsOf(of('total').find((row) => Number(row.item) === (year ?? 0)));
  const years = of('total')
    .filter((row) => row.item !== '0')
    .map((row) => ({ year: Number(row.item), ...totalsOf(row) }))
    .sort((a, b) => a.year - b.year);
  const ratings = of('rating').map((row) => ({ rating: Number(row.item), movies: row.movies }));
  const rewatched = of('rewatched')
    .map((row) => ({ movieId: Number(row.item), plays: row.plays }))
    .sort((a, b) => b.plays - a.plays || a.movieId - b.movieId);
  const movieRows = await findMoviesWithRating(
    db,
    rewatched.map((entry) => entry.movieId),
    owner.id,
  );

  const ratingsByValue = new Map(ratings.map((entry) => [entry.rating, entry.movies]));
  const rated = ratings.reduce((sum, entry) => sum + entry.movies, 0);
  const ratingSum = ratings.reduce((sum, entry) => sum + entry.rating * entry.movies, 0);
  const months = year === undefined ? lastTwelveMonths(month!) : monthsOf(year);
  const perMonth = new Map(months.map((m) => [m, 0]));
  const perWeekday = [0, 0, 0, 0, 0, 0, 0];
  for (const day of days) {
    const key = day.date.slice(0, 7);
    const inMonth = perMonth.get(key);
    if (inMonth !== undefined) perMonth.set(key, inMonth + day.plays);
    perWeekday[weekdayOf(day.day) - 1]! += day.plays;
  }

  // Most movies first, then most plays, then the item (`tie`).
  const ranked = (
    kind: FigureKind,
    tie: (a: FigureRow, b: FigureRow) => number,
    limit = Number.POSITIVE_INFINITY,
  ) =>
    of(kind)
      .sort((a, b) => b.movies - a.movies || b.plays - a.plays || tie(a, b))
      .slice(0, limit);
  const byNumber = (a: FigureRow, b: FigureRow) => Number(a.item) - Number(b.item);
  const byCode = (a: FigureRow, b: FigureRow) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0);
  const ranking = (credit: RankedPerson['credit']) => {
    const first = (rank: RankedPerson['rank']) =>
      people
        .filter((p) => p.credit === credit && p.rank === rank)
        .map((p) => ({
          person: {
            id: p.id,
            providerId: p.tmdbId,
            name: p.name,
            profilePath: profileImageUrl(imageBaseUrl, p.profilePath),
          },
          movies: p.movies,
          plays: p.plays,
        }));
    return { byMovies: first('movies'), byPlays: first('plays') };
  };

  return {
    year: year ?? null,
    totals: {
      plays: scopeTotals.plays,
      movies: scopeTotals.movies,
      minutesWatched: scopeTotals.minutes,
      averageRating: rated === 0 ? null : Math.round((ratingSum / rated) * 100) / 100,
      firstWatchedAt: days[0]?.date ?? null,
      lastWatchedAt: days.at(-1)?.date ?? null,
    },
    playsPerYear: yearsFilled(years, year),
    playsPerMonth: [...perMonth].map(([m, plays]) => ({ month: m, plays })),
    playsPerWeekday: perWeekday.map((plays, i) => ({ weekday: i + 1, plays })),
    ratings: Array.from({ length: 10 }, (_, i) => ({
      rating: i + 1,
      movies: ratingsByValue.get(i + 1) ?? 0,
    })),
    topGenres: ranked('genre', byNumber, TOP).map((g) => ({
      id: Number(g.item),
      name: g.name!,
      movies: g.movies,
      plays: g.plays,
    })),
    topLanguages: ranked('language', byCode, TOP).map((l) => ({
      code: l.item,
      name: l.name,
      movies: l.movies,
      plays: l.plays,
    })),
    topCountries: ranked('country', byCode, TOP).map((c) => ({
      code: c.item,
      name: c.name!,
      movies: c.movies,
      plays: c.plays,
    })),
    topDecades: ranked('decade', byCode).map((d) => ({
      decade: Number(d.item) * 10,
      movies: d.movies,
      plays: d.plays,
    })),
    topDirectors: ranking('director'),
    topActors: ranking('actor'),
    mostRewatched: rewatched.map((entry) => ({
      movie: toMovie(movieRows.get(entry.movieId)!, imageBaseUrl),
      plays: entry.plays,
    })),
    longestStreak: longestStreak(days),
    rewatches: of('rewatches')[0]?.movies ?? 0,
    topTags: tags.map((tag) => ({ name: tag.name, entries: tag.count })),
  };
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** 1 for Monday ... 7 for Sunday, of a day's number (`dayNumberOf`: its own day, no time zone involved). */
function weekdayOf(day: number): number {
  // 1970-01-01, day 0, was a Thursday (4).
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

function monthsOf(year: number): string[] {
  return Array.from({ length: 12 }, (_, i) => `${year}-${pad2(i + 1)}`);
}

/** The 12 months ending with `month` (`YYYY-MM`), oldest first. */
export function lastTwelveMonths(month: string): string[] {
  const last = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
  return Array.from({ length: 12 }, (_, i) => {
    const m = last - 11 + i;
    return `${Math.floor(m / 12)}-${pad2((m % 12) + 1)}`;
  });
}

/** Every year from the first to the last with a play (zeros between), or the one year asked. */
function yearsFilled(
  years: { year: number; plays: number; movies: number; minutes: number }[],
  year?: number,
) {
  const byYear = new Map(years.map((entry) => [entry.year, entry]));
  const first = year ?? years[0]?.year;
  const last = year ?? years.at(-1)?.year;
  if (first === undefined || last === undefined) return [];
  const out = [];
  for (let y = first; y <= last; y++) {
    const entry = byYear.get(y);
    out.push({
      year: y,
      plays: entry?.plays ?? 0,
      movies: entry?.movies ?? 0,
      minutesWatched: entry?.minutes ?? 0,
    });
  }
  return out;
}

/** The longest run of consecutive days among `days` (sorted, distinct); the latest of equal runs. */
export function longestStreak(days: readonly Pick<DayPlays, 'date' | 'day'>[]) {
  let best = { days: 0, from: null as string | null, to: null as string | null };
  let start = 0;
  for (let i = 0; i < days.length; i++) {
    if (i > 0 && days[i]!.day !== days[i - 1]!.day + 1) start = i;
    const length = i - start + 1;
    if (length >= best.days) best = { days: length, from: days[start]!.date, to: days[i]!.date };
  }
  return best;
}
