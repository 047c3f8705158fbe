import type { ParsedReport, ScrobbleDriver, WebhookInput } from '../scrobble.types.js';
import {
  asObject,
  eventTime,
  get,
  getAnyCase,
  ignored,
  movieRef,
  notAMovie,
  notAWatch,
  parseFlag,
  parseImdbId,
  parseTimestamp,
  parseTmdbId,
  readReportBody,
  rejected,
  sameName,
  text,
} from './payload.js';

/**
 * Emby's built-in webhooks: the JSON report in the multipart field `data` by default, or the raw
 * body when the "Request content type" is application/json. Counted: `playback.stop` of a movie
 * played to completion, and `item.markplayed` of a movie (sent only for a manual mark).
 */
export const embyDriver: ScrobbleDriver = {
  parse: parseEmbyReport,
};

function parseEmbyReport(input: WebhookInput): ParsedReport {
  const read = readReportBody(input, 'data');
  if (!read.ok) return rejected(read.reason);
  const body = read.body;

  const event = text(get(body, 'Event')) ?? '';
  const account = text(get(asObject(get(body, 'User')), 'Name'));
  const item = asObject(get(body, 'Item'));
  const itemType = text(get(item, 'Type'));

  if (sameName(event, 'playback.stop')) {
    if (!sameName(itemType, 'Movie')) return ignored(event, account, notAMovie(itemType));
    // PlaybackInfo, not Session: when autoplay moves on, Session already describes the next item.
    const completed = parseFlag(get(asObject(get(body, 'PlaybackInfo')), 'PlayedToCompletion'));
    if (completed === false) {
      return ignored(event, account, 'stopped before the end (PlayedToCompletion: false)');
    }
    if (completed === undefined) return ignored(event, account, 'no PlaybackInfo.PlayedToCompletion flag');
  } else if (sameName(event, 'item.markplayed')) {
    if (!sameName(itemType, 'Movie')) return ignored(event, account, notAMovie(itemType));
  } else {
    return ignored(event, account, notAWatch(event));
  }

  const providerIds = asObject(get(item, 'ProviderIds'));
  return {
    kind: 'watch',
    event,
    account,
    movie: movieRef({
      tmdbId: parseTmdbId(getAnyCase(providerIds, 'Tmdb')),
      imdbId: parseImdbId(getAnyCase(providerIds, 'Imdb')),
      title: text(get(item, 'Name')),
    }),
    watchedAt: eventTime([parseTimestamp(get(body, 'Date'))], input.receivedAt),
  };
}
