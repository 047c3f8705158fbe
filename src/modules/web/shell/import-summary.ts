import type { GuessedRow, ImportSummary, UnmatchedRow } from '../../imports/import.service.js';
import { asSentence, formatDay, movieHref } from './format.js';

// An import's summary (added, already there, unmatched rows with "Find it", guesses) as the pages show
// it: the imports' status page and the media servers' backfill on Settings → Integrations.

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

/**
 * An import's summary as a page shows it (an import's status page, a backfill's last result); a summary
 * of an older version may lack some lists. `where` says where an unmatched row comes from.
 */
export function summaryView(
  summary: ImportSummary,
  where: (row: UnmatchedRow) => string = (row) => `${row.file}, line ${row.line}`,
) {
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
      where: where(row),
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
