import { Type } from 'typebox';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses } from '../../shared/schemas.js';
import type { AuthGuards } from './auth.guards.js';

const TokenCheckResponse = Type.Object({
  user: Type.Object({
    name: Type.String(),
    id: Type.Integer(),
    isAdmin: Type.Boolean(),
  }),
});

export function authRoutes(app: App, { guards }: { guards: AuthGuards }) {
  app.get(
    '/authentication/token',
    {
      onRequest: guards.authenticated,
      schema: {
        tags: ['authentication'],
        summary: 'The user the supplied personal API token belongs to',
        security: tokenSecurity,
        response: { 200: TokenCheckResponse, 401: errorResponses[401] },
      },
    },
    async (request) => {
      const caller = request.caller!;
      return { user: { name: caller.name, id: caller.userId, isAdmin: caller.isAdmin } };
    },
  );
}
