import { calendarDateIn, isCalendarDate } from '../../shared/dates.js';
import { MAX_ID } from '../../shared/schemas.js';
import { MAX_RATING, MIN_RATING, playDateProblem, playsProblem } from '../library/library.rules.js';
import { RowError } from './import.types.js';

// The cells of a row, read one by one: a cell that cannot be what its column says throws a RowError,
// and the parser reports the row as unreadable with that reason (the rest of the file imports).

const shown = (value: string) => `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;

/** A cell that cannot be what its column says. */
export const badCell = (column: string, value: string, expected: string) =>
  new RowError(`${column} is ${shown(value)}, not ${expected}`);

/** A positive integer id (at most 2^31 − 1, what the catalogue holds), or undefined for an empty cell. */
export function optionalId(column: string, value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) === 0 || Number(value) > MAX_ID)
    throw badCell(column, value, 'a numeric id');
  return Number(value);
}

/** The same for a JSON value: a number, or null / absent for none. */
export function optionalJsonId(column: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > MAX_ID)
    throw badCell(column, typeof value === 'string' ? value : describe(value), 'a numeric id');
  return value;
}

/** An IMDb id `tt1234567`, or undefined for an empty cell. */
export function optionalImdbId(column: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (!/^tt\d{5,12}$/.test(value)) throw badCell(column, value, 'an IMDb id (tt…)');
  return value;
}

/** A release year, or undefined for an empty cell. */
export function optionalYear(column: string, value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^\d{4}$/.test(value) || Number(value) < 1870 || Number(value) > 2200)
    throw badCell(column, value, 'a year');
  return Number(value);
}

/** How a file writes dates with slashes: month first (`1/31/2024`, the US) or day first (`31/01/2024`). */
export type SlashOrder = 'mdy' | 'dmy';

const ISO_DATE =
  /^(\d{4}-\d{2}-\d{2})(|[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?( ?[AaPp][Mm])?(Z|[+-]\d{2}:?\d{2}| UTC)?)$/;
const NUMERIC_DATE =
  /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(|[ T,]+\d{1,2}:\d{2}(:\d{2})?( ?[AaPp][Mm])?)$/;

/**
 * `YYYY-MM-DD` (a time after it is ignored), or null for an empty cell. With `slashOrder`, also the
 * numeric dates spreadsheets write when they save a file again: `1/31/2024` (`mdy`) or `31/01/2024`
 * (`dmy`), `31.01.2024` (always day first), two-digit years as 20xx up to this year.
 */
export function optionalDate(column: string, value: string, slashOrder?: SlashOrder): string | null {
  if (value === '') return null;
  const iso = ISO_DATE.exec(value);
  if (iso && isCalendarDate(iso[1]!)) return iso[1]!;
  const numeric = slashOrder ? NUMERIC_DATE.exec(value) : null;
  if (numeric) {
    const [a, b] = [Number(numeric[1]), Number(numeric[3])];
    const dayFirst = numeric[2] === '.' || slashOrder === 'dmy';
    const [month, day] = dayFirst ? [b, a] : [a, b];
    const year = numeric[4]!.length === 2 ? 2000 + Number(numeric[4]) : Number(numeric[4]);
    const date = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    if (isCalendarDate(date)) return date;
  }
  throw badCell(column, value, slashOrder ? 'a date' : 'a date (YYYY-MM-DD)');
}

/**
 * The order of a file's slash dates, from all of them: a first number above 12 means day first, a
 * second above 12 month first. Null when no date tells (every day of the month is 12 or less).
 */
export function slashOrderOf(values: Iterable<string>): SlashOrder | null {
  for (const value of values) {
    const numeric = NUMERIC_DATE.exec(value.trim());
    if (!numeric || numeric[2] === '.') continue;
    if (Number(numeric[1]) > 12) return 'dmy';
    if (Number(numeric[3]) > 12) return 'mdy';
  }
  return null;
}

/** A play's day: a date (see optionalDate) that a play can be on (not in the future, not before film). */
export function playDate(
  column: string,
  value: string,
  today: string,
  slashOrder?: SlashOrder,
): string | null {
  const date = optionalDate(column, value, slashOrder);
  const problem = date === null ? null : playDateProblem(date, today);
  if (problem) throw new RowError(`${column} is ${shown(value)}: ${problem}`);
  return date;
}

/** A play count of a row: a whole number within the library's limit. */
export function playCount(column: string, value: unknown): number {
  const plays = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof plays !== 'number' || playsProblem(plays))
    throw new RowError(`${column} is ${shown(describe(value))}: ${playsProblem(Number.NaN)}`);
  return plays;
}

/** An instant given as ISO-8601 with a zone (`2024-03-01T21:15:00.000Z`). */
export function instant(column: string, value: unknown): Date {
  const text = typeof value === 'string' ? value : '';
  const parsed = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || Number.isNaN(parsed.getTime())) {
    throw badCell(column, describe(value), 'a date and time');
  }
  return parsed;
}

/** The day a play at `moment` was on, in the user's zone; refused when a play cannot be on it. */
export function playDayOf(column: string, moment: Date, timezone: string, today: string): string {
  const date = calendarDateIn(moment, timezone);
  const problem = playDateProblem(date, today);
  if (problem) throw new RowError(`${column} is ${shown(moment.toISOString())}: ${problem}`);
  return date;
}

/** A date a rating or a watchlist entry was made on: as a play's (not in the future, not before film). */
export const dayOfRecord = playDate;

/**
 * The instant stored for "on this day" (a rating's or a watchlist entry's date from a file that gives
 * only the day): noon of that day in the user's zone, so the day shown is the file's day.
 */
export function noonIn(date: string, timezone: string): string {
  const utcNoon = Date.parse(`${date}T12:00:00.000Z`);
  // The zone's offset at that moment; noon is never inside a DST gap.
  const parts = partsFormatter(timezone).formatToParts(new Date(utcNoon));
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

/** One formatter per zone: making one costs more than a hundred formattings. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** A 1-10 rating; `halfStars`: the file rates 0.5-5 (Letterboxd), doubled. Empty or 0: no rating. */
export function optionalRating(
  column: string,
  value: string,
  scale: 'ten' | 'half-stars',
): number | undefined {
  if (value === '' || value === '0') return undefined;
  const number = Number(value.replace(',', '.'));
  const rating = scale === 'half-stars' ? number * 2 : number;
  if (
    !/^\d+([.,]\d+)?$/.test(value) ||
    !Number.isInteger(rating) ||
    rating < MIN_RATING ||
    rating > MAX_RATING
  ) {
    throw badCell(column, value, scale === 'half-stars' ? 'a rating from 0.5 to 5' : 'a rating from 1 to 10');
  }
  return rating;
}

/** Text as given; empty is null. */
export const optionalText = (value: string) => (value === '' ? null : value);

/** A JSON value named in a message, never recursing into it (a file may nest thousands deep). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return String(value);
}
