import { describe, expect, it } from 'vitest';
import { CompileLater } from './compile-later.js';

describe('CompileLater', () => {
  it('compiles each on its first use, once, and compileWaiting the rest', () => {
    const later = new CompileLater();
    const runs: string[] = [];
    const a = later.later(() => {
      runs.push('a');
      return 'A';
    });
    const b = later.later(() => {
      runs.push('b');
      return undefined;
    });
    expect(runs).toEqual([]);
    expect(a()).toBe('A');
    expect(a()).toBe('A');
    expect(runs).toEqual(['a']);
    // b is left; an undefined result counts as compiled too.
    expect(later.compileWaiting()).toBe(1);
    expect(runs).toEqual(['a', 'b']);
    expect(b()).toBeUndefined();
    expect(later.compileWaiting()).toBe(0);
    expect(runs).toEqual(['a', 'b']);
  });
});
