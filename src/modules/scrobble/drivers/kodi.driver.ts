import type { ParsedReport, ScrobbleDriver, WebhookInput } from '../scrobble.types.js';
import {
  asObject,
  getAnyCase,
  ignored,
  movieRef,
  parseImdbId,
  parseTmdbId,
  readReportBody,
  rejected,
  text,
} from './payload.js';

const KODI_EVENT = 'scrobble';

/**
 * The movary-kodi-addon posts `{"title": ..., "uniqueIds": {"tmdbId": "..."}}` only once a movie
 * has ended or was stopped past 90%, so every report is a finished watch. It sends no time and no
 * user: the watch is dated on receipt.
 */
export const kodiDriver: ScrobbleDriver = {
  parse: parseKodiReport,
};

function parseKodiReport(input: WebhookInput): ParsedReport {
  const read = readReportBody(input, null);
  if (!read.ok) return rejected(read.reason);

  const uniqueIds = asObject(getAnyCase(read.body, 'uniqueIds'));
  const movie = movieRef({
    tmdbId: parseTmdbId(getAnyCase(uniqueIds, 'tmdbId')) ?? parseTmdbId(getAnyCase(uniqueIds, 'tmdb')),
    imdbId: parseImdbId(getAnyCase(uniqueIds, 'imdbId')) ?? parseImdbId(getAnyCase(uniqueIds, 'imdb')),
    title: text(getAnyCase(read.body, 'title')),
  });
  // Unlike the other servers' reports, nothing else here says a movie was played.
  if (Object.keys(movie).length === 0) return ignored(KODI_EVENT, null, 'no title and no movie ids');

  return {
    kind: 'watch',
    event: KODI_EVENT,
    account: null,
    movie,
    watchedAt: new Date(input.receivedAt.getTime()),
  };
}
