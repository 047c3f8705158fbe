import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayNumberOf } from './statistics.repository.js';
import { longestStreak } from './statistics.service.js';

const DAY_MS = 86_400_000;

describe('dayNumberOf', () => {
  it('counts the days since 1970-01-01 as Date.UTC does, for every date of four-digit years', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T00:00:00Z'),
          noInvalidDate: true,
        }),
        (instant) => {
          const date = instant.toISOString().slice(0, 10);
          expect(dayNumberOf(date)).toBe(Math.floor(instant.getTime() / DAY_MS));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('knows leap days and the days around them', () => {
    for (const date of [
      '1900-02-28',
      '1900-03-01',
      '2000-02-29',
      '2000-03-01',
      '2024-02-29',
      '2024-12-31',
      '1970-01-01',
      '1969-12-31',
    ]) {
      expect(dayNumberOf(date), date).toBe(
        Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) / DAY_MS,
      );
    }
  });
});

describe('longestStreak', () => {
  const days = (...dates: string[]) => dates.map((date) => ({ date, day: dayNumberOf(date) }));
  it('runs over a leap day and a year end, and keeps the latest of equal runs', () => {
    expect(longestStreak(days('2024-02-28', '2024-02-29', '2024-03-01', '2024-03-03'))).toEqual({
      days: 3,
      from: '2024-02-28',
      to: '2024-03-01',
    });
    expect(longestStreak(days('2023-06-01', '2023-06-02', '2023-12-31', '2024-01-01'))).toEqual({
      days: 2,
      from: '2023-12-31',
      to: '2024-01-01',
    });
    expect(longestStreak([])).toEqual({ days: 0, from: null, to: null });
  });
});
