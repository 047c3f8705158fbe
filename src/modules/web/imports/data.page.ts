import type { GuessedRow, ImportSummary, UnmatchedRow } from '../../imports/import.service.js';
import type { ImportFormat } from '../../imports/import.types.js';
import { type ImportJobView, MAX_PENDING_IMPORTS, MAX_UPLOAD_BYTES } from '../../imports/import-uploads.js';
import type { User } from '../../users/users.service.js';
import { asSentence, formatDateTime, formatDay, movieHref } from '../shell/format.js';

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

/** What a row stands for, in words: "a play on 1 Apr 2023". */
function rowWhat(row: UnmatchedRow): string {
  if (row.kind === 'unreadable') return 'a row that cannot be read';
  if (row.kind === 'play') return row.watchedAt ? `a play on ${formatDay(row.watchedAt)}` : 'a play, no date';
  if (row.kind === 'watched') return 'watched, no date';
  if (row.kind === 'rating') return row.rating === undefined ? 'a rating' : `a rating of ${row.rating}/10`;
  if (row.kind === 'like') return 'a like';
  if (row.kind === 'list-movie') return 'a movie on a list';
  return 'a watchlist entry';
}

/** What the log form is to start with for the row (history/log.routes.ts): the play's date, the rating. */
function rowPrefill(row: UnmatchedRow): Record<string, string> {
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
  like: 'a like',
  'list-movie': 'a movie on a list',
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
      // Shown when the file had any (summaries before them lack them).
      ...[
        { label: 'Diary entries described', ...summary.diary },
        { label: 'Likes', ...summary.likes },
        { label: 'Lists', ...summary.lists },
      ].flatMap(({ label, added = 0, existing = 0 }) =>
        added + existing > 0 ? [{ label, added, existing }] : [],
      ),
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
      searchHref: searchHref(row.title, rowPrefill(row)),
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
