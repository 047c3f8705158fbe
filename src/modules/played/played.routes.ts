import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { ListPageCache } from '../movies/list-cache.js';
import {
  PlayedAddBody,
  PlayedDeleteBody,
  PlayedPage,
  PlayedQuery,
  PlayedReplaceBody,
} from './played.schemas.js';
import type { PlayedService } from './played.service.js';

const PATH = '/users/:username/played/movies';
const common = { tags: ['played'], security: tokenSecurity, params: UsernameParams };
const writeResponses = { 204: NoContent, ...errorResponses };

export function playedRoutes(
  app: App,
  { guards, played, pages }: { guards: AuthGuards; played: PlayedService; pages: ListPageCache },
) {
  app.get(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        ...common,
        summary: 'Every movie a user has played, with all its watch dates; by title by default',
        querystring: PlayedQuery,
        response: { 200: PlayedPage, ...errorResponses },
      },
    },
    async (request, reply) => {
      const {
        search,
        releaseYear,
        page = 1,
        limit = 24,
        sortBy = 'title',
        sortOrder = 'asc',
      } = request.query;
      const query = { search, releaseYear, page, limit, sortBy, sortOrder };
      const owner = request.owner!;
      return pages.send(reply, { list: 'played', owner, query }, async () => {
        const result = await played.list(owner, query);
        return { played: result.items, currentPage: result.currentPage, maxPage: result.maxPage };
      });
    },
  );

  app.post(
    PATH,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...common,
        summary: 'Add plays to the given watch dates (created if needed; null is the unknown date)',
        body: PlayedAddBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await played.add(
        request.owner!,
        request.body.map((item) => ({
          movieId: item.serviceId,
          watchDates: item.watchDates.map((date) => ({
            watchedAt: date.watchedAt,
            plays: date.plays ?? 1,
            comment: date.comment ?? null,
          })),
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
        summary: 'Create or replace plays and comment of the given watch dates; other dates stay',
        body: PlayedReplaceBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await played.replace(
        request.owner!,
        request.body.map((item) => ({
          movieId: item.serviceId,
          watchDates: item.watchDates.map((date) => ({
            watchedAt: date.watchedAt,
            plays: date.plays,
            comment: date.comment ?? null,
          })),
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
        summary:
          'Delete the given watch dates; without (or with an empty) watchDates, every date of the movie',
        body: PlayedDeleteBody,
        response: writeResponses,
      },
    },
    async (request, reply) => {
      await played.remove(
        request.owner!,
        request.body.map((item) => ({ movieId: item.serviceId, watchDates: item.watchDates })),
      );
      return reply.code(204).send(null);
    },
  );
}
