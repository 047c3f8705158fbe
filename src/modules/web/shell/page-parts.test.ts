import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CSRF_MARKER, decodePart, encodePart, PART_MARKER, splicePart, withToken } from './page-parts.js';

describe('page parts', () => {
  it('splices the cached part into the page, with the token in place of every marker', () => {
    const html = `<li>Amélie 🎬<form><input value="${CSRF_MARKER}"></form></li><li><input value="${CSRF_MARKER}"></li>`;
    const bytes = Buffer.from(encodePart({ maxPage: 3, empty: false }, html));
    const part = decodePart<{ maxPage: number; empty: boolean }>(bytes);
    expect(part.meta).toEqual({ maxPage: 3, empty: false });
    const page = splicePart(`<main>${PART_MARKER}</main>`, part, 'tok-1');
    expect(page.toString('utf8')).toBe(`<main>${html.replaceAll(CSRF_MARKER, 'tok-1')}</main>`);
  });

  it('cuts each cached buffer once', () => {
    const bytes = Buffer.from(encodePart({}, `a${CSRF_MARKER}b`));
    expect(decodePart(bytes)).toBe(decodePart(bytes));
    expect(decodePart(Buffer.from(bytes))).not.toBe(decodePart(bytes));
  });

  it('gives the same page as replacing the markers in the strings, for any text', () => {
    const text = fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\u0000', ''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), text, text, (chunks, before, after) => {
        const html = chunks.join(CSRF_MARKER);
        const part = decodePart(Buffer.from(encodePart({ n: chunks.length }, html)));
        const page = splicePart(`${before}${PART_MARKER}${after}`, part, 'T0k');
        expect(page.toString('utf8')).toBe(`${before}${html.replaceAll(CSRF_MARKER, 'T0k')}${after}`);
      }),
    );
  });

  it('writes every byte of a buffer used again: nothing of the answer before shows through', () => {
    const text = fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\u0000', ''));
    const used = Buffer.alloc(64 * 1024, 'secret of the answer before ');
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), text, (chunks, token) => {
        const html = chunks.join(CSRF_MARKER);
        const { pieces } = decodePart(Buffer.from(encodePart({}, html)));
        const page = withToken(pieces, token, (size) => used.subarray(0, size));
        // Joined, not replaceAll: a token such as `$$` would be read as a replacement pattern.
        expect(page.toString('utf8')).toBe(chunks.join(token));
      }),
    );
  });
});
