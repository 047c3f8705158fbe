import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { ListPageCache } from '../movies/list-cache.js';
import {
  HistoryAddBody,
  HistoryDeleteBody,
  HistoryPage,
  HistoryQuery,
  HistoryReplaceBody,
} from './history.schemas.js';
import type { HistoryService } from './history.service.js';

const PATH = '/users/:username/history/movies';
const common = { tags: ['history'], security: tokenSecurity, params: UsernameParams };
const writeResponses = { 204: NoContent, ...errorResponses };

export function historyRoutes(
  app: App,
  { guards, history, pages }: { guards: AuthGuards; history: HistoryService; pages: ListPageCache },
) {
  app.get(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        ...common,
        summary: "A user's dated watch entries, most recent first",
        querystring: HistoryQuery,
        response: { 200: HistoryPage, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { search, page = 1, limit = 24, sortOrder = 'desc' } = request.query;
      const query = { search, page, limit, sortOrder };
      const owner = request.owner!;
      return pages.send(reply, { list: 'history', owner, query }, async () => {
        const result = await history.list(owner, query);
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
        summary: 'Add plays to the given watch dates (created if needed)',
        body: HistoryAddBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await history.add(
        request.owner!,
        request.body.map((item) => ({
          movieId: item.serviceId,
          watchedAt: item.watchedAt,
          plays: item.plays ?? 1,
          comment: item.comment ?? null,
          position: item.position ?? 1,
        })),
      );
      return reply.code(204).send(null);
    },
  );

  app.put(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...common,
        summary: 'Create or replace plays, comment and position of the given watch dates',
        body: HistoryReplaceBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await history.replace(
        request.owner!,
        request.body.map((item) => ({
          movieId: item.serviceId,
          watchedAt: item.watchedAt,
          plays: item.plays,
          comment: item.comment ?? null,
          position: item.position ?? 1,
        })),
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
        summary: 'Delete the given watch dates; an item without watchedAt deletes all of that movie',
        body: HistoryDeleteBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await history.remove(
        request.owner!,
        request.body.map((item) => ({ movieId: item.serviceId, watchedAt: item.watchedAt })),
      );
      return reply.code(204).send(null);
    },
  );
}
