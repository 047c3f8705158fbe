import type { MovieRef, ParsedReport, WebhookInput } from '../scrobble.types.js';

/** A decoded JSON object; its values are unchecked until a reader below looks at them. */
export type JsonObject = { readonly [key: string]: unknown };

export type BodyResult = { ok: true; body: JsonObject } | { ok: false; reason: string };

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The report object of a request. `field` names the form field that carries it (Plex `payload`,
 * Emby `data`); `null` takes the first form field holding a JSON object. A raw body is tried as
 * JSON first whatever its content type, then as a urlencoded form.
 */
export function readReportBody(input: WebhookInput, field: string | null): BodyResult {
  if (input.fields !== null) {
    return fromForm(Object.entries(input.fields), field) ?? missingField(field, 'multipart body');
  }
  const text = stripByteOrderMark(input.raw ?? '');
  if (text.trim() === '') return { ok: false, reason: 'the body is empty' };

  const json = parseJson(text);
  if (json.ok) return asReport(json.value, 'the body');

  const form = fromForm(formFields(text), field);
  if (form !== undefined && (form.ok || field === null)) return form;
  // `curl -d 'payload={...}'` posts the JSON unencoded, so `&` or `+` in it break form decoding.
  const verbatim = field === null ? undefined : verbatimField(text, field);
  if (verbatim !== undefined) return asReport(verbatim.value, `the "${field}" field`);
  if (form !== undefined) return form;
  return {
    ok: false,
    reason:
      field === null ? 'the body is not JSON' : `the body is neither JSON nor a form with a "${field}" field`,
  };
}

/** The named field's report, or the first field holding a JSON object; undefined when none fits. */
function fromForm(
  entries: ReadonlyArray<readonly [string, string]>,
  field: string | null,
): BodyResult | undefined {
  if (field !== null) {
    const entry = entries.find(([name]) => name === field);
    if (entry === undefined) return undefined;
    const json = parseJson(stripByteOrderMark(entry[1]));
    return json.ok
      ? asReport(json.value, `the "${field}" field`)
      : { ok: false, reason: `the "${field}" field is not JSON` };
  }
  for (const [, value] of entries) {
    const json = parseJson(stripByteOrderMark(value));
    if (json.ok && asObject(json.value) !== null) return asReport(json.value, 'the form field');
  }
  return undefined;
}

/**
 * The fields of an `application/x-www-form-urlencoded` body, exactly as URLSearchParams reads them.
 * decodeURIComponent is several times faster; it refuses what the form decoding repairs (a malformed
 * escape, bytes that are no UTF-8), and then URLSearchParams reads the body.
 */
export function formFields(text: string): [string, string][] {
  const fields: [string, string][] = [];
  try {
    for (const part of text.split('&')) {
      if (part === '') continue;
      const equals = part.indexOf('=');
      fields.push(
        equals === -1
          ? [decodeFormPart(part), '']
          : [decodeFormPart(part.slice(0, equals)), decodeFormPart(part.slice(equals + 1))],
      );
    }
  } catch {
    return [...new URLSearchParams(text)];
  }
  return fields;
}

const decodeFormPart = (part: string) =>
  part.includes('%') || part.includes('+') ? decodeURIComponent(part.replaceAll('+', ' ')) : part;

function missingField(field: string | null, where: string): BodyResult {
  return {
    ok: false,
    reason:
      field === null ? `no field of the ${where} holds a JSON object` : `no "${field}" field in the ${where}`,
  };
}

function verbatimField(text: string, field: string): { value: unknown } | undefined {
  const prefix = `${field}=`;
  if (!text.startsWith(prefix)) return undefined;
  const json = parseJson(text.slice(prefix.length));
  return json.ok ? { value: json.value } : undefined;
}

function asReport(value: unknown, what: string): BodyResult {
  const body = asObject(value);
  if (body !== null) return { ok: true, body };
  return { ok: false, reason: `${what} is JSON but not an object (${jsonTypeOf(value)})` };
}

