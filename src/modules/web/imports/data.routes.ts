import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { EXPORT_FORMATS } from '../../exports/export.types.js';
import { sendExport } from '../../exports/export-download.js';
import { IMPORT_FORMATS, type ImportFormat } from '../../imports/import.types.js';
import { MAX_UPLOAD_BYTES, type ReceivedUpload } from '../../imports/import-uploads.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { dataPage, importView } from './data.page.js';
import { type UploadFormBody, uploadFormParser } from './upload-form.js';

const JobParams = Type.Object({ jobId: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });
const ExportQuery = Type.Object({
  format: Type.Union(EXPORT_FORMATS.map((format) => Type.Literal(format))),
});

/** The latest imports listed on the page. */
const RECENT_IMPORTS = 10;

/** A page's form fields besides the file: at most these many. */
const UPLOAD_FIELDS = 10;

/** The services these pages use. */
export type DataDeps = Pick<WebDeps, 'uploads' | 'exports'>;

/**
 * Settings → Import and export (`/settings/data`): upload another tracker's export (checked at once,
 * imported by a background job), its status page with a progress bar and the unmatched rows, and the
 * export downloads. The same import and export code as the API's (docs/imports-exports.md).
 */
export function dataRoutes(app: App, { render }: Pages, { uploads, exports }: DataDeps): void {
  const signedIn = { preHandler: requireSignIn };

  const showDataPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { error?: string; values?: { format: ImportFormat; dryRun: boolean } } = {},
    status = 200,
  ) => {
    const { user } = currentUser(request);
    const recent = await uploads.recent(user, RECENT_IMPORTS);
    return render(request, reply, 'data', dataPage(user, recent, data), status);
  };

  app.get('/settings/data', signedIn, (request, reply) => showDataPage(request, reply));

  // The upload: multipart, so in a scope of its own with its parser. The sign-in is checked before
  // the body is read; the body's `_csrf` field is then checked by the web app's preValidation hook.
  app.register(async (scope) => {
    scope.addContentTypeParser(
      'multipart/form-data',
      uploadFormParser<ReceivedUpload>(
        { fileBytes: MAX_UPLOAD_BYTES, fields: UPLOAD_FIELDS },
        (fields, name, stream) => {
          const format = IMPORT_FORMATS.find((choice) => choice === fields.format);
          return uploads.receive(format ?? 'movary', name, stream);
        },
        (file) => file.discard(),
      ),
    );
    // A file refused while it is read (past the size limit: 413; a body that breaks off: 400): the
    // form again with why, as for a bad file. Anything else (a failed CSRF check, a 5xx) is the web
    // app's error page.
    scope.setErrorHandler(async (error, request, reply) => {
      if (!(error instanceof AppError) || error.statusCode >= 500 || !request.signedIn) throw error;
      return showDataPage(
        request,
        reply,
        { error: `The file was not imported: ${error.message}.` },
        error.statusCode,
      );
    });
    // A received file the route did not hand to a job (a refused form, a failed CSRF check) goes.
    scope.addHook('onResponse', async (request) => {
      await ((request.body ?? {}) as UploadFormBody<ReceivedUpload>).file?.discard();
    });
    scope.post(
      '/settings/data/imports',
      {
        onRequest: [
          requireSignIn,
          // A user with imports waiting gets the page with why, before the body is read.
          async (request, reply) => {
            const refusal = await uploads.assertRoom(currentUser(request).user).then(
              () => null,
              (error: unknown) => {
                if (error instanceof AppError && error.statusCode === 429) return error.message;
                throw error;
              },
            );
            if (refusal)
              return showDataPage(request, reply, { error: `The file was not imported: ${refusal}.` }, 429);
          },
        ],
      },
      async (request, reply) => {
        const { user } = currentUser(request);
        const body = (request.body ?? {}) as UploadFormBody<ReceivedUpload>;
        const format = IMPORT_FORMATS.find((choice) => choice === body.format);
        const values = { format: format ?? 'movary', dryRun: body.dryRun === 'on' };
        const refused = (reason: string) =>
          showDataPage(request, reply, { error: `The file was not imported: ${reason}.`, values }, 400);
        if (!format) return refused('choose the format of the file');
        if (!body.file || body.file.bytes === 0) return refused('choose a file (it must not be empty)');
        let jobId: number;
        try {
          jobId = await uploads.queue(user, { format, file: body.file, dryRun: values.dryRun });
        } catch (error) {
          if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
          return refused(error.message);
        }
        return reply.redirect(`/settings/data/imports/${jobId}`, 303);
      },
    );
  });

  const findImport = async (request: FastifyRequest, jobId: string) => {
    const { user } = currentUser(request);
    const job = await uploads.find(user, Number(jobId));
    // Someone else's import reads exactly like one that does not exist.
    if (!job) throw notFound('RouteNotFound', 'You have no import with this number.');
    return importView(job, user.timezone);
  };

  app.get(
    '/settings/data/imports/:jobId',
    { ...signedIn, schema: { params: JobParams } },
    async (request, reply) => {
      const job = await findImport(request, request.params.jobId);
      return render(request, reply, 'import', {
        title: job.dryRun ? 'Import preview' : 'Import',
        job,
      });
    },
  );

  // The status part alone, which the page fetches every second (htmx) until the import is finished.
  app.get(
    '/settings/data/imports/:jobId/status',
    { ...signedIn, schema: { params: JobParams } },
    async (request, reply) => {
      const job = await findImport(request, request.params.jobId);
      return render(request, reply, '_import-status', { job });
    },
  );

  // A download changes nothing: a GET, streamed like the API's.
  app.get('/settings/data/export', { ...signedIn, schema: { querystring: ExportQuery } }, (request, reply) =>
    sendExport(reply, exports, currentUser(request).user, request.query.format),
  );
}
