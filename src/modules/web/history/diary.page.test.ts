import { describe, expect, it } from 'vitest';
import { aMovie, aPage } from '../../../../test/page-fixtures.js';
import type { DiaryEntry } from '../../library/library.service.js';
import {
  calendarPage,
  diaryEntryView,
  diaryHref,
  diaryMonths,
  diaryPage,
  diaryParams,
  monthLabel,
  monthsOf,
} from './diary.page.js';

// The diary's page builders (`/history`, `/history/calendar`), called with the diary's entries: no
// database, no HTTP.

let nextId = 1;
const entry = (watchedAt: string | null, overrides: Partial<DiaryEntry> = {}): DiaryEntry => ({
  id: nextId++,
  movie: aMovie({ id: 12, title: 'Spirited Away', posterPath: 'http://cinelog.test/images/w342/s.jpg' }),
  watchedAt,
  plays: 1,
  comment: null,
  rating: null,
  rewatch: false,
  tags: [],
  position: 1,
  ...overrides,
});
const view = { scale: 'stars' as const, tags: [], next: '/history', today: '2024-06-15' };

describe('the diary entry', () => {
  it('shows its own stars, the rewatch mark and each tag as a link that filters by it', () => {
    const shown = diaryEntryView(
      entry('2024-06-14', { rating: 7, rewatch: true, tags: ['Film noir', 'a&b'] }),
      'stars',
    );
    expect(shown).toMatchObject({
      title: 'Spirited Away',
      day: '14 Jun 2024',
      rating: { value: 7, label: '3½ stars' },
      rewatch: true,
      tags: [
        { name: 'Film noir', href: '/history?tag=Film+noir' },
        { name: 'a&b', href: '/history?tag=a%26b' },
      ],
    });
    expect(diaryEntryView(entry('2024-06-14'), 'points')).toMatchObject({
      rating: null,
      rewatch: false,
      tags: [],
    });
  });
});

describe('the diary grouped by month', () => {
  it('heads each month once, in the order of the page, across years, with its count', () => {
    const months = diaryMonths(
      [
        entry('2025-01-02'),
        entry('2025-01-01'),
        entry('2024-12-31'),
        entry('2024-06-01'),
        entry('2023-06-30'),
      ],
      'stars',
    );
    expect(months.map((month) => [month.key, month.heading, month.count, month.entries.length])).toEqual([
      ['2025-01', 'January 2025', '2 entries', 2],
      ['2024-12', 'December 2024', '1 entry', 1],
      ['2024-06', 'June 2024', '1 entry', 1],
      ['2023-06', 'June 2023', '1 entry', 1],
    ]);
    expect(months[0]!.calendarHref).toBe('/history/calendar?month=2025-01');
  });

  it("counts a month's whole entries when known (it runs on over the next page)", () => {
    const months = diaryMonths([entry('2024-06-02')], 'stars', new Map([['2024-06', 31]]));
    expect(months[0]!.count).toBe('31 entries');
  });

  it('puts entries with no date under "Unknown date", with no calendar', () => {
    const months = diaryMonths([entry('2024-06-02'), entry(null), entry(null)], 'stars');
    expect(months.map((month) => [month.heading, month.entries.length, month.calendarHref])).toEqual([
      ['June 2024', 1, '/history/calendar?month=2024-06'],
      ['Unknown date', 2, null],
    ]);
    expect(months[1]!.entries[0]).toMatchObject({ day: 'Unknown date', date: '' });
    expect(monthsOf([entry('2024-06-02'), entry(null), entry('2024-06-01'), entry('2024-05-31')])).toEqual([
      '2024-06',
      '2024-05',
    ]);
  });
});

