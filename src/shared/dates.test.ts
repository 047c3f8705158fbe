import { describe, expect, it } from 'vitest';
import { isoString } from './dates.js';

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
