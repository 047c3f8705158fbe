import type { Static, TSchema } from 'typebox';
import { type App, tokenSecurity } from '../../shared/http.js';
import type { Page } from '../../shared/pagination.js';
import { errorResponses, NoContent, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { Library, LibraryWriter, ListName, Lists } from './library.service.js';

// The API's routes over a user's library: every list GET and every write has the same checks
// (credential 401, user 404, permission 403, then the body or query 400) and answers.

/**
 * The API's GET of one of a user's lists: authentication, the owner's privacy, the query, and the page
 * from the library's page cache, serialised by the route's response schema.
 */
export function listRoute<L extends ListName>(
  app: App,
  deps: { guards: AuthGuards; library: Library },
  spec: {
    path: string;
    tag: string;
    summary: string;
    list: L;
    querystring: TSchema;
    response: TSchema;
    /** The page as the response schema shapes it. */
    body: (page: Page<Lists[L]['entry']>) => object;
  },
): void {
  const { guards, library } = deps;
  app.get(
    spec.path,
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        tags: [spec.tag],
        security: tokenSecurity,
        params: UsernameParams,
        summary: spec.summary,
        querystring: spec.querystring,
        response: { 200: spec.response, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = request.query as Lists[L]['query'];
      const body = await library.page(
        spec.list,
        request.owner!,
        query,
        (page) => reply.serialize(spec.body(page)) as string,
      );
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}

/**
 * A write of the API to a user's library: the owner alone may send it; `apply` turns the validated
 * body (and path parameters, when the path has more than the user name: `params`) into the library's
 * operations, in one library write (atomic: all of it or nothing). 204.
 */
export function writeRoute<S extends TSchema, P extends TSchema = typeof UsernameParams>(
  app: App,
  deps: { guards: AuthGuards; library: Library },
  spec: {
    method: 'POST' | 'PUT' | 'DELETE';
    path: string;
    tag: string;
    summary: string;
    body: S;
    params?: P;
    apply: (library: LibraryWriter, body: Static<S>, params: Static<P>) => Promise<unknown>;
  },
): void {
  const { guards, library } = deps;
  app.route({
    method: spec.method,
    url: spec.path,
    onRequest: [guards.authenticated, guards.canWrite],
    schema: {
      tags: [spec.tag],
      security: tokenSecurity,
      params: spec.params ?? UsernameParams,
      summary: spec.summary,
      body: spec.body,
      response: { 204: NoContent, ...errorResponses },
    },
    handler: async (request, reply) => {
      const body = request.body as Static<S>;
      const params = request.params as Static<P>;
      await library.write(request.owner!.id, (lib) => spec.apply(lib, body, params));
      return reply.code(204).send(null);
    },
  });
}
