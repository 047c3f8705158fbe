import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import { hasPublicProfile, type User } from '../../users/users.service.js';
import { barChart, monthBar, monthName, weekdayBar } from '../shell/charts.js';
import { formatDay, hoursOf, personHref, ratingLabel } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { movieCard, pageImageUrl, ratingView } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

const Year = Type.String({ pattern: '^(18[7-9][0-9]|19[0-9]{2}|2[0-9]{3})$' });
const StatisticsQuery = Type.Object({ year: Type.Optional(Year) });
const ReviewParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), year: Year });

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Person = Statistics['topDirectors']['byMovies'][number];
const personView = (entry: Person) => ({
  name: entry.person.name,
  href: personHref(entry.person.id, entry.person.name),
  picture: pageImageUrl(entry.person.profilePath),
  initial: [...entry.person.name][0] ?? '?',
  count: `${plural(entry.movies, 'movie')} · ${plural(entry.plays, 'play')}`,
});

/** The page's view of the statistics (the same object as the API's, from the same service). */
function statisticsView(stats: Statistics, owner: User) {
  const { totals } = stats;
  const ranked = (list: { name: string; movies: number; plays: number }[]) =>
    list.map((entry) => ({
      name: entry.name,
      count: `${plural(entry.movies, 'movie')} · ${plural(entry.plays, 'play')}`,
    }));
  return {
    totals: {
      plays: totals.plays,
      movies: totals.movies,
      hours: hoursOf(totals.minutesWatched),
      averageRating:
        totals.averageRating === null
          ? null
          : ratingLabel(Math.round(totals.averageRating), owner.ratingScale),
      averageExact: totals.averageRating,
      first: totals.firstWatchedAt ? formatDay(totals.firstWatchedAt) : null,
      last: totals.lastWatchedAt ? formatDay(totals.lastWatchedAt) : null,
      streak: stats.longestStreak,
      streakFrom: stats.longestStreak.from ? formatDay(stats.longestStreak.from) : null,
      streakTo: stats.longestStreak.to ? formatDay(stats.longestStreak.to) : null,
    },
    charts: {
      years: {
        id: 'chart-years',
        columnLabel: 'Year',
        ...barChart(
          'Plays per year',
          'plays',
          stats.playsPerYear.map((y) => ({ label: String(y.year), value: y.plays })),
        ),
      },
      months: {
        id: 'chart-months',
        columnLabel: 'Month',
        ...barChart(
          stats.year === null ? 'Plays in the last 12 months' : `Plays per month in ${stats.year}`,
          'plays',
          stats.playsPerMonth.map((m) => monthBar(m.month, m.plays)),
        ),
      },
      weekdays: {
        id: 'chart-weekdays',
        columnLabel: 'Day',
        ...barChart(
          'Plays per weekday',
          'plays',
          stats.playsPerWeekday.map((d) => weekdayBar(d.weekday, d.plays)),
        ),
      },
      ratings: {
        id: 'chart-ratings',
        columnLabel: 'Rating',
        ...barChart(
          'Your ratings',
          'movies',
          stats.ratings.map((r) => ({
            label: owner.ratingScale === 'stars' ? String(r.rating / 2) : String(r.rating),
            name: ratingLabel(r.rating, owner.ratingScale),
            value: r.movies,
          })),
        ),
      },
    },
    directors: stats.topDirectors.byMovies.map(personView),
    actors: stats.topActors.byMovies.map(personView),
    genres: ranked(stats.topGenres),
    languages: ranked(stats.topLanguages.map((l) => ({ ...l, name: l.name ?? l.code }))),
    countries: ranked(stats.topCountries),
    decades: ranked(stats.topDecades.map((d) => ({ ...d, name: `${d.decade}s` }))),
    rewatched: stats.mostRewatched.map((entry) => ({
      ...movieCard(entry.movie, { scale: owner.ratingScale }),
      count: plural(entry.plays, 'play'),
    })),
  };
}

/** The services these pages use. */
export type StatisticsDeps = Pick<WebDeps, 'statistics' | 'yearReview' | 'users' | 'clock'>;

