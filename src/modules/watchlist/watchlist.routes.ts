import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { ListPageCache } from '../movies/list-cache.js';
import { WatchlistBody, WatchlistPage, WatchlistQuery } from './watchlist.schemas.js';
import type { WatchlistService } from './watchlist.service.js';

const PATH = '/users/:username/watchlist/movies';
const common = { tags: ['watchlist'], security: tokenSecurity, params: UsernameParams };
const writeResponses = { 204: NoContent, ...errorResponses };

export function watchlistRoutes(
  app: App,
  { guards, watchlist, pages }: { guards: AuthGuards; watchlist: WatchlistService; pages: ListPageCache },
) {
  app.get(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        ...common,
        summary: "A user's watchlist, most recently added first",
        querystring: WatchlistQuery,
        response: { 200: WatchlistPage, ...errorResponses },
      },
    },
    async (request, reply) => {
      const {
        search,
        releaseYear,
        page = 1,
        limit = 24,
        sortBy = 'addedAt',
        sortOrder = 'desc',
      } = request.query;
      const query = { search, releaseYear, page, limit, sortBy, sortOrder };
      const owner = request.owner!;
      return pages.send(reply, { list: 'watchlist', owner, query }, async () => {
        const result = await watchlist.list(owner, query);
        return { watchlist: result.items, currentPage: result.currentPage, maxPage: result.maxPage };
      });
    },
  );

  app.post(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...common,
        summary: 'Add movies to the watchlist (one already there keeps its added date)',
        body: WatchlistBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await watchlist.add(
        request.owner!,
        request.body.map((item) => item.serviceId),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...common,
        summary: 'Remove movies from the watchlist (one not on it is ignored)',
        body: WatchlistBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await watchlist.remove(
        request.owner!,
        request.body.map((item) => item.serviceId),
      );
      return reply.code(204).send(null);
    },
  );
}
