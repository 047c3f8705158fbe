import type { Page } from '../../../shared/pagination.js';
import type { DiaryEntry } from '../../library/library.service.js';
import type { RatingScale } from '../../users/users.service.js';
import { ratingLabel } from '../shell/format.js';
import { type PaginationView, paginationView } from '../shell/view-models.js';
import { type HistoryEntryView, historyEntryView } from './history.page.js';

// The diary (`/history`, issue 30): the user's entries grouped by month, each with its own stars,
// rewatch mark and tags, narrowed by the filters of the diary's service; and a month's calendar
// (`/history/calendar`). Pure: domain objects in, the templates' data out.

/** What the diary is narrowed by, as the address gives it (the route has checked each value). */
export interface DiaryFilters {
  q?: string | undefined;
  year?: number | undefined;
  month?: number | undefined;
  day?: number | undefined;
  rating?: number | undefined;
  tag?: string | undefined;
  rewatch?: boolean | undefined;
  order?: 'asc' | 'desc' | undefined;
}

/** The filters as the address's query, in a fixed order; what is not set is left out. */
export function diaryParams(filters: DiaryFilters): Record<string, string> {
  const params: Record<string, string> = {};
  if (filters.q) params.q = filters.q;
  if (filters.year !== undefined) params.year = String(filters.year);
  if (filters.month !== undefined) params.month = String(filters.month);
  if (filters.day !== undefined) params.day = String(filters.day);
  if (filters.rating !== undefined) params.rating = String(filters.rating);
  if (filters.tag) params.tag = filters.tag;
  if (filters.rewatch !== undefined) params.rewatch = filters.rewatch ? 'yes' : 'no';
  if (filters.order === 'asc') params.order = 'asc';
  return params;
}

/** `/history` with these filters. */
export function diaryHref(filters: DiaryFilters): string {
  const search = new URLSearchParams(diaryParams(filters)).toString();
  return search === '' ? '/history' : `/history?${search}`;
}

const monthNames = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' });
/** "June 2024" for (2024, 6). */
export const monthLabel = (year: number, month: number): string =>
  `${monthNames.format(new Date(Date.UTC(year, month - 1, 1)))} ${year}`;

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

/** One diary entry as `_history-entries` shows it: the history's entry with its mark and tags. */
export interface DiaryEntryView extends HistoryEntryView {
  id: number;
  rewatch: boolean;
  /** Each tag with the diary filtered by it. */
  tags: { name: string; href: string }[];
}

export function diaryEntryView(entry: DiaryEntry, scale: RatingScale): DiaryEntryView {
  return {
    ...historyEntryView({ ...entry, watchedAt: entry.watchedAt ?? '' }, scale),
    // The unknown date: shown as such (its delete form sends no date).
    ...(entry.watchedAt === null && { date: '', day: 'Unknown date' }),
    id: entry.id,
    rewatch: entry.rewatch,
    tags: entry.tags.map((name) => ({ name, href: diaryHref({ tag: name }) })),
  };
}

/** A month of the diary's page: its heading, how many entries it has in all, and the page's. */
export interface DiaryMonth {
  /** "2024-06"; "unknown" for the entries with no date. */
  key: string;
  heading: string;
  /** "3 entries": the month's whole count under the filters (`totals`), else the page's. */
  count: string;
  /** The month's calendar; null for the unknown date. */
  calendarHref: string | null;
  entries: DiaryEntryView[];
}

/**
 * The page's entries grouped by month, in the page's order (a month split across two pages heads
 * both). `totals`: each month's whole count under the filters ("2024-06" → 31), when known.
 */
export function diaryMonths(
  entries: readonly DiaryEntry[],
  scale: RatingScale,
  totals: ReadonlyMap<string, number> = new Map(),
): DiaryMonth[] {
  const months: DiaryMonth[] = [];
  for (const entry of entries) {
    const key = entry.watchedAt === null ? 'unknown' : entry.watchedAt.slice(0, 7);
    let month = months.at(-1);
    if (month?.key !== key) {
      const [year, number] = key.split('-').map(Number) as [number, number];
      month = {
        key,
        heading: key === 'unknown' ? 'Unknown date' : monthLabel(year, number),
        count: '',
        calendarHref: key === 'unknown' ? null : `/history/calendar?month=${key}`,
        entries: [],
      };
      months.push(month);
    }
    month.entries.push(diaryEntryView(entry, scale));
  }
  for (const month of months) {
    month.count = plural(totals.get(month.key) ?? month.entries.length, 'entry', 'entries');
  }
  return months;
}

