import type { Static } from 'typebox';
import { notFound } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { listRoute, writeRoute } from '../library/library.routes.js';
import type { Library } from '../library/library.service.js';
import {
  DiaryChangeBody,
  DiaryEntry,
  DiaryEntryParams,
  DiaryLogBody,
  DiaryPage,
  DiaryQuery,
  TagsPage,
} from './diary.schemas.js';

const route = { path: '/users/:username/diary', tag: 'diary' };

/**
 * The diary (issue 30): a user's watch dates as entries with their own rating, rewatch flag and tags,
 * and their tags. Our own endpoints, with the access rules of the spec's history.
 */
export function diaryRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  const { guards, library } = deps;

  listRoute(app, deps, {
    ...route,
    summary: "A user's diary: dated entries with their own rating, rewatch flag and tags, newest first",
    list: 'diary',
    querystring: DiaryQuery,
    response: DiaryPage,
    body: (page) => ({ diary: page.items, currentPage: page.currentPage, maxPage: page.maxPage }),
  });

  writeRoute(app, deps, {
    ...route,
    method: 'POST',
    summary:
      'Log plays: add them to the (movie, date) entries, with their rating (also the movie’s), rewatch and tags',
    body: DiaryLogBody,
    apply: (lib, items) =>
      lib.logEntries(
        items.map((item) => ({
          movieId: item.serviceId,
          watchedAt: item.watchedAt,
          plays: item.plays ?? 1,
          comment: item.comment ?? null,
          rating: item.rating,
          rewatch: item.rewatch,
          tags: item.tags,
        })),
      ),
  });

  const entryRoute = { tags: ['diary'], security: tokenSecurity, params: DiaryEntryParams };

  app.patch(
    `${route.path}/:id`,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...entryRoute,
        summary: "Change a diary entry (its rating is the entry's alone: the movie's rating stays)",
        body: DiaryChangeBody,
        response: { 200: DiaryEntry, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof DiaryEntryParams>;
      const change = request.body as Static<typeof DiaryChangeBody>;
      const owner = request.owner!;
      await library.write(owner.id, (lib) => lib.editDiaryEntry(id, change));
      const entry = await library.diaryEntry(owner, id);
      if (entry === undefined) throw notFound('EntryNotFound', `no diary entry ${id}`);
      return entry;
    },
  );

  app.delete(
    `${route.path}/:id`,
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        ...entryRoute,
        summary: 'Delete a diary entry (its plays, comment, rating and tags)',
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof DiaryEntryParams>;
      await library.write(request.owner!.id, (lib) => lib.deleteDiaryEntry(id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/users/:username/tags',
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        tags: ['tags'],
        security: tokenSecurity,
        params: UsernameParams,
        summary: "A user's diary tags, with how many entries have each, most used first",
        response: { 200: TagsPage, ...errorResponses },
      },
    },
    async (request) => ({ tags: await library.tags(request.owner!) }),
  );
}
