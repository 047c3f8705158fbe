import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import { hasPublicProfile } from '../../users/users.service.js';
import { formatDay, hoursOf, movieHref, yearOf } from '../shell/format.js';
import type { Pages } from '../shell/render.js';
import { pageImageUrl, paginationView, ratingView } from '../shell/view-models.js';
import type { WebDeps } from '../web.deps.js';

const Params = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });
const Query = Type.Object({ page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })) });

/** The services these pages use. */
export type PublicProfileDeps = Pick<WebDeps, 'users' | 'library' | 'statistics' | 'clock'>;

/** `/u/{name}`: a read-only page of a user's history for anyone with the link, when they allow it. */
export function publicProfileRoutes(
  app: App,
  { render }: Pages,
  { users, library, statistics, clock }: PublicProfileDeps,
): void {
  app.get('/u/:name', { schema: { params: Params, querystring: Query } }, async (request, reply) => {
    const owner = await users.findByName(request.params.name);
    // Off, private or nobody: the same 404, so the page does not tell whether the account exists.
    if (!owner || !hasPublicProfile(owner)) throw notFound('UserNotFound', 'no public profile here');
    const page = Number(request.query.page ?? '1');
    const year = Number(todayOf(clock.now(), owner.timezone).slice(0, 4));
    // The totals are the all-time statistics' (as on the dashboard), this year's their year's.
    const [history, stats] = await Promise.all([
      library.cachedList('history', owner, { page, limit: 24 }),
      statistics.forUser(owner),
    ]);
    const { totals } = stats;
    const thisYear = stats.playsPerYear.find((entry) => entry.year === year);
    // Movie pages are for signed-in users; a stranger gets the titles without links.
    const linked = request.signedIn !== null;
    return render(request, reply, 'public-profile', {
      title: `${owner.name}'s movie diary`,
      owner: { name: owner.name },
      year,
      // Each year with a play has its year in review, shared as this page is.
      reviews: stats.playsPerYear
        .filter((entry) => entry.plays > 0)
        .map((entry) => ({
          year: entry.year,
          href: `/users/${encodeURIComponent(owner.name)}/year/${entry.year}`,
        }))
        .reverse(),
      allTime: { plays: totals.plays, movies: totals.movies, hours: hoursOf(totals.minutesWatched) },
      thisYear: { plays: thisYear?.plays ?? 0 },
      entries: history.items.map((entry) => ({
        title: entry.movie.title,
        href: linked ? movieHref(entry.movie.ids.service, entry.movie.title) : null,
        year: yearOf(entry.movie.releaseDate),
        poster: pageImageUrl(entry.movie.posterPath),
        date: entry.watchedAt,
        day: formatDay(entry.watchedAt),
        plays: entry.plays,
        comment: entry.comment,
        rating:
          entry.movie.userRating === null ? null : ratingView(entry.movie.userRating, owner.ratingScale),
      })),
      pagination: paginationView(`/u/${encodeURIComponent(owner.name)}`, {}, page, history.maxPage),
    });
  });
}
