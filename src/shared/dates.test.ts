import { describe, expect, it } from 'vitest';
import { calendarDateIn, isoString } from './dates.js';

describe('isoString', () => {
  it('writes what toISOString writes, across days, years and odd milliseconds', () => {
    const instants = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 2, 1, 0, 0, 0, 0),
      Date.UTC(1969, 11, 31, 23, 59, 59, 1),
      Date.UTC(0, 0, 1) - 1,
      -62_198_755_200_000,
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      253_402_300_800_000,
      8.64e15,
    ];
    let seed = 42;
    for (let i = 0; i < 5000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      // Runs of instants on the same day, and jumps between days and centuries.
      instants.push(i % 7 === 0 ? seed * 1_000_003 - 2 ** 40 : Date.UTC(2025, 5, 1) + (seed % 86_400_000));
    }
    for (const ms of instants) expect(isoString(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws like toISOString for a time outside the range of Date', () => {
    expect(() => isoString(8.64e15 + 1)).toThrow(RangeError);
    expect(() => isoString(Number.NaN)).toThrow(RangeError);
  });
});

describe('calendarDateIn', () => {
  const viaFormatter = (instant: Date, timeZone: string) =>
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
      instant,
    );
  const instants = [
    0,
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(2024, 2, 1, 0, 0, 0, 0),
    Date.UTC(2023, 11, 31, 22, 30),
    Date.UTC(1000, 0, 1) - 1,
    Date.UTC(1000, 0, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10_000, 0, 1),
  ];

  it('gives the date the time-zone formatter gives, in UTC and elsewhere, at day and range edges', () => {
    for (const timeZone of ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Kathmandu']) {
      for (const ms of instants) {
        expect(calendarDateIn(new Date(ms), timeZone), `${timeZone} ${ms}`).toBe(
          viaFormatter(new Date(ms), timeZone),
        );
      }
    }
    expect(calendarDateIn(new Date(Date.UTC(2023, 11, 31, 22, 30)), 'UTC')).toBe('2023-12-31');
    expect(calendarDateIn(new Date(Date.UTC(2023, 11, 31, 22, 30)), 'Europe/Berlin')).toBe('2023-12-31');
    expect(calendarDateIn(new Date(Date.UTC(2023, 11, 31, 23, 30)), 'Europe/Berlin')).toBe('2024-01-01');
  });

  it('refuses an invalid date as the formatter does', () => {
    expect(() => calendarDateIn(new Date(Number.NaN), 'UTC')).toThrow(RangeError);
  });
});
