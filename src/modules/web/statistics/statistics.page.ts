import type { Statistics } from '../../statistics/statistics.service.js';
import type { YearReview } from '../../statistics/year-review.service.js';
import { hasPublicProfile, type User } from '../../users/users.service.js';
import { barChart, monthBar, monthName, weekdayBar } from '../shell/charts.js';
import { formatDay, hoursOf, personHref, ratingLabel } from '../shell/format.js';
import { movieCard, pageImageUrl, ratingView } from '../shell/view-models.js';

// The statistics page and the year in review, from the statistics service's object (the API's) and
// the year's movies. Pure: domain objects in, the templates' data out.

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
    rewatches: stats.rewatches,
    tags: stats.topTags.map((tag) => ({ name: tag.name, count: plural(tag.entries, 'entry', 'entries') })),
  };
}

/**
 * `/statistics` of `user`: all time, or `year`. `allTime` (asked besides one year's) gives the years
 * to pick from; all time, the statistics themselves do. `thisYear` (in the user's time zone) is the
 * year in review linked from the all-time page.
 */
export function statisticsPage(
  user: User,
  view: { year: number | undefined; thisYear: number },
  stats: Statistics,
  allTime: Statistics | null,
) {
  const { year, thisYear } = view;
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
}

/**
 * `/users/{name}/year/{year}`: `owner`'s year in review, from that year's statistics and movies. Its
 * owner sees whether it is shared (`isOwner`); movie pages are for signed-in users, so `linked` says
 * whether the viewer gets links.
 */
export function yearReviewPage(
  owner: User,
  view: { year: number; isOwner: boolean; linked: boolean },
  stats: Statistics,
  review: YearReview,
) {
  const { year, isOwner, linked } = view;
  const busiest = stats.playsPerMonth.reduce<{ month: string; plays: number } | null>(
    (best, m) => (m.plays > (best?.plays ?? 0) ? m : best),
    null,
  );
  const figures = statisticsView(stats, owner);
  const card = (entry: YearReview['movies'][number] | null, meta: string) =>
    entry === null
      ? null
      : {
          ...movieCard(entry.movie, { scale: owner.ratingScale, meta }),
          href: linked ? movieCard(entry.movie, { scale: owner.ratingScale }).href : null,
        };
  return {
    title: `${owner.name}'s ${year} in movies`,
    owner: { name: owner.name },
    isOwner,
    shareable: hasPublicProfile(owner),
    year,
    totals: figures.totals,
    monthsChart: figures.charts.months,
    busiest: busiest === null ? null : { name: monthName(busiest.month), plays: busiest.plays },
    first: card(review.first, review.first ? `First, ${formatDay(review.first.first)}` : ''),
    last: card(review.last, review.last ? `Last, ${formatDay(review.last.last)}` : ''),
    highestRated: card(review.highestRated, ''),
    highestRating: review.highestRated
      ? ratingView(review.highestRated.movie.userRating!, owner.ratingScale)
      : null,
    director: figures.directors[0] ?? null,
    actor: figures.actors[0] ?? null,
    genre: figures.genres[0] ?? null,
    posters: review.movies.map((entry) => poster(entry.movie)),
    likes: review.likes.map((like) => poster(like.movie)),
    lists: review.lists.map(({ list, movies }) => ({
      name: list.name,
      // The owner's own page of it, or the public one anyone may open; else no link.
      href: isOwner
        ? `/lists/${list.id}`
        : list.visibility === 'public' && hasPublicProfile(owner)
          ? `/u/${encodeURIComponent(owner.name)}/lists/${list.id}`
          : null,
      count: plural(list.movieCount, 'movie'),
      posters: movies.map((movie) => ({ ...poster(movie), href: null })),
      more: Math.max(0, list.movieCount - movies.length),
    })),
  };

  /** A movie of the year's poster walls. */
  function poster(movie: YearReview['movies'][number]['movie']) {
    return {
      title: movie.title,
      href: linked ? movieCard(movie, { scale: owner.ratingScale }).href : null,
      poster: pageImageUrl(movie.posterPath),
      initial: [...movie.title][0] ?? '?',
    };
  }
}
