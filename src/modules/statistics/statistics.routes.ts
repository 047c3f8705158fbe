import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { SCOPE, StatisticsQuery, StatisticsResponse } from './statistics.schemas.js';
import type { StatisticsService } from './statistics.service.js';

/**
 * `GET /users/{username}/statistics`: our own endpoint (issue 20), with the access rules of the spec's
 * list GETs (credential 401, user 404, privacy 403, then the query 400).
 */
export function statisticsRoutes(app: App, deps: { guards: AuthGuards; statistics: StatisticsService }) {
  const { guards, statistics } = deps;
  app.get(
    '/users/:username/statistics',
    {
      onRequest: [guards.authenticated, guards.canRead],
      schema: {
        tags: ['statistics'],
        security: tokenSecurity,
        params: UsernameParams,
        summary: "A user's statistics: totals, plays per year, month and weekday, ratings, top lists, streak",
        description: SCOPE,
        querystring: StatisticsQuery,
        response: { 200: StatisticsResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      // The cached bytes as they are (a Buffer is sent unserialised): the service builds exactly the
      // response schema's object (statistics.test.ts checks every answer against the schema).
      const body = await statistics.json(request.owner!, { year: request.query.year });
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
}
