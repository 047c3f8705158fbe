import { calendarDateIn, isCalendarDate } from '../../shared/dates.js';
import { ImportFileError, type RowSource } from './import.types.js';

/** A cell that cannot be what its column says: the whole file is refused, naming the line. */
export const badCell = (at: RowSource, column: string, value: string, expected: string) =>
  new ImportFileError(
    `${at.file} line ${at.line}: ${column} is "${value.length > 40 ? `${value.slice(0, 40)}…` : value}", not ${expected}`,
  );

/** A positive integer id, or undefined for an empty cell. */
export function optionalId(at: RowSource, column: string, value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^\d{1,12}$/.test(value) || Number(value) === 0) throw badCell(at, column, value, 'a numeric id');
  return Number(value);
}

/** An IMDb id `tt1234567`, or undefined for an empty cell. */
export function optionalImdbId(at: RowSource, column: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (!/^tt\d{5,12}$/.test(value)) throw badCell(at, column, value, 'an IMDb id (tt…)');
  return value;
}

/** A release year, or undefined for an empty cell. */
export function optionalYear(at: RowSource, column: string, value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^\d{4}$/.test(value)) throw badCell(at, column, value, 'a year');
  return Number(value);
}

/** `YYYY-MM-DD` (a time after it, `YYYY-MM-DD HH:MM:SS`, is ignored), or null for an empty cell. */
export function optionalDate(at: RowSource, column: string, value: string): string | null {
  if (value === '') return null;
  const date = value.slice(0, 10);
  if (
    !isCalendarDate(date) ||
    !/^(|[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)$/.test(value.slice(10))
  ) {
    throw badCell(at, column, value, 'a date (YYYY-MM-DD)');
  }
  return date;
}

/** An instant given as ISO-8601 with a zone (`2024-03-01T21:15:00.000Z`). */
export function instant(at: RowSource, column: string, value: unknown): Date {
  const text = typeof value === 'string' ? value : '';
  const parsed = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || Number.isNaN(parsed.getTime())) {
    throw badCell(at, column, String(value), 'a date and time');
  }
  return parsed;
}

/** The calendar date of an instant in the user's time zone. */
export const dateIn = (moment: Date, timezone: string) => calendarDateIn(moment, timezone);

/**
 * The instant stored for "on this day" (a rating's or a watchlist entry's date from a file that gives
 * only the day): noon of that day in the user's zone, so the day shown is the file's day.
 */
export function noonIn(date: string, timezone: string): string {
  const utcNoon = Date.parse(`${date}T12:00:00.000Z`);
  // The zone's offset at that moment; noon is never inside a DST gap.
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcNoon));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return new Date(utcNoon - (asUtc - utcNoon)).toISOString();
}

/** A 1-10 rating; `halfStars`: the file rates 0.5-5 (Letterboxd), doubled. Empty or 0: no rating. */
export function optionalRating(
  at: RowSource,
  column: string,
  value: string,
  scale: 'ten' | 'half-stars',
): number | undefined {
  if (value === '' || value === '0') return undefined;
  const number = Number(value);
  const rating = scale === 'half-stars' ? number * 2 : number;
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isInteger(rating) || rating < 1 || rating > 10) {
    throw badCell(
      at,
      column,
      value,
      scale === 'half-stars' ? 'a rating from 0.5 to 5' : 'a rating from 1 to 10',
    );
  }
  return rating;
}

/** Text as given; empty is null. */
export const optionalText = (value: string) => (value === '' ? null : value);
