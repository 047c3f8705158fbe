import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { AppError, badRequest, notFound } from '../../shared/errors.js';
import { type App, tokenSecurity } from '../../shared/http.js';
import { errorResponses, MAX_ID, UsernameParams } from '../../shared/schemas.js';
import type { AuthGuards } from '../auth/auth.guards.js';
import { IMPORT_FORMATS, type ImportFormat } from './import.types.js';
import { type ImportUploads, MAX_UPLOAD_BYTES } from './import-uploads.js';

const ImportQuery = Type.Object({
  format: Type.Union(
    IMPORT_FORMATS.map((format) => Type.Literal(format)),
    { description: 'the export the body is' },
  ),
  dryRun: Type.Optional(Type.Boolean({ default: false, description: 'only count what would be added' })),
  filename: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$',
      description:
        "the file's name, for a single file whose name matters (Letterboxd's diary.csv); a .zip needs none",
    }),
  ),
});

const ImportParams = Type.Object({
  ...UsernameParams.properties,
  jobId: Type.Integer({ minimum: 1, maximum: MAX_ID }),
});

const ImportJob = Type.Object({
  jobId: Type.Integer(),
  state: Type.Union([
    Type.Literal('queued'),
    Type.Literal('running'),
    Type.Literal('done'),
    Type.Literal('failed'),
  ]),
  progress: Type.Union([
    Type.Null(),
    Type.Object({ done: Type.Integer(), total: Type.Union([Type.Integer(), Type.Null()]) }),
  ]),
  dryRun: Type.Boolean(),
  summary: Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })], {
    description:
      'once done: added, existing, unmatched, per kind; the unmatched rows with why (the first 500); what was skipped; the rows matched by a guess (the first 500)',
  }),
  error: Type.Union([Type.Null(), Type.String()]),
});

/**
 * `POST /api/users/{username}/imports?format=…`: the export file as the body (a .zip, a CSV or a JSON
 * file, up to 32 MB), streamed to disk, checked at once (a bad file is a 400 and nothing is queued),
 * then imported by a background job (202 with its id); `GET …/imports/{jobId}`: its state, progress and
 * summary. The owner alone. A scope of its own: the body is a stream of bytes, whatever its type.
 */
export function importRoutes(app: App, deps: { guards: AuthGuards; uploads: ImportUploads }) {
  const { guards, uploads } = deps;
  app.removeAllContentTypeParsers();
  // The body is left a stream: the route writes it to disk as it arrives, never whole in memory.
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/users/:username/imports',
    {
      onRequest: [
        guards.authenticated,
        guards.canWrite,
        // Refused before the body is read: a declared size past the limit, a user with imports waiting.
        async (request) => {
          if (Number(request.headers['content-length'] ?? 0) > MAX_UPLOAD_BYTES) {
            throw new AppError(
              413,
              'PayloadTooLarge',
              `the file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`,
            );
          }
          await uploads.assertRoom(request.owner!);
        },
      ],
      schema: {
        tags: ['imports'],
        security: tokenSecurity,
        params: UsernameParams,
        querystring: ImportQuery,
        body: Type.Unsafe<Readable>({
          description:
            'the export file: a .zip, a CSV or a JSON file, as bytes of any content type; at most 32 MB',
        }),
        summary: "Import another tracker's export into the user's library, as a background job",
        response: { 202: Type.Object({ jobId: Type.Integer() }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { format, dryRun, filename } = request.query as {
        format: ImportFormat;
        dryRun?: boolean;
        filename?: string;
      };
      const body = request.body as Readable | undefined;
      if (!body || typeof body.pipe !== 'function') {
        throw badRequest('InvalidRequestBody', 'send the export file as the request body');
      }
      const file = await uploads.receive(format, filename, body);
      const jobId = await uploads.queue(request.owner!, { format, file, dryRun: dryRun === true });
      return reply.code(202).send({ jobId });
    },
  );

  app.get(
    '/users/:username/imports/:jobId',
    {
      onRequest: [guards.authenticated, guards.canWrite],
      schema: {
        tags: ['imports'],
        security: tokenSecurity,
        params: ImportParams,
        summary: 'The state, progress and summary of an import',
        response: { 200: ImportJob, ...errorResponses },
      },
    },
    async (request) => {
      const { jobId } = request.params as { jobId: number };
      const job = await uploads.find(request.owner!, jobId);
      if (!job) throw notFound('ImportNotFound', `no import ${jobId} of ${request.owner!.name}`);
      const { jobId: id, state, progress, dryRun, summary, error } = job;
      return { jobId: id, state, progress, dryRun, summary, error };
    },
  );
}
