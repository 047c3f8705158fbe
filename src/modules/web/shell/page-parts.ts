import { ByteLru } from '../../../shared/byte-lru.js';

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
  const part = { meta, pieces: cutAtTokens(bytes.subarray(newline + 1)) };
  decoded.set(bytes, part);
  return part;
}

/** The page's HTML with the part in place of `PART_MARKER` and the token in its forms, as bytes. */
export function splicePart(html: string, part: PagePart<unknown>, csrfToken: string): Buffer {
  const at = html.indexOf(PART_MARKER);
  if (at === -1) return Buffer.from(html);
  return Buffer.concat([
    Buffer.from(html.slice(0, at)),
    withToken(part.pieces, csrfToken),
    Buffer.from(html.slice(at + PART_MARKER.length)),
  ]);
}

/**
 * Whole pages of signed-in users, kept as bytes cut at each CSRF token, keyed by what they are made
 * from: the template, the address (path and query), the user as the session read them, the bytes of
 * the cached sources the page shows (list pages, statistics: the services' caches hand back the same
 * Buffer while nothing it holds has changed, and a new one after any change) and what else the route
 * names (`extra`: today's year on the dashboard). A page is made only from those, so a kept page is
 * the page that would be made; a stale one is never asked for again and ages out (least recently used
 * first, `maxBytes` in all).
 *
 * Why: the dashboard cost 1.1 ms of CPU a view and the statistics page 0.7 ms at 100,000 plays, almost
 * all of it Eta laying out data that had not changed (docs/performance.md, "The web pages").
 */
export class WholePageCache {
  readonly #pages: ByteLru<Buffer[]>;

  constructor(maxBytes = 8 * 1024 * 1024) {
    this.#pages = new ByteLru(maxBytes, maxBytes / 8);
  }

  get(key: string): Buffer[] | undefined {
    return this.#pages.get(key);
  }

  /** Keeps the page (`CSRF_MARKER` where each token goes) and answers its pieces. */
  set(key: string, page: Buffer): Buffer[] {
    const pieces = cutAtTokens(page);
    this.#pages.set(key, pieces, page.length);
    return pieces;
  }
}

const sourceIds = new WeakMap<object, number>();
let lastSourceId = 0;

/** A number per source object (a cached Buffer, a user as a session read it), the same while it lives. */
export function sourceId(source: object): number {
  let id = sourceIds.get(source);
  if (id === undefined) {
    id = ++lastSourceId;
    sourceIds.set(source, id);
  }
  return id;
}

/** The bytes cut at each `CSRF_MARKER`. */
function cutAtTokens(bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(CSRF_BYTES, start); at !== -1; at = bytes.indexOf(CSRF_BYTES, start)) {
    pieces.push(bytes.subarray(start, at));
    start = at + CSRF_BYTES.length;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/**
 * The pieces joined with the request's CSRF token, into a buffer from `allocate` (a new one by default;
 * the renderer's come back after each answer: answer-buffers.ts). One piece: that piece, shared.
 */
export function withToken(
  pieces: readonly Buffer[],
  csrfToken: string,
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  if (pieces.length === 1) return pieces[0]!;
  const token = Buffer.from(csrfToken);
  let size = token.length * (pieces.length - 1);
  for (const piece of pieces) size += piece.length;
  const page = allocate(size);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) at += token.copy(page, at);
    at += pieces[i]!.copy(page, at);
  }
  return page;
}