/** The keys of the months a page of entries shows ("2024-06"), for their totals. */
export const monthsOf = (entries: readonly DiaryEntry[]): string[] => [
  ...new Set(entries.flatMap((entry) => (entry.watchedAt ? [entry.watchedAt.slice(0, 7)] : []))),
];

export type DiaryPage = {
  title: string;
  filters: {
    q: string;
    year: string;
    month: string;
    day: string;
    rating: string;
    tag: string;
    rewatch: string;
    order: 'asc' | 'desc';
    months: { value: number; label: string }[];
    ratings: { value: number; label: string }[];
    /** The user's tags, for the tag field's suggestions. */
    tags: string[];
  };
  /** Whether anything narrows the diary (then "Clear filters" shows). */
  filtered: boolean;
  /** In words: "Tagged “noir” · Rewatches · 2024". */
  summary: string;
  months: DiaryMonth[];
  empty: { title: string; text: string; actionHref: string; actionLabel: string } | null;
  pagination: PaginationView;
  calendarHref: string;
  /** The address the entries' forms come back to. */
  next: string;
};

/**
 * `/history`: the month groups of one page of the diary, the filter form with the values asked, and
 * the pages' links that keep them. `today` (YYYY-MM-DD, the user's) picks the calendar's month.
 */
export function diaryPage(
  filters: DiaryFilters,
  list: Page<DiaryEntry>,
  view: {
    scale: RatingScale;
    totals?: ReadonlyMap<string, number>;
    tags: readonly { name: string }[];
    next: string;
    today: string;
  },
): DiaryPage {
  const { q = '', year, month, day, rating, tag = '', rewatch } = filters;
  const narrowed =
    year !== undefined || rating !== undefined || tag !== '' || rewatch !== undefined || q !== '';
  const summary = [
    q && `Titles with “${q}”`,
    year !== undefined &&
      (month === undefined
        ? String(year)
        : day === undefined
          ? monthLabel(year, month)
          : `${day} ${monthLabel(year, month)}`),
    rating !== undefined && `Rated ${ratingLabel(rating, view.scale)}`,
    tag && `Tagged “${tag}”`,
    rewatch !== undefined && (rewatch ? 'Rewatches' : 'First watches'),
  ]
    .filter(Boolean)
    .join(' · ');
  const calendarMonth =
    year !== undefined && month !== undefined
      ? `${year}-${String(month).padStart(2, '0')}`
      : view.today.slice(0, 7);
  return {
    title: 'Diary',
    filters: {
      q,
      year: year === undefined ? '' : String(year),
      month: month === undefined ? '' : String(month),
      day: day === undefined ? '' : String(day),
      rating: rating === undefined ? '' : String(rating),
      tag,
      rewatch: rewatch === undefined ? '' : rewatch ? 'yes' : 'no',
      order: filters.order ?? 'desc',
      months: Array.from({ length: 12 }, (_, index) => ({
        value: index + 1,
        label: monthNames.format(new Date(Date.UTC(2000, index, 1))),
      })),
      ratings: Array.from({ length: 10 }, (_, index) => ({
        value: 10 - index,
        label: ratingLabel(10 - index, view.scale),
      })),
      tags: view.tags.map((known) => known.name),
    },
    filtered: narrowed,
    summary,
    months: diaryMonths(list.items, view.scale, view.totals),
    empty:
      list.items.length > 0
        ? null
        : narrowed
          ? {
              title: 'No entry matches these filters',
              text: 'Try another year, rating or tag, or clear the filters to see your whole diary.',
              actionHref: '/history',
              actionLabel: 'Clear filters',
            }
          : {
              title: 'No plays yet',
              text: 'Log a movie you watched, or connect a media server in Settings → Integrations so plays arrive by themselves.',
              actionHref: '/search',
              actionLabel: 'Log your first movie',
            },
    pagination: paginationView('/history', diaryParams(filters), list.currentPage, list.maxPage),
    calendarHref: `/history/calendar?month=${calendarMonth}`,
    next: view.next,
  };
}

