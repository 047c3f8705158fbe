import type { MovieRef, ParsedReport, ScrobbleDriver, WebhookInput } from '../scrobble.types.js';
import {
  asObject,
  eventTime,
  get,
  ignored,
  type JsonObject,
  movieRef,
  notAMovie,
  notAWatch,
  parseEpochSeconds,
  parseFlag,
  parseImdbId,
  parseNumber,
  parseTmdbId,
  readReportBody,
  rejected,
  sameName,
  text,
} from './payload.js';

// The new agent lists `tmdb://6978` in `Guid[]`; legacy agents put theirs in `guid` with a query.
const TMDB_GUID = /^(?:com\.plexapp\.agents\.)?(?:tmdb|themoviedb):\/\/(\d+)(?:[?#/].*)?$/i;
const IMDB_GUID = /^(?:com\.plexapp\.agents\.)?imdb:\/\/(tt\d+)(?:[?#/].*)?$/i;

const PLEX_MAX_RATING = 10;

/**
 * Plex rates 0-10, two points a star (3½ stars are 7); cinelog keeps whole numbers 1-10. Stars give
 * whole numbers, but the field is a decimal: one between two goes to the nearer, a half up (7.5 is 8,
 * 7.4 is 7). Any rating above 0 is a rating, so at least 1.
 */
function cinelogRating(plexRating: number): number {
  return Math.max(1, Math.round(plexRating));
}

/**
 * Plex posts multipart/form-data with the JSON report in the `payload` field. Counted: a
 * `media.scrobble` (played past 90%) and a `media.rate` of a movie, for the webhook owner's own
 * account (`user: true`).
 */
export const plexDriver: ScrobbleDriver = {
  parse: parsePlexReport,
};

function parsePlexReport(input: WebhookInput): ParsedReport {
  const read = readReportBody(input, 'payload');
  if (!read.ok) return rejected(read.reason);
  const body = read.body;

  const event = text(get(body, 'event')) ?? '';
  const account = text(get(asObject(get(body, 'Account')), 'title'));
  const isScrobble = sameName(event, 'media.scrobble');
  if (!isScrobble && !sameName(event, 'media.rate')) return ignored(event, account, notAWatch(event));

  // A shared server's owner also receives the other accounts' events; those are not this user's.
  const user = parseFlag(get(body, 'user'));
  if (user === false) return ignored(event, account, 'reported for another Plex account (user: false)');
  if (user === undefined)
    return ignored(event, account, 'no user flag, so not known to be this Plex account');

  const metadata = asObject(get(body, 'Metadata'));
  if (metadata === null) return ignored(event, account, 'no item metadata');
  const type = text(get(metadata, 'type'));
  if (!sameName(type, 'movie')) return ignored(event, account, notAMovie(type));

  const movie = plexMovie(metadata);
  if (isScrobble) {
    const watchedAt = eventTime([parseEpochSeconds(get(metadata, 'lastViewedAt'))], input.receivedAt);
    return { kind: 'watch', event, account, movie, watchedAt };
  }

  const rating = parseNumber(get(body, 'rating'));
  if (rating !== undefined && rating > PLEX_MAX_RATING) {
    return ignored(event, account, `rating ${rating} is outside Plex's 0-10 scale`);
  }
  const kept = rating !== undefined && rating > 0 ? cinelogRating(rating) : null;
  return { kind: 'rate', event, account, movie, rating: kept };
}

function plexMovie(metadata: JsonObject): MovieRef {
  const guids: string[] = [];
  const list = get(metadata, 'Guid');
  if (Array.isArray(list)) {
    for (const entry of list as unknown[]) {
      const id = typeof entry === 'string' ? entry : text(get(asObject(entry), 'id'));
      if (id !== null) guids.push(id);
    }
  }
  // After the Guid[] entries: a legacy agent's guid, or the new agent's plex:// one (no ids).
  const guid = text(get(metadata, 'guid'));
  if (guid !== null) guids.push(guid);

  return movieRef({
    tmdbId: firstMatch(guids, TMDB_GUID, parseTmdbId),
    imdbId: firstMatch(guids, IMDB_GUID, parseImdbId),
    title: text(get(metadata, 'title')),
  });
}

function firstMatch<T>(
  guids: readonly string[],
  pattern: RegExp,
  read: (id: string) => T | undefined,
): T | undefined {
  for (const guid of guids) {
    const id = pattern.exec(guid.trim())?.[1];
    const value = id === undefined ? undefined : read(id);
    if (value !== undefined) return value;
  }
  return undefined;
}
