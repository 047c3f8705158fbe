import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import type { Statistics } from '../../statistics/statistics.service.js';
import { hasPublicProfile } from '../../users/users.service.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { statisticsPage, yearReviewPage } from './statistics.page.js';

const Year = Type.String({ pattern: '^(18[7-9][0-9]|19[0-9]{2}|2[0-9]{3})$' });
const StatisticsQuery = Type.Object({ year: Type.Optional(Year) });
const ReviewParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), year: Year });

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
        data: () =>
          statisticsPage(user, { year, thisYear }, parsed(statsBytes), allTimeBytes && parsed(allTimeBytes)),
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
      yearReview.forUser(owner, year, request.signedIn?.user.id ?? null),
    ]);
    // Movie pages are for signed-in users; a stranger gets the titles without links.
    const linked = request.signedIn !== null;
    return render(
      request,
      reply,
      'year-review',
      yearReviewPage(owner, { year, isOwner, linked }, stats, review),
    );
  });
}

const parsed = (bytes: Buffer): Statistics => JSON.parse(bytes.toString('utf8')) as Statistics;