/** A day of the calendar's grid. */
export interface CalendarDay {
  /** YYYY-MM-DD. */
  date: string;
  day: number;
  /** "Friday 14 June 2024", its link's name. */
  label: string;
  /** "Friday" (shown where the grid becomes a list). */
  weekday: string;
  today: boolean;
  count: number;
  /** The day's first few posters (the rest counted in `more`). */
  posters: { title: string; poster: string | null; initial: string }[];
  more: number;
  /** The diary of that day; null when it has no entry. */
  href: string | null;
}

/** How many posters a day of the calendar shows. */
export const POSTERS_PER_DAY = 3;

const weekdayNames = new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: 'UTC' });
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * `/history/calendar?month=YYYY-MM`: the month as weeks of seven days, Monday first (cinelog has no
 * locale setting), each day with its entries' posters and count and a link to that day's diary;
 * `entries`: all of the month's entries. The next month is offered up to `today`'s.
 */
export function calendarPage(month: string, entries: readonly DiaryEntry[], today: string) {
  const [year, number] = month.split('-').map(Number) as [number, number];
  const byDay = new Map<string, DiaryEntry[]>();
  for (const entry of entries) {
    if (!entry.watchedAt?.startsWith(month)) continue;
    const list = byDay.get(entry.watchedAt) ?? [];
    list.push(entry);
    byDay.set(entry.watchedAt, list);
  }
  const length = new Date(Date.UTC(year, number, 0)).getUTCDate();
  // Monday 0 … Sunday 6.
  const lead = (new Date(Date.UTC(year, number - 1, 1)).getUTCDay() + 6) % 7;
  const cells: (CalendarDay | null)[] = Array.from({ length: lead }, () => null);
  for (let day = 1; day <= length; day++) {
    const date = `${month}-${String(day).padStart(2, '0')}`;
    // The diary lists newest first; the day's first watched film first here.
    const ofDay = [...(byDay.get(date) ?? [])].reverse();
    const weekday = weekdayNames.format(new Date(Date.UTC(year, number - 1, day)));
    cells.push({
      date,
      day,
      label: `${weekday} ${day} ${monthLabel(year, number)}`,
      weekday,
      today: date === today,
      count: ofDay.length,
      posters: ofDay.slice(0, POSTERS_PER_DAY).map((entry) => {
        const view = historyEntryView({ ...entry, watchedAt: date }, 'points', false);
        return { title: view.title, poster: view.poster, initial: [...view.title][0] ?? '?' };
      }),
      more: Math.max(0, ofDay.length - POSTERS_PER_DAY),
      href: ofDay.length === 0 ? null : diaryHref({ year, month: number, day }),
    });
  }
  while (cells.length % 7 !== 0) cells.push(null);
  const weeks: (CalendarDay | null)[][] = [];
  for (let index = 0; index < cells.length; index += 7) weeks.push(cells.slice(index, index + 7));
  const shift = (by: number) => {
    const date = new Date(Date.UTC(year, number - 1 + by, 1));
    const key = `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
    return {
      key,
      href: `/history/calendar?month=${key}`,
      label: monthLabel(date.getUTCFullYear(), date.getUTCMonth() + 1),
    };
  };
  const next = shift(1);
  const total = entries.filter((entry) => entry.watchedAt?.startsWith(month)).length;
  return {
    title: `Diary: ${monthLabel(year, number)}`,
    heading: monthLabel(year, number),
    count: plural(total, 'entry', 'entries'),
    weekdays: WEEKDAYS.map((short, index) => ({
      short,
      long: weekdayNames.format(new Date(Date.UTC(2024, 0, 1 + index))),
    })),
    weeks,
    previous: shift(-1),
    next: next.key <= today.slice(0, 7) ? next : null,
    thisMonthHref: month === today.slice(0, 7) ? null : `/history/calendar?month=${today.slice(0, 7)}`,
    listHref: diaryHref({ year, month: number }),
    empty: total === 0,
  };
}