/**
 * `/statistics` (the signed-in user's, all time or one year) and the year in review
 * `/users/{name}/year/{year}` (its owner's; anyone's with the link when the owner's profile is public).
 * Both read the statistics service the API answers from (docs/web-app.md, "Statistics").
 */
export function statisticsRoutes(
  app: App,
  { render }: Pages,
  { statistics, yearReview, users, clock }: StatisticsDeps,
): void {
  app.get(
    '/statistics',
    { preHandler: requireSignIn, schema: { querystring: StatisticsQuery } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const year = request.query.year === undefined ? undefined : Number(request.query.year);
      const thisYear = Number(todayOf(clock.now(), user.timezone).slice(0, 4));
      const [statsBytes, allTimeBytes] = await Promise.all([
        statistics.json(user, { year }),
        year === undefined ? null : statistics.json(user),
      ]);
      // Kept whole while the statistics' bytes and this year stand (Renderer.cached).
      return render.cached(request, reply, {
        template: 'statistics',
        sources: allTimeBytes ? [statsBytes, allTimeBytes] : [statsBytes],
        extra: String(thisYear),
        data: () => {
          const stats = JSON.parse(statsBytes.toString('utf8')) as Statistics;
          const allTime = allTimeBytes && (JSON.parse(allTimeBytes.toString('utf8')) as Statistics);
          const years = (allTime ?? stats).playsPerYear
            .filter((y) => y.plays > 0)
            .map((y) => y.year)
            .reverse();
          return {
            title: year === undefined ? 'Statistics' : `Statistics of ${year}`,
            year: year ?? null,
            thisYear,
            years,
            reviewHref: `/users/${encodeURIComponent(user.name)}/year/${year ?? thisYear}`,
            ...statisticsView(stats, user),
          };
        },
      });
    },
  );

  app.get('/users/:name/year/:year', { schema: { params: ReviewParams } }, async (request, reply) => {
    const owner = await users.findByName(request.params.name);
    const isOwner = owner !== undefined && owner !== null && request.signedIn?.user.id === owner.id;
    // Not public and not yours, or nobody: the same 404, so the page does not tell whether the account exists.
    if (!owner || !(isOwner || hasPublicProfile(owner)))
      throw notFound('UserNotFound', 'no year in review here');
    const year = Number(request.params.year);
    const [stats, review] = await Promise.all([
      statistics.forUser(owner, { year }),
      yearReview.forUser(owner, year),
    ]);
    const busiest = stats.playsPerMonth.reduce<{ month: string; plays: number } | null>(
      (best, m) => (m.plays > (best?.plays ?? 0) ? m : best),
      null,
    );
    const view = statisticsView(stats, owner);
    const linked = request.signedIn !== null;
    const card = (entry: (typeof review.movies)[number] | null, meta: string) =>
      entry === null
        ? null
        : {
            ...movieCard(entry.movie, { scale: owner.ratingScale, meta }),
            href: linked ? movieCard(entry.movie, { scale: owner.ratingScale }).href : null,
          };
    return render(request, reply, 'year-review', {
      title: `${owner.name}'s ${year} in movies`,
      owner: { name: owner.name },
      isOwner,
      shareable: hasPublicProfile(owner),
      year,
      totals: view.totals,
      monthsChart: view.charts.months,
      busiest: busiest === null ? null : { name: monthName(busiest.month), plays: busiest.plays },
      first: card(review.first, review.first ? `First, ${formatDay(review.first.first)}` : ''),
      last: card(review.last, review.last ? `Last, ${formatDay(review.last.last)}` : ''),
      highestRated: card(review.highestRated, ''),
      highestRating: review.highestRated
        ? ratingView(review.highestRated.movie.userRating!, owner.ratingScale)
        : null,
      director: view.directors[0] ?? null,
      actor: view.actors[0] ?? null,
      genre: view.genres[0] ?? null,
      posters: review.movies.map((entry) => ({
        title: entry.movie.title,
        href: linked ? movieCard(entry.movie, { scale: owner.ratingScale }).href : null,
        poster: pageImageUrl(entry.movie.posterPath),
        initial: [...entry.movie.title][0] ?? '?',
      })),
    });
  });
}
