import { Type } from 'typebox';
import { notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { todayOf } from '../../library/library.rules.js';
import { hasPublicProfile } from '../../users/users.service.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { publicProfilePage } from './history.page.js';

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
    // The lists anyone may read (library.rules.ts mayReadList with no reader): the public ones.
    const [diary, stats, lists] = await Promise.all([
      library.cachedList('diary', owner, { page, limit: 24 }),
      statistics.forUser(owner),
      library.lists(owner, null),
    ]);
    // Movie pages are for signed-in users; a stranger gets the titles without links.
    const linked = request.signedIn !== null;
    return render(
      request,
      reply,
      'public-profile',
      publicProfilePage(owner, { year, page, linked }, diary, stats, lists),
    );
  });
}
