import type { ParsedReport, ScrobbleDriver, WebhookInput } from '../scrobble.types.js';
import {
  eventTime,
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
 * The jellyfin-plugin-webhook Generic destination with "Send All Properties": flat JSON sent as
 * text/plain. Counted: `PlaybackStop` of a movie played to completion, and a manual mark as played
 * (`UserDataSaved` with `SaveReason: TogglePlayed`). `UserDataSaved` for `PlaybackFinished` is not
 * counted: the `PlaybackStop` of the same playback already is.
 */
export const jellyfinDriver: ScrobbleDriver = {
  parse: parseJellyfinReport,
};

function parseJellyfinReport(input: WebhookInput): ParsedReport {
  const read = readReportBody(input, null);
  if (!read.ok) return rejected(read.reason);
  // The plugin's dictionary ignores key case, so any casing of a key is the same key.
  const field = (key: string) => getAnyCase(read.body, key);

  const event = text(field('NotificationType')) ?? '';
  const account = unescapeQuotes(text(field('NotificationUsername')));
  const itemType = text(field('ItemType'));

  if (sameName(event, 'PlaybackStop')) {
    if (!sameName(itemType, 'Movie')) return ignored(event, account, notAMovie(itemType));
    const completed = parseFlag(field('PlayedToCompletion'));
    if (completed === false) {
      return ignored(event, account, 'stopped before the end (PlayedToCompletion: false)');
    }
    if (completed === undefined) return ignored(event, account, 'no PlayedToCompletion flag');
  } else if (sameName(event, 'UserDataSaved')) {
    if (!sameName(itemType, 'Movie')) return ignored(event, account, notAMovie(itemType));
    const saveReason = text(field('SaveReason'));
    if (!sameName(saveReason, 'TogglePlayed')) {
      return ignored(
        event,
        account,
        `user data saved for ${saveReason ?? 'no reason'}, not a mark as played`,
      );
    }
    if (parseFlag(field('Played')) !== true) return ignored(event, account, 'marked as not played');
  } else {
    return ignored(event, account, notAWatch(event));
  }

  return {
    kind: 'watch',
    event,
    account,
    movie: movieRef({
      tmdbId: parseTmdbId(field('Provider_tmdb')),
      imdbId: parseImdbId(field('Provider_imdb')),
      title: unescapeQuotes(text(field('Name'))),
    }),
    watchedAt: eventTime(
      [parseTimestamp(field('UtcTimestamp')), parseTimestamp(field('Timestamp'))],
      input.receivedAt,
    ),
  };
}

/** The plugin escapes `"` as `\"` in names before serialising them, so they arrive doubled up. */
function unescapeQuotes(value: string | null): string | null {
  return value === null ? null : value.replaceAll('\\"', '"');
}
