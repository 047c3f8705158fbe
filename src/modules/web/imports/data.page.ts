import type { ImportFormat } from '../../imports/import.types.js';
import { type ImportJobView, MAX_PENDING_IMPORTS, MAX_UPLOAD_BYTES } from '../../imports/import-uploads.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';
import { summaryView } from '../shell/import-summary.js';

// Settings → Import and export: the page with its upload form and the recent imports, and an import's
// status (progress, what it added, the rows it could not match). Pure: the import jobs in, the
// templates' data out.

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
  {
    format: 'letterboxd',
    label: 'Letterboxd',
    what: "Letterboxd's own export layout in a .zip: diary, reviews, watched, ratings, watchlist, likes and lists",
  },
] as const;

/** The import as its status page shows it (and, in short, the list of recent imports). */
export function importView(job: ImportJobView, timeZone: string) {
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

/**
 * `/settings/data` for `user`: the upload form (`values` and `error` of a refused upload), the export
 * downloads and the recent imports, with their times in the user's time zone.
 */
export function dataPage(
  user: User,
  recent: ImportJobView[],
  data: { error?: string; values?: { format: ImportFormat; dryRun: boolean } } = {},
) {
  return {
    title: 'Import and export',
    formats: FORMAT_CHOICES,
    exports: EXPORT_CHOICES,
    maxMegabytes: MAX_UPLOAD_BYTES / 1024 / 1024,
    maxPending: MAX_PENDING_IMPORTS,
    values: data.values ?? { format: 'movary', dryRun: false },
    error: data.error ?? null,
    recent: recent.map((job) => {
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
    }),
  };
}
