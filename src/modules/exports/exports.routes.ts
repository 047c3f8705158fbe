import { Type } from 'typebox';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import type { ExportsService } from './export.service.js';
import { EXPORT_FORMATS, type ExportFormat } from './export.types.js';
import { sendExport } from './export-download.js';

const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Union(
      EXPORT_FORMATS.map((format) => Type.Literal(format)),
      {
        default: 'json',
        description:
          'json (cinelog, re-importable), movary (a zip of three CSVs) or letterboxd (a zip of the files of Letterboxd’s own export)',
      },
    ),
  ),
});

/** `GET /api/users/{username}/export`: everything of the caller's own library, as a download, streamed. */
export function exportRoutes(app: App, deps: { guards: AuthGuards; exports: ExportsService }) {
  const { guards, exports } = deps;
  app.get(
    '/users/:username/export',
    {
      // The owner alone: the export holds their settings, which no one else may read.
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        tags: ['exports'],
        security: tokenSecurity,
        params: UsernameParams,
        querystring: ExportQuery,
        summary: "Download everything of the user's library (the owner only): docs/imports-exports.md",
        response: { ...errorResponses },
      },
    },
    async (request, reply) => {
      const format = (request.query as { format?: ExportFormat }).format ?? 'json';
      return sendExport(reply, exports, request.owner!, format);
    },
  );
}
