import { describe, expect, it } from 'vitest';
import { aUser } from '../../../../test/page-fixtures.js';
import type { ImportSummary } from '../../imports/import.service.js';
import type { ImportJobView } from '../../imports/import-uploads.js';
import { dataPage, importView } from './data.page.js';

// The import and export page's builders, called with the import jobs as the uploads hand them: no
// database, no job runner, no HTTP.

const summary = (overrides: Partial<ImportSummary> = {}): ImportSummary => ({
  dryRun: false,
  added: 5,
  existing: 2,
  unmatched: 3,
  plays: { added: 4, existing: 2 },
  watchlist: { added: 1, existing: 0 },
  ratings: { added: 0, existing: 0 },
  unmatchedRows: [],
  skipped: [],
  guessed: 0,
  guesses: [],
  settingsApplied: false,
  ...overrides,
});
const job = (overrides: Partial<ImportJobView> = {}): ImportJobView => ({
  jobId: 42,
  state: 'done',
  progress: { done: 10, total: 10 },
  dryRun: false,
  format: 'letterboxd',
  createdAt: '2024-06-15T12:00:00.000Z',
  summary: summary(),
  error: null,
  ...overrides,
});

describe("an import's status", () => {
  it('says where a running import is, in words and as a progress bar', () => {
    expect(importView(job({ state: 'queued', progress: null, summary: null }), 'UTC')).toMatchObject({
      state: 'Waiting to start',
      finished: false,
      progress: { value: null, max: null, text: 'The import starts in a moment.' },
    });
    expect(
      importView(job({ state: 'running', progress: { done: 3, total: 8 }, summary: null }), 'UTC'),
    ).toMatchObject({
      state: 'Looking up movies',
      progress: { value: 3, max: 8, text: '3 of 8 movies looked up.' },
    });
    expect(
      importView(job({ state: 'queued', progress: null, summary: null, error: 'TMDB timed out' }), 'UTC')
        .state,
    ).toBe('Waiting to try again');
  });

  it("shows a finished import's counts in the user's time zone, and a failed one's reason", () => {
    const done = importView(job(), 'Europe/Berlin');
    expect(done).toMatchObject({
      id: 42,
      format: 'Letterboxd',
      started: '15 Jun 2024, 14:00',
      state: 'Done',
      failed: false,
      progress: { value: 1, max: 1, text: 'All movies looked up.' },
      summary: { added: 5, existing: 2, unmatched: 3, guessed: 0 },
    });
    expect(done.summary?.kinds).toEqual([
      { label: 'Plays', added: 4, existing: 2 },
      { label: 'Watchlist entries', added: 1, existing: 0 },
      { label: 'Ratings', added: 0, existing: 0 },
    ]);
    expect(importView(job({ dryRun: true }), 'UTC').state).toBe('Preview ready');
    const failed = importView(job({ state: 'failed', summary: null, error: 'the file is gone' }), 'UTC');
    expect(failed).toMatchObject({ state: 'Failed', failed: true, error: 'the file is gone', summary: null });
  });

  it('lists the rows it could not match with why, and a search that fills in the play', () => {
    const rows = summary({
      unmatched: 4,
      unmatchedRows: [
        {
          file: 'diary.csv',
          line: 3,
          kind: 'play',
          title: 'Heat',
          year: 1995,
          ids: '',
          reason: 'no movie matches it',
          watchedAt: '2023-04-01',
        },
        {
          file: 'ratings.csv',
          line: 9,
          kind: 'rating',
          title: 'Thief',
          year: null,
          ids: 'imdb tt1',
          reason: 'no movie matches it',
          rating: 8,
        },
        {
          file: 'diary.csv',
          line: 12,
          kind: 'unreadable',
          title: null,
          year: null,
          ids: '',
          reason: 'cannot be read: Date is not a date',
        },
      ],
      skipped: [
        { what: 'likes', count: 2 },
        { what: 'lists', count: 0 },
      ],
    });
    const view = importView(job({ summary: rows }), 'UTC').summary!;
    expect(view.rows).toEqual([
      {
        where: 'diary.csv, line 3',
        what: 'a play on 1 Apr 2023',
        why: 'No movie matches it.',
        unreadable: false,
        title: 'Heat',
        year: 1995,
        ids: '',
        searchHref: '/search?q=Heat&date=2023-04-01',
      },
      {
        where: 'ratings.csv, line 9',
        what: 'a rating of 8/10',
        why: 'No movie matches it.',
        unreadable: false,
        title: 'Thief',
        year: null,
        ids: 'imdb tt1',
        searchHref: '/search?q=Thief&unknownDate=on&rating=8',
      },
      {
        where: 'diary.csv, line 12',
        what: 'a row that cannot be read',
        why: 'Date is not a date.',
        unreadable: true,
        title: null,
        year: null,
        ids: '',
        searchHref: null,
      },
    ]);
    expect(view.more).toBe(1);
    expect(view.skipped).toEqual(['2 likes']);
  });

  it('lists the guesses, linking the movie here or, in a preview, on TMDB', () => {
    const guesses = summary({
      guessed: 3,
      guesses: [
        {
          file: 'a.csv',
          line: 2,
          kind: 'play',
          title: 'Loving',
          year: 2015,
          why: 'year ±1',
          movie: { title: 'Loving', year: 2016, serviceId: 9, tmdbId: 339419 },
        },
        {
          file: 'a.csv',
          line: 5,
          kind: 'rating',
          title: 'Heat',
          year: null,
          why: 'title only',
          movie: { title: 'Heat', year: 1995, serviceId: null, tmdbId: 949 },
        },
      ],
    });
    const view = importView(job({ summary: guesses }), 'UTC').summary!;
    expect(view.guesses).toEqual([
      {
        where: 'a.csv, line 2',
        what: 'a play',
        inFile: 'Loving (2015)',
        movie: { text: 'Loving (2016)', link: { href: '/movies/9-loving', external: false } },
        why: 'same title, the year one off',
        searchHref: '/search?q=Loving',
      },
      {
        where: 'a.csv, line 5',
        what: 'a rating',
        inFile: 'Heat',
        movie: {
          text: 'Heat (1995)',
          link: { href: 'https://www.themoviedb.org/movie/949', external: true },
        },
        why: 'same title (the file gives no year)',
        searchHref: '/search?q=Heat',
      },
    ]);
    expect(view.moreGuesses).toBe(1);
  });
});

