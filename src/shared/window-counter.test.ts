import { describe, expect, it } from 'vitest';
import { TestClock } from '../../test/harness.js';
import { WindowCounter } from './window-counter.js';

describe('WindowCounter', () => {
  it('refuses a key past its limit until its window is over, each key on its own', () => {
    const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'));
    const counter = new WindowCounter(3, 60_000, clock);
    for (let i = 0; i < 3; i++) {
      counter.count('a');
      expect(counter.retryAfter('a')).toBe(0);
    }
    counter.count('a');
    clock.advance(15_500);
    expect(counter.retryAfter('a')).toBe(45);
    expect(counter.retryAfter('b')).toBe(0);
    clock.advance(44_500);
    expect(counter.retryAfter('a')).toBe(0);
    counter.count('a');
    expect(counter.retryAfter('a')).toBe(0);
  });

  it('keeps at most maxKeys keys, dropping expired ones first', () => {
    const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'));
    const counter = new WindowCounter(1, 1_000, clock, 100);
    for (let i = 0; i < 2; i++) counter.count('old');
    clock.advance(500);
    for (let i = 0; i < 99; i++) counter.count(`k${i}`);
    expect(counter.retryAfter('old')).toBe(1);
    clock.advance(600);
    // Full: the expired window of `old` makes room; the live ones stay.
    counter.count('new');
    counter.count('new');
    expect(counter.retryAfter('new')).toBe(1);
    counter.count('k1');
    expect(counter.retryAfter('k1')).toBe(1);
  });
});
