import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { EXPORT_FORMATS } from '../../exports/export.types.js';
import { sendExport } from '../../exports/export-download.js';
import type { GuessedRow, ImportSummary, UnmatchedRow } from '../../imports/import.service.js';
import { IMPORT_FORMATS, type ImportFormat } from '../../imports/import.types.js';
import {
  type ImportJobView,
  MAX_PENDING_IMPORTS,
  MAX_UPLOAD_BYTES,
  type ReceivedUpload,
} from '../../imports/import-uploads.js';
import { asSentence, formatDateTime, formatDay, movieHref } from '../shell/format.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import type { WebDeps } from '../web.deps.js';
import { type UploadFormBody, uploadFormParser } from './upload-form.js';

const FORMAT_CHOICES: { value: ImportFormat; label: string; files: string }[] = [
  {
    value: 'movary',
    label: 'Movary',
    files: 'history.csv, ratings.csv or watchlist.csv, or a .zip of them',
  },
  {
    value: 'letterboxd',
    label: 'Letterboxd',
    files:
      'the whole export .zip, folders and all (only its top-level files are imported; likes and lists are counted as skipped), or one of its CSV files (diary.csv, …)',
  },
  {
    value: 'trakt',
    label: 'Trakt',
    files:
      'the export .zip, or one of its .json files (watched history, ratings, watchlist); only the watchlist file goes onto the watchlist, custom lists and favourites are counted as skipped',
  },
  {
    value: 'imdb',
    label: 'IMDb',
    files: 'the ratings, watchlist or list CSVs (TV episodes and series are counted as skipped)',
  },
  {
    value: 'tvtime',
    label: 'TV Time',
    files: 'the TV Time data export: tracking-prod-records.csv, or the .zip it came in (movies only)',
  },
  {
    value: 'netflix',
    label: 'Netflix',
    files:
      'NetflixViewingHistory.csv (Account → Profile → Viewing activity → Download all); movies only, matched by title, so check the guesses',
  },
  { value: 'cinelog', label: 'cinelog', files: 'a cinelog JSON export' },
];
const LABELS = Object.fromEntries(FORMAT_CHOICES.map((choice) => [choice.value, choice.label]));

const EXPORT_CHOICES = [
  { format: 'json', label: 'cinelog JSON', what: 'everything you keep, to import into cinelog again' },
  { format: 'movary', label: 'Movary', what: 'history, ratings and watchlist: three CSVs in a .zip' },
  { format: 'letterboxd', label: 'Letterboxd', what: "one CSV for Letterboxd's importer (no watchlist)" },
] as const;

const JobParams = Type.Object({ jobId: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });
const ExportQuery = Type.Object({
  format: Type.Union(EXPORT_FORMATS.map((format) => Type.Literal(format))),
});

/** The latest imports listed on the page. */
const RECENT_IMPORTS = 10;

/** A page's form fields besides the file: at most these many. */
const UPLOAD_FIELDS = 10;

/** What a row stands for, in words: "a play on 1 Apr 2023". */
function rowWhat(row: UnmatchedRow): string {
  if (row.kind === 'unreadable') return 'a row that cannot be read';
  if (row.kind === 'play') return row.watchedAt ? `a play on ${formatDay(row.watchedAt)}` : 'a play, no date';
  if (row.kind === 'watched') return 'watched, no date';
  if (row.kind === 'rating') return row.rating === undefined ? 'a rating' : `a rating of ${row.rating}/10`;
  return 'a watchlist entry';
}

/** What the log form is to start with for the row (log.routes.ts): the play's date, the rating. */
function prefillOf(row: UnmatchedRow): Record<string, string> {
  if (row.kind === 'play') return row.watchedAt ? { date: row.watchedAt } : { unknownDate: 'on' };
  if (row.kind === 'watched') return { unknownDate: 'on' };
  // A rating says the movie was seen, not when: a play on an unknown date with the rating.
  if (row.kind === 'rating') return { unknownDate: 'on', ...(row.rating && { rating: String(row.rating) }) };
  // A watchlist entry, or a row that cannot be read: nothing known to fill in.
  return {};
}

/** Why an unmatched row was left out, as a sentence; an unreadable row's "cannot be read" is its What. */
function reasonOf(row: UnmatchedRow): string {
  // A summary kept by a version before reasons: every row was one no movie matched.
  const reason = row.reason ?? 'no movie matches it';
  // What cannot be read is said in the file's own words ("Const is …"): kept as it is.
  return row.kind === 'unreadable' ? `${reason.replace(/^cannot be read: /, '')}.` : asSentence(reason);
}

const GUESS_KINDS: Record<GuessedRow['kind'], string> = {
  play: 'a play',
  watched: 'watched',
  rating: 'a rating',
  watchlist: 'a watchlist entry',
};

const GUESS_WHY: Record<GuessedRow['why'], string> = {
  'year ±1': 'same title, the year one off',
  'title only': 'same title (the file gives no year)',
};

/** A title and its year as a page shows them: "Loving (2016)". */
const titled = (title: string | null, year: number | null) =>
  `${title ?? '(no title)'}${year ? ` (${year})` : ''}`;

/** Where a guess's movie is: its page here, or (a preview: not stored yet) its page on TMDB. */
function guessedMovieHref(movie: GuessedRow['movie']): { href: string; external: boolean } | null {
  if (movie.serviceId !== null) return { href: movieHref(movie.serviceId, movie.title), external: false };
  if (movie.tmdbId !== null)
    return { href: `https://www.themoviedb.org/movie/${movie.tmdbId}`, external: true };
  return null;
}