describe('the import and export page', () => {
  it('lists the recent imports with their counts, and the upload form as it was sent', () => {
    const recent = [job(), job({ jobId: 43, dryRun: true, summary: summary({ guessed: 2 }) })];
    const page = dataPage(aUser(), recent, {
      error: 'The file was not imported: too big.',
      values: { format: 'trakt', dryRun: true },
    });
    expect(page.recent).toEqual([
      {
        href: '/settings/data/imports/42',
        started: '15 Jun 2024, 12:00',
        format: 'Letterboxd',
        dryRun: false,
        state: 'Done',
        counts: '5 added, 2 already there, 3 unmatched',
      },
      {
        href: '/settings/data/imports/43',
        started: '15 Jun 2024, 12:00',
        format: 'Letterboxd',
        dryRun: true,
        state: 'Preview ready',
        counts: '5 would be added, 2 already there, 3 unmatched, 2 to review',
      },
    ]);
    expect(page).toMatchObject({
      title: 'Import and export',
      values: { format: 'trakt', dryRun: true },
      error: 'The file was not imported: too big.',
    });
    expect(page.formats.map((choice) => choice.value)).toContain('netflix');
    expect(page.exports.map((choice) => choice.format)).toEqual(['json', 'movary', 'letterboxd']);
    expect(dataPage(aUser(), [])).toMatchObject({
      values: { format: 'movary', dryRun: false },
      error: null,
      recent: [],
    });
  });
});
