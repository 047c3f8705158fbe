import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteLru } from './byte-lru.js';

describe('ByteLru', () => {
  it('drops the least recently used first, and keeps nothing larger than an entry may be', () => {
    const lru = new ByteLru<string>(10, 6);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4); // 12 bytes: b goes
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    lru.set('big', 'X', 7);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.bytes).toBe(8);
  });

  it('never holds more than its bytes, and counts a value set again once', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 0, max: 9 })), {
          maxLength: 60,
        }),
        (sets) => {
          const lru = new ByteLru<number>(20, 9);
          const last = new Map<string, number>();
          for (const [key, size] of sets) {
            lru.set(key, size, size);
            last.set(key, size);
            expect(lru.bytes).toBeLessThanOrEqual(20);
          }
          // What is kept is the value last set, and the sizes add up.
          let sum = 0;
          for (const [key, size] of last) {
            const kept = lru.get(key);
            if (kept !== undefined) {
              expect(kept).toBe(size);
              sum += size;
            }
          }
          expect(lru.bytes).toBe(sum);
        },
      ),
    );
  });
});