describe('the diary page', () => {
  it('keeps every filter in the pages’ links, and leaves out what is not set', () => {
    const filters = {
      year: 2024,
      month: 6,
      rating: 8,
      tag: 'with Sam',
      rewatch: true,
      order: 'asc' as const,
    };
    const page = diaryPage(filters, { items: [entry('2024-06-02')], currentPage: 2, maxPage: 3 }, view);
    expect(page.pagination).toEqual({
      page: 2,
      pages: 3,
      previous: '/history?year=2024&month=6&rating=8&tag=with+Sam&rewatch=yes&order=asc',
      next: '/history?year=2024&month=6&rating=8&tag=with+Sam&rewatch=yes&order=asc&page=3',
    });
    expect(page.filtered).toBe(true);
    expect(page.summary).toBe('June 2024 · Rated 4 stars · Tagged “with Sam” · Rewatches');
    expect(page.filters).toMatchObject({
      year: '2024',
      month: '6',
      rating: '8',
      tag: 'with Sam',
      rewatch: 'yes',
    });
    expect(page.calendarHref).toBe('/history/calendar?month=2024-06');
    expect(diaryParams({ order: 'desc', rewatch: false })).toEqual({ rewatch: 'no' });
    expect(diaryHref({})).toBe('/history');
    expect(diaryHref({ year: 2024, month: 6, day: 14 })).toBe('/history?year=2024&month=6&day=14');
  });

  it('says what to do when a filter matches nothing, and when there is nothing at all', () => {
    const none = diaryPage({ tag: 'noir' }, aPage([]), view);
    expect(none.empty).toMatchObject({ title: 'No entry matches these filters', actionHref: '/history' });
    expect(none.empty?.actionLabel).toBe('Clear filters');
    const fresh = diaryPage({}, aPage([]), view);
    expect(fresh.filtered).toBe(false);
    expect(fresh.empty).toMatchObject({ title: 'No plays yet', actionHref: '/search' });
    // The calendar opens on this month without a month asked.
    expect(fresh.calendarHref).toBe('/history/calendar?month=2024-06');
  });

  it("offers the ratings in the user's scale and the user's tags", () => {
    const page = diaryPage({}, aPage([]), {
      ...view,
      scale: 'points',
      tags: [{ name: 'noir' }, { name: 'Home' }],
    });
    expect(page.filters.ratings[0]).toEqual({ value: 10, label: '10/10' });
    expect(page.filters.tags).toEqual(['noir', 'Home']);
    expect(page.filters.months[5]).toEqual({ value: 6, label: 'June' });
  });
});

describe('the calendar', () => {
  it('lays a month out in weeks from Monday, each day with its posters, count and link', () => {
    const page = calendarPage(
      '2024-06',
      [
        entry('2024-06-14', { movie: aMovie({ id: 1, title: 'Later', posterPath: null }) }),
        entry('2024-06-14', { movie: aMovie({ id: 2, title: 'Ëarlier' }) }),
        entry('2024-06-01'),
      ],
      '2024-06-15',
    );
    // June 2024 starts on a Saturday: five blank days, then 30 days: five weeks.
    expect(page.weeks).toHaveLength(5);
    expect(page.weeks[0]!.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(page.weeks[0]![5]).toMatchObject({ day: 1, count: 1, href: '/history?year=2024&month=6&day=1' });
    const friday = page.weeks[2]![4]!;
    expect(friday).toMatchObject({
      date: '2024-06-14',
      label: 'Friday 14 June 2024',
      count: 2,
      more: 0,
      // The day's first entry first (the diary gives the newest first).
      posters: [
        { title: 'Ëarlier', initial: 'Ë' },
        { title: 'Later', poster: null, initial: 'L' },
      ],
    });
    expect(page.weeks[2]![5]).toMatchObject({ day: 15, today: true, count: 0, href: null });
    expect(page.weekdays[0]).toEqual({ short: 'Mon', long: 'Monday' });
    expect(page).toMatchObject({
      heading: 'June 2024',
      count: '3 entries',
      previous: { href: '/history/calendar?month=2024-05', label: 'May 2024' },
      // No month after today's.
      next: null,
      thisMonthHref: null,
      listHref: '/history?year=2024&month=6',
      empty: false,
    });
  });

  it('counts the posters past the first three, and goes over a year to the next month', () => {
    const many = Array.from({ length: 5 }, () => entry('2023-12-31'));
    const page = calendarPage('2023-12', many, '2024-06-15');
    const last = page.weeks.flat().find((day) => day?.day === 31)!;
    expect(last).toMatchObject({ count: 5, more: 2 });
    expect(last.posters).toHaveLength(3);
    expect(page.next).toEqual({
      key: '2024-01',
      href: '/history/calendar?month=2024-01',
      label: 'January 2024',
    });
    expect(page.thisMonthHref).toBe('/history/calendar?month=2024-06');
    expect(calendarPage('2024-05', [], '2024-06-15').empty).toBe(true);
    expect(monthLabel(2024, 2)).toBe('February 2024');
  });
});
