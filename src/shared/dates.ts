const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date `YYYY-MM-DD` (`2023-02-30` is not one). */
export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Instants whose UTC date `isoString` writes as `YYYY-MM-DD`, like the formatter below. */
const FOUR_DIGIT_YEARS = [Date.UTC(1000, 0, 1), Date.UTC(10_000, 0, 1)] as const;

/** The calendar date `YYYY-MM-DD` of an instant in a time zone. */
export function calendarDateIn(instant: Date, timeZone: string): string {
  // UTC (every account's default zone) needs no time-zone data: a slice of the ISO string, without
  // the formatter's few µs (a watchlist page formats 24 dates, every scrobble one).
  const ms = instant.getTime();
  if (timeZone === 'UTC' && ms >= FOUR_DIGIT_YEARS[0] && ms < FOUR_DIGIT_YEARS[1])
    return isoString(ms).slice(0, 10);
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // en-CA formats as YYYY-MM-DD.
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter.format(instant);
}

/** The UTC calendar date of an ISO timestamp string. */
export function utcDateOf(timestamp: string): string {
  return timestamp.slice(0, 10);
}

export function addDays(instant: Date, days: number): Date {
  return new Date(instant.getTime() + days * 86_400_000);
}

const DAY_MS = 86_400_000;
/** `YYYY-MM-DDT` of the days seen lately (a report's time, its dedupe window, now: a few days at once). */
const isoDayPrefixes = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * `new Date(ms).toISOString()` (`2024-03-09T23:30:00.000Z`), several times faster where it is called on
 * every request: the date part is formatted once per day, the time of day by hand.
 */
export function isoString(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  const isoDayPrefix = isoDayPrefixes.get(day);
  if (isoDayPrefix === undefined) {
    const iso = new Date(ms).toISOString();
    // Years outside 0000-9999 are written with six digits and a sign: left to toISOString.
    if (iso.length === 24) {
      if (isoDayPrefixes.size >= 1000) isoDayPrefixes.clear();
      isoDayPrefixes.set(day, iso.slice(0, 11));
    }
    return iso;
  }
  const inDay = ms - day * DAY_MS;
  const milliseconds = inDay % 1000;
  const seconds = Math.floor(inDay / 1000);
  return `${isoDayPrefix}${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}.${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}