const searchHref = (title: string | null, prefill: Record<string, string> = {}) =>
  title ? `/search?${new URLSearchParams({ q: title, ...prefill })}` : null;

/** The summary's lists as the status page shows them; a summary of an older version may lack some. */
function summaryView(summary: ImportSummary) {
  const unmatchedRows = summary.unmatchedRows ?? [];
  const guesses = summary.guesses ?? [];
  const guessed = summary.guessed ?? guesses.length;
  const skipped = (summary.skipped ?? []).filter((item) => item.count > 0);
  return {
    added: summary.added,
    existing: summary.existing,
    unmatched: summary.unmatched,
    guessed,
    kinds: [
      { label: 'Plays', ...summary.plays },
      { label: 'Watchlist entries', ...summary.watchlist },
      { label: 'Ratings', ...summary.ratings },
    ],
    settingsApplied: summary.settingsApplied,
    rows: unmatchedRows.map((row) => ({
      where: `${row.file}, line ${row.line}`,
      what: rowWhat(row),
      why: reasonOf(row),
      unreadable: row.kind === 'unreadable',
      title: row.title,
      year: row.year,
      ids: row.ids,
      searchHref: searchHref(row.title, prefillOf(row)),
    })),
    more: Math.max(summary.unmatched - unmatchedRows.length, 0),
    guesses: guesses.map((guess) => ({
      where: `${guess.file}, line ${guess.line}`,
      what: GUESS_KINDS[guess.kind] ?? guess.kind,
      inFile: titled(guess.title, guess.year),
      movie: { text: titled(guess.movie.title, guess.movie.year), link: guessedMovieHref(guess.movie) },
      why: GUESS_WHY[guess.why] ?? guess.why,
      searchHref: searchHref(guess.title),
    })),
    moreGuesses: Math.max(guessed - guesses.length, 0),
    skipped: skipped.map((item) => `${item.count} ${item.what}`),
  };
}

/** The import as its status page shows it. */
function importView(job: ImportJobView, timeZone: string) {
  const summary = job.summary && job.summary.error === undefined ? job.summary : null;
  const failed = job.state === 'failed' || (job.state === 'done' && summary === null);
  const finished = job.state === 'done' || job.state === 'failed';
  const progress = job.progress;
  const state = failed
    ? 'Failed'
    : job.state === 'queued'
      ? job.error
        ? 'Waiting to try again'
        : 'Waiting to start'
      : job.state === 'running'
        ? 'Looking up movies'
        : job.dryRun
          ? 'Preview ready'
          : 'Done';
  return {
    id: job.jobId,
    format: LABELS[job.format] ?? job.format,
    dryRun: job.dryRun,
    started: formatDateTime(job.createdAt, timeZone),
    state,
    finished,
    failed,
    error: failed ? (job.error ?? job.summary?.error ?? 'the import stopped') : job.error,
    progress: {
      value: finished && !failed ? 1 : progress?.total ? progress.done : null,
      max: finished && !failed ? 1 : (progress?.total ?? null),
      text:
        finished && !failed
          ? 'All movies looked up.'
          : progress?.total
            ? `${progress.done} of ${progress.total} movies looked up.`
            : job.state === 'queued'
              ? 'The import starts in a moment.'
              : 'Reading the file…',
    },
    summary: summary && summaryView(summary),
  };
}

/** The services these pages use. */
export type DataDeps = Pick<WebDeps, 'uploads' | 'exports'>;

/**
 * Settings → Import and export (`/settings/data`): upload another tracker's export (checked at once,
 * imported by a background job), its status page with a progress bar and the unmatched rows, and the
 * export downloads. The same import and export code as the API's (docs/imports-exports.md).
 */
export function dataRoutes(app: App, { render }: Pages, { uploads, exports }: DataDeps): void {
  const signedIn = { preHandler: requireSignIn };

  const dataPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { error?: string; values?: { format: ImportFormat; dryRun: boolean } } = {},
    status = 200,
  ) => {
    const { user } = currentUser(request);
    const recent = (await uploads.recent(user, RECENT_IMPORTS)).map((job) => {
      const view = importView(job, user.timezone);
      return {
        href: `/settings/data/imports/${view.id}`,
        started: view.started,
        format: view.format,
        dryRun: view.dryRun,
        state: view.state,
        counts: view.summary
          ? `${view.summary.added} ${view.dryRun ? 'would be added' : 'added'}, ${view.summary.existing} already there, ${view.summary.unmatched} unmatched${view.summary.guessed > 0 ? `, ${view.summary.guessed} to review` : ''}`
          : null,
      };
    });
    return render(
      request,
      reply,
      'data',
      {
        title: 'Import and export',
        formats: FORMAT_CHOICES,
        exports: EXPORT_CHOICES,
        maxMegabytes: MAX_UPLOAD_BYTES / 1024 / 1024,
        maxPending: MAX_PENDING_IMPORTS,
        values: data.values ?? { format: 'movary', dryRun: false },
        error: data.error ?? null,
        recent,
      },
      status,
    );
  };

  app.get('/settings/data', signedIn, (request, reply) => dataPage(request, reply));

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
      return dataPage(
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
              return dataPage(request, reply, { error: `The file was not imported: ${refusal}.` }, 429);
          },
        ],
      },
      async (request, reply) => {
        const { user } = currentUser(request);
        const body = (request.body ?? {}) as UploadFormBody<ReceivedUpload>;
        const format = IMPORT_FORMATS.find((choice) => choice === body.format);
        const values = { format: format ?? 'movary', dryRun: body.dryRun === 'on' };
        const refused = (reason: string) =>
          dataPage(request, reply, { error: `The file was not imported: ${reason}.`, values }, 400);
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
