/**
 * A part of a page kept in the page cache as bytes (the history's entries), spliced into the page
 * without being decoded, copied into the template's string and encoded again: the page is sent as
 * bytes, the layout's around the part's. The part's forms carry `CSRF_MARKER` where the page's CSRF
 * token goes; a NUL, which no user text can hold (refused as input everywhere).
 *
 * Why: on the cached history page, decoding the 40 KB part, copying it through the template and
 * encoding the page again cost about a fifth of the request (docs/performance.md, "The web pages").
 */
export const CSRF_MARKER = '\u0000csrf\u0000';
/** Where the page's template puts the part (`<%~ it.part %>`). */
export const PART_MARKER = '\u0000part\u0000';

const CSRF_BYTES = Buffer.from(CSRF_MARKER);
const NEWLINE = 0x0a;

/** A cached part: what the page needs to know of it, and its bytes cut at each CSRF token. */
export interface PagePart<Meta> {
  meta: Meta;
  pieces: Buffer[];
}

/** The bytes to cache: the meta as one JSON line, then the HTML. */
export function encodePart(meta: object, html: string): string {
  return `${JSON.stringify(meta)}\n${html}`;
}

// The page cache hands back the same Buffer while the page is unchanged: each is cut once.
const decoded = new WeakMap<Buffer, PagePart<unknown>>();

export function decodePart<Meta>(bytes: Buffer): PagePart<Meta> {
  const known = decoded.get(bytes);
  if (known) return known as PagePart<Meta>;
  const newline = bytes.indexOf(NEWLINE);
  const meta = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Meta;
  const pieces: Buffer[] = [];
  let start = newline + 1;
  for (let at = bytes.indexOf(CSRF_BYTES, start); at !== -1; at = bytes.indexOf(CSRF_BYTES, start)) {
    pieces.push(bytes.subarray(start, at));
    start = at + CSRF_BYTES.length;
  }
  pieces.push(bytes.subarray(start));
  const part = { meta, pieces };
  decoded.set(bytes, part);
  return part;
}

/** The page's HTML with the part in place of `PART_MARKER` and the token in its forms, as bytes. */
export function splicePart(html: string, part: PagePart<unknown>, csrfToken: string): Buffer {
  const at = html.indexOf(PART_MARKER);
  if (at === -1) return Buffer.from(html);
  const token = Buffer.from(csrfToken);
  const chunks: Buffer[] = [Buffer.from(html.slice(0, at))];
  part.pieces.forEach((piece, i) => {
    if (i > 0) chunks.push(token);
    chunks.push(piece);
  });
  chunks.push(Buffer.from(html.slice(at + PART_MARKER.length)));
  return Buffer.concat(chunks);
}
