import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors.js';
import { parseRewatch, parseTags, ratingChoices } from './play-form.js';

// The log form's fields as the routes read them: no database, no HTTP.

describe('the tags field', () => {
  it('splits on commas, trims, drops empty pieces and keeps one spelling per tag', () => {
    expect(parseTags(undefined)).toEqual([]);
    expect(parseTags(' , ')).toEqual([]);
    expect(parseTags(' cinema ,with   Sam,, Cinema ,noir')).toEqual(['cinema', 'with Sam', 'noir']);
  });

  it('refuses a tag over 100 characters and more than 50 tags, saying why', () => {
    expect(() => parseTags(`ok, ${'x'.repeat(101)}`)).toThrow(ValidationError);
    expect(() => parseTags(`ok, ${'x'.repeat(101)}`)).toThrow(/at most 100 characters/);
    expect(parseTags(`${'x'.repeat(100)}`)).toHaveLength(1);
    const fifty = Array.from({ length: 50 }, (_, i) => `t${i}`);
    expect(parseTags(fifty.join(','))).toHaveLength(50);
    expect(() => parseTags([...fifty, 't50'].join(','))).toThrow(/at most 50 tags, not 51/);
  });
});

describe('the rewatch box', () => {
  it('left as shown is for the diary to derive; changed, it is the user’s word', () => {
    expect(parseRewatch({ rewatch: 'on', rewatchShown: 'on' })).toBeUndefined();
    expect(parseRewatch({ rewatchShown: 'off' })).toBeUndefined();
    expect(parseRewatch({ rewatchShown: 'on' })).toBe(false);
    expect(parseRewatch({ rewatch: 'on', rewatchShown: 'off' })).toBe(true);
    // A form that did not say how it showed the box (none of ours): ticked is a rewatch.
    expect(parseRewatch({ rewatch: 'on' })).toBe(true);
    expect(parseRewatch({})).toBeUndefined();
  });
});

describe('the rating choices', () => {
  it("name each value in the user's scale, best first", () => {
    expect(ratingChoices('stars')[0]).toEqual({ value: 10, label: '5 stars', scale: 'stars' });
    expect(ratingChoices('stars')[3]).toEqual({ value: 7, label: '3½ stars', scale: 'stars' });
    expect(ratingChoices('points').at(-1)).toEqual({ value: 1, label: '1/10', scale: 'points' });
  });
});
