import { describe, expect, it } from 'vitest';
import { firstSightings } from './forward-auth.js';

describe('firstSightings (the addresses forward auth warned about)', () => {
  it('says true once per key, and forgets the oldest past its limit', () => {
    const firstTime = firstSightings(3);
    expect(['a', 'b', 'a', 'c', 'b'].map(firstTime)).toEqual([true, true, false, true, false]);
    // A fourth key pushes out the oldest, 'a', which then counts as new again (and pushes out 'b').
    expect(firstTime('d')).toBe(true);
    expect(firstTime('c')).toBe(false);
    expect(firstTime('a')).toBe(true);
    expect(firstTime('b')).toBe(true);
    expect(firstTime('d')).toBe(false);
  });
});