/** What JSON text can start with: anything else would only make JSON.parse throw, which costs more. */
const JSON_START = /^\s*[[{"\-0-9tfn]/;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (!JSON_START.test(text)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function stripByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// ---- Reading values leniently -------------------------------------------------------------

export function asObject(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** An own property only, so keys such as `constructor` never reach the prototype. */
export function get(object: JsonObject | null, key: string): unknown {
  return object !== null && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `get`, falling back to the first key that differs only in letter case. */
export function getAnyCase(object: JsonObject | null, key: string): unknown {
  if (object === null) return undefined;
  if (Object.hasOwn(object, key)) return object[key];
  const lower = key.toLowerCase();
  const match = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return match === undefined ? undefined : object[match];
}

/** A string with something in it other than whitespace; anything else is missing. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Enum-like names (event names, item types) compared without regard to letter case. */
export function sameName(value: string | null, expected: string): boolean {
  return value !== null && value.toLowerCase() === expected.toLowerCase();
}

/** `true`/`false`, or the strings "true"/"True"/"false"...; anything else is missing. */
export function parseFlag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const normalised = value.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false') return false;
  return undefined;
}

/** A finite number, or a string holding one in plain decimal notation. */
export function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) return undefined;
  return Number(value);
}

/** A TMDB id: a positive integer, as a number or a string of digits. */
export function parseTmdbId(value: unknown): number | undefined {
  let id: number;
  if (typeof value === 'number') id = value;
  else if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) id = Number(value);
  else return undefined;
  // TMDB ids are 32-bit; a larger number names no movie (and overflows an integer column).
  return Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647 ? id : undefined;
}

/** An IMDb id `tt<digits>` (any case of `tt`), normalised to a lower-case `tt`. */
export function parseImdbId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^\s*tt(\d+)\s*$/i.exec(value);
  return match ? `tt${match[1]}` : undefined;
}

// Date.parse is unreliable with 7 fraction digits (.NET), hence a strict pattern of our own.
const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * An ISO 8601 date and time: 0-9 fraction digits (truncated to milliseconds), `Z`, `+01:00`,
 * `+0100` or `+01`; without a zone it is taken as UTC.
 */
export function parseTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = ISO_TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, , sign, offsetHours, offsetMinutes] = match;
  const parts = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? '0'),
    millisecond: Number((fraction ?? '').slice(0, 3).padEnd(3, '0')),
  };
  const offset = { hours: Number(offsetHours ?? '0'), minutes: Number(offsetMinutes ?? '0') };
  if (parts.month < 1 || parts.month > 12 || parts.day < 1) return null;
  if (parts.hour > 23 || parts.minute > 59 || parts.second > 59) return null;
  if (offset.hours > 23 || offset.minutes > 59) return null;

  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 onto 1900-1999.
  date.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  if (date.getUTCMonth() !== parts.month - 1) return null; // 2023-02-30 rolled over into March
  date.setUTCHours(parts.hour, parts.minute, parts.second, parts.millisecond);
  const offsetMs = (offset.hours * 60 + offset.minutes) * 60_000;
  return new Date(date.getTime() - (sign === '-' ? -offsetMs : offsetMs));
}

/** Unix seconds (Plex `lastViewedAt`), as a number or a numeric string. */
export function parseEpochSeconds(value: unknown): Date | null {
  const seconds = parseNumber(value);
  if (seconds === undefined || seconds <= 0) return null;
  const date = new Date(Math.round(seconds * 1000));
  return Number.isNaN(date.getTime()) ? null : date;
}

const LATEST_PLAUSIBLE_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The first candidate that is a plausible event time, else the receipt time. Times at or before
 * 1970 (.NET's DateTime.MinValue, epoch 0) and past year 9999 (milliseconds sent as seconds) are
 * placeholders or mistakes, not watches. A time after the receipt is a server clock that runs ahead:
 * the receipt time is taken (no play is ever on a day after the user's today: library.rules.ts).
 */
export function eventTime(candidates: ReadonlyArray<Date | null>, receivedAt: Date): Date {
  const found = candidates.find(
    (candidate) =>
      candidate !== null && candidate.getTime() > 0 && candidate.getTime() <= LATEST_PLAUSIBLE_TIME,
  );
  return new Date(Math.min((found ?? receivedAt).getTime(), receivedAt.getTime()));
}

// ---- Results -----------------------------------------------------------------------------

/** A MovieRef without the keys whose values are missing. */
export function movieRef(ids: {
  tmdbId?: number | undefined;
  imdbId?: string | undefined;
  title?: string | null;
}): MovieRef {
  const movie: MovieRef = {};
  if (ids.tmdbId !== undefined) movie.tmdbId = ids.tmdbId;
  if (ids.imdbId !== undefined) movie.imdbId = ids.imdbId;
  if (ids.title !== undefined && ids.title !== null) movie.title = ids.title;
  return movie;
}

export function ignored(event: string, account: string | null, reason: string): ParsedReport {
  return { kind: 'ignored', event, account, reason };
}

export function rejected(reason: string): ParsedReport {
  return { kind: 'rejected', reason };
}

/** The reason for an item that is not a movie, naming what it is. */
export function notAMovie(type: string | null): string {
  return type === null ? 'not a movie (no item type)' : `not a movie (${type})`;
}

/** The reason for an event that cinelog does not record. */
export function notAWatch(event: string): string {
  return event === '' ? 'no event name' : `event ${event} is not a finished watch`;
}
