import fc from 'fast-check';

/**
 * Text that has broken services before: NUL, lone surrogates, right-to-left and zero-width marks,
 * emoji, Latin-1 and beyond, percent signs and escapes, path traversal, markup and SQL, numbers as
 * text, JavaScript's special property names, header injection, very long text.
 */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  'a\u0000b',
  'bob\u0000x@example.com',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  '\u200b\u200d\ufeff',
  '🎬🍿👨‍👩‍👧',
  'Ünïcödé ÿ ß',
  '漢字かなカナ',
  '\u00ff\u0100\uffff',
  '%ff',
  '%00',
  '%',
  '%zz',
  '%E6%BC%A2',
  '+',
  '../../etc/passwd',
  '..\\..\\windows',
  '%2e%2e/%2e%2e/',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' or 1=1 --",
  '"; drop table users; --',
  // A template placeholder of JavaScript, of Handlebars and of Eta.
  '$' + '{7*7}{{7*7}}<%= 7*7 %>',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '\r\nX-Injected: 1',
  'a'.repeat(101),
  'a'.repeat(1001),
  'é'.repeat(5000),
  'x'.repeat(70_000),
];

/** Any UTF-16 code units, lone surrogates and NUL included. */
const anyCodeUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
});

/** Odd text: the list above, random code units, random code points, or a mix with plain text. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: anyCodeUnits },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...ODD_STRINGS), fc.string({ maxLength: 8 }))
      .map(([a, b, c]) => a + b + c),
  },
);

/**
 * A percent-encoding of any JavaScript string, lone surrogates included (encodeURIComponent throws on
 * those): each code unit as its WTF-8 bytes, so a lone surrogate arrives as bytes that are no UTF-8.
 */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = '';
    for (const char of text) {
      const code = char.codePointAt(0)!;
      if (code >= 0xd800 && code <= 0xdfff) {
        out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join('');
      } else {
        out += encodeURIComponent(char);
      }
    }
    return out;
  }
}

/** No lone surrogate (String.prototype.isWellFormed is ES2024). */
export function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** A text as sent in a URL: `wellFormed` when it is the plain percent-encoding of valid Unicode. */
export interface EncodedText {
  encoded: string;
  wellFormed: boolean;
}

/** A path segment or query value as a client might send it: encoded, or with raw escapes left in. */
export const encodedComponent = (text: string): fc.Arbitrary<EncodedText> => {
  const encoded = percentEncode(text);
  const wellFormed = isWellFormed(text);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant({ encoded, wellFormed }) },
    { weight: 1, arbitrary: fc.constant({ encoded: encoded.replaceAll('%20', '+'), wellFormed }) },
    // What broken clients send: escapes that decode to nothing valid.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('%ff', '%00', '%', '%zz', '%c3%28', '%ED%A0%80', '%2e%2e', '%2F', '%5C', '%u0041')
        .map((raw) => ({ encoded: `${encoded}${raw}`, wellFormed: false })),
    },
  );
};

/** Is the encoded segment one the router takes as a parameter value (not empty, no dot segment, short)? */
export const routable = (encoded: string) => {
  if (encoded === '' || encoded.length > 100) return false;
  const decoded = (() => {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return null;
    }
  })();
  return decoded !== null && decoded !== '.' && decoded !== '..' && !decoded.includes('/');
};

/**
 * Percent-encoded control characters (NUL first of all) in a URL or form. Where such text is refused
 * (before or after the other checks) is the app's choice: the order-of-checks assertions leave it out.
 */
export const hasEncodedControl = (text: string) => /%(?:[01][0-9a-f]|7f)/i.test(text);
