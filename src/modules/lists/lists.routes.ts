import type { Static } from 'typebox';
import { notFound } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { writeRoute } from '../library/library.routes.js';
import type { Library, ListWithMovies as ListRead } from '../library/library.service.js';
import {
  ChangeListBody,
  CreateListBody,
  ListMoviesDeleteBody,
  ListMoviesPutBody,
  ListParams,
  ListQuery,
  ListSummary,
  ListsResponse,
  ListWithMovies,
} from './lists.schemas.js';

const tag = 'lists';
const lists = '/users/:username/lists';
const one = '/users/:username/lists/:id';

const listNotFound = (id: number) => notFound('ListNotFound', `no list ${id}`);

/** The body of a list read: the list, its page of movies and the paging. */
const listBody = (list: ListRead) => {
  const { movies, ...summary } = list;
  return { ...summary, movies: movies.items, currentPage: movies.currentPage, maxPage: movies.maxPage };
};

/**
 * A user's lists of movies: our own endpoints. Reads follow the owner's privacy (403, as the history's)
 * and then each list's visibility: a list the caller may not read is a 404, like one that does not
 * exist. Writes are the owner's alone (403), in one library write each.
 */
export function listsRoutes(app: App, deps: { guards: AuthGuards; library: Library }) {
  const { guards, library } = deps;
  const read = { onRequest: [guards.authenticated, guards.canRead] };
  const write = { onRequest: [guards.authenticated, guards.canWrite] };

  app.get(
    lists,
    {
      ...read,
      schema: {
        tags: [tag],
        security: tokenSecurity,
        summary: "A user's lists that the caller may read, the most recently changed first",
        params: UsernameParams,
        response: { 200: ListsResponse, ...errorResponses },
      },
    },
    async (request) => ({ lists: await library.lists(request.owner!, request.caller!.userId) }),
  );

  app.post(
    lists,
    {
      ...write,
      schema: {
        tags: [tag],
        security: tokenSecurity,
        summary: 'Create a list (private and not ranked unless said otherwise)',
        params: UsernameParams,
        body: CreateListBody,
        response: { 201: ListSummary, ...errorResponses },
      },
    },
    async (request, reply) => {
      const list = await library.write(request.owner!.id, (lib) => lib.createList(request.body));
      return reply.code(201).send(list);
    },
  );

  app.get(
    one,
    {
      ...read,
      schema: {
        tags: [tag],
        security: tokenSecurity,
        summary: 'A list with a page of its movies, in position order',
        params: ListParams,
        querystring: ListQuery,
        response: { 200: ListWithMovies, ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.params;
      const list = await library.listWithMovies(request.owner!, id, request.caller!.userId, request.query);
      if (!list) throw listNotFound(id);
      return listBody(list);
    },
  );

  app.patch(
    one,
    {
      ...write,
      schema: {
        tags: [tag],
        security: tokenSecurity,
        summary: "Change a list's name, description, ranking or visibility",
        params: ListParams,
        body: ChangeListBody,
        response: { 200: ListSummary, ...errorResponses },
      },
    },
    async (request) =>
      library.write(request.owner!.id, (lib) => lib.changeList(request.params.id, request.body)),
  );

  app.delete(
    one,
    {
      ...write,
      schema: {
        tags: [tag],
        security: tokenSecurity,
        summary: 'Delete a list and its movies',
        params: ListParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      await library.write(request.owner!.id, (lib) => lib.deleteList(request.params.id));
      return reply.code(204).send(null);
    },
  );

  writeRoute(app, deps, {
    method: 'PUT',
    path: `${one}/movies`,
    tag,
    summary: 'Add movies to a list or move them on it (positions stay 1..n)',
    params: ListParams,
    body: ListMoviesPutBody,
    apply: (lib, items, params: Static<typeof ListParams>) =>
      lib.putListMovies(
        params.id,
        items.map((item) => ({ movieId: item.serviceId, position: item.position, note: item.note })),
      ),
  });

  writeRoute(app, deps, {
    method: 'DELETE',
    path: `${one}/movies`,
    tag,
    summary: 'Take movies off a list (the rest close up; a movie not on it is no error)',
    params: ListParams,
    body: ListMoviesDeleteBody,
    apply: (lib, items, params: Static<typeof ListParams>) =>
      lib.removeListMovies(
        params.id,
        items.map((item) => item.serviceId),
      ),
  });
}
