/**
 * What every answer must look like, whatever was sent (docs/api-notes.md, the spec's section 7):
 * never a 5xx; an API error with a body is exactly `{ error, message }`; a 401 has no body and
 * `WWW-Authenticate: Bearer`; a page's error is an HTML page; a redirect stays on this site. Each
 * checker throws an Error naming the request and what was wrong.
 */

/** The parts of a response the checkers read (a light-my-request response has them). */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** A short description of a request, for failure messages. */
export type RequestLabel = string;

const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;

function fail(label: RequestLabel, answer: Answer, what: string): never {
  const body = answer.body.length > 300 ? `${answer.body.slice(0, 300)}…` : answer.body;
  throw new Error(`${what}\n  request: ${label}\n  answer: ${answer.statusCode} ${body}`);
}

const header = (answer: Answer, name: string) => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
};

export function expectNo5xx(label: RequestLabel, answer: Answer): void {
  if (answer.statusCode >= 500) fail(label, answer, `a ${answer.statusCode} (a 5xx is always a bug)`);
}

/**
 * An answer of the JSON API: no 5xx; a 401 without a body and with `WWW-Authenticate: Bearer`; any
 * other 4xx exactly `{ error: <PascalCase>, message: <text> }` as JSON.
 */
export function expectApiAnswer(label: RequestLabel, answer: Answer): void {
  expectNo5xx(label, answer);
  if (answer.statusCode === 401) {
    if (answer.body !== '') fail(label, answer, 'a 401 with a body (it has none)');
    if (header(answer, 'www-authenticate') !== 'Bearer')
      fail(label, answer, 'a 401 without WWW-Authenticate: Bearer');
    return;
  }
  if (answer.statusCode >= 400) expectEnvelope(label, answer);
}

/** The one error envelope: JSON `{ error, message }`, nothing else, the code in PascalCase. */
export function expectEnvelope(label: RequestLabel, answer: Answer): void {
  const type = header(answer, 'content-type') ?? '';
  if (!type.startsWith('application/json'))
    fail(label, answer, `an error that is not JSON (${type || 'no content type'})`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    fail(label, answer, 'an error body that does not parse as JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    fail(label, answer, 'an error body that is not an object');
  const keys = Object.keys(body).sort();
  if (keys.join(',') !== 'error,message')
    fail(label, answer, `an error body with keys ${keys.join(', ')} (only error and message)`);
  const { error, message } = body as { error: unknown; message: unknown };
  if (typeof error !== 'string' || !PASCAL_CASE.test(error))
    fail(label, answer, `an error code that is not PascalCase text: ${String(error)}`);
  if (typeof message !== 'string' || message === '') fail(label, answer, 'an error message that is not text');
  const expected = FITTING_CODES[answer.statusCode];
  if (expected && !expected.test(error))
    fail(label, answer, `the code ${error} does not fit the status ${answer.statusCode}`);
}

/**
 * The codes that fit a status: a 404 names what was not found, a 403 is Forbidden, and so on. (A 400
 * may name an id that was not found: `POST /movies/add` answers an unknown TMDB id so, as the spec says.)
 */
const FITTING_CODES: Record<number, RegExp> = {
  403: /^Forbidden$/,
  404: /NotFound$/,
  413: /^PayloadTooLarge$/,
  415: /^UnsupportedMediaType$/,
  429: /^TooManyRequests$/,
};

/**
 * An answer of a web page or form: no 5xx; an error is an HTML page (or, for an address the router
 * refuses before any page is reached, the API's envelope); a redirect goes to a path of this site,
 * whatever a browser makes of it.
 */
export function expectPageAnswer(label: RequestLabel, answer: Answer, origin: string): void {
  expectNo5xx(label, answer);
  if (answer.statusCode >= 400) {
    const type = header(answer, 'content-type') ?? '';
    if (type.startsWith('application/json')) expectEnvelope(label, answer);
    else if (!type.startsWith('text/html'))
      fail(label, answer, `a page error that is not an HTML page (${type || 'no content type'})`);
  }
  if (answer.statusCode >= 300 && answer.statusCode < 400) {
    const location = header(answer, 'location');
    if (location === undefined) fail(label, answer, 'a redirect without a Location');
    expectSameSite(label, answer, location, origin);
  }
}

/** The target a browser goes to for a Location stays on `origin` (browsers drop tabs and newlines). */
export function expectSameSite(label: RequestLabel, answer: Answer, location: string, origin: string): void {
  const asBrowsed = location.replace(/[\t\n\r]/g, '');
  let target: URL;
  try {
    target = new URL(asBrowsed, `${origin}/some/page`);
  } catch {
    fail(label, answer, `a redirect to an address a browser cannot read: ${JSON.stringify(location)}`);
  }
  if (target.origin !== origin)
    fail(label, answer, `a redirect off the site: ${JSON.stringify(location)} -> ${target.href}`);
}

/** The status the order of checks demands (401, then 404 for the user, then 403, then 400). */
export function expectStatus(label: RequestLabel, answer: Answer, status: number, code?: string): void {
  if (answer.statusCode !== status) fail(label, answer, `expected ${status}${code ? ` ${code}` : ''}`);
  if (code !== undefined && !answer.body.includes(`"error":"${code}"`))
    fail(label, answer, `expected the code ${code}`);
}

/** Any answer at all (stray addresses, the docs): no 5xx, and a JSON error is the envelope. */
export function expectAnyAnswer(label: RequestLabel, answer: Answer): void {
  expectNo5xx(label, answer);
  const type = header(answer, 'content-type') ?? '';
  if (
    answer.statusCode >= 400 &&
    answer.statusCode !== 401 &&
    (type.startsWith('application/json') || type === '')
  ) {
    if (answer.body !== '' || type !== '') expectEnvelope(label, answer);
    else fail(label, answer, `a ${answer.statusCode} without a body or a content type`);
  }
}
