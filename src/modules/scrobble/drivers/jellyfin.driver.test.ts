import { describe, expect, it } from 'vitest';
import {
  fixtureJson,
  fixtureText,
  jsonInput,
  multipartInput,
  RECEIVED_AT,
  rawInput,
} from '../../../../test/fixtures/webhooks/inputs.js';
import type { ParsedReport } from '../scrobble.types.js';
import { jellyfinDriver } from './jellyfin.driver.js';

type Body = Record<string, unknown>;

/** A fixture, possibly changed, sent the way the plugin sends it: compact JSON as text/plain. */
function report(name: string, change: (body: Body) => void = () => {}) {
  const body = fixtureJson(name);
  change(body);
  return jsonInput(body, 'text/plain');
}

const kitesWatch: ParsedReport = {
  kind: 'watch',
  event: 'PlaybackStop',
  account: 'marguerite',
  movie: { tmdbId: 902318, imdbId: 'tt9023184', title: 'Paper Kites at Dawn' },
  watchedAt: new Date('2025-06-14T20:41:07.331Z'),
};

const ignoredAs = (event: string, reason: string, account: string | null = 'marguerite'): ParsedReport => ({
  kind: 'ignored',
  event,
  account,
  reason,
});

describe('Jellyfin driver: request bodies', () => {
  it.each([
    ['text/plain (what the plugin sends)', 'text/plain'],
    ['application/json', 'application/json'],
    ['no content type', ''],
    ['a urlencoded content type', 'application/x-www-form-urlencoded'],
  ])('reads the raw body as JSON with %s', (_, contentType) => {
    const input = rawInput(fixtureText('jellyfin-playbackstop-movie.json'), contentType);
    expect(jellyfinDriver.parse(input)).toEqual(kitesWatch);
  });

  it('strips a UTF-8 byte order mark', () => {
    const input = rawInput(`\uFEFF${fixtureText('jellyfin-playbackstop-movie.json')}`, 'text/plain');
    expect(jellyfinDriver.parse(input)).toEqual(kitesWatch);
  });

  it('reads a multipart field holding the JSON', () => {
    const input = multipartInput({ note: 'hello', report: fixtureText('jellyfin-playbackstop-movie.json') });
    expect(jellyfinDriver.parse(input)).toEqual(kitesWatch);
  });

  it.each([
    ['an empty body', rawInput('', 'text/plain'), 'the body is empty'],
    ['no body at all', rawInput(null, ''), 'the body is empty'],
    ['text', rawInput('PlaybackStop', 'text/plain'), 'the body is not JSON'],
    ['truncated JSON', rawInput('{"NotificationType":"PlaybackStop"', 'text/plain'), 'the body is not JSON'],
    [
      'a JSON array',
      rawInput('[{"NotificationType":"PlaybackStop"}]', 'text/plain'),
      'the body is JSON but not an object (array)',
    ],
    ['JSON null', rawInput('null', 'text/plain'), 'the body is JSON but not an object (null)'],
    [
      'a JSON string',
      rawInput('"PlaybackStop"', 'text/plain'),
      'the body is JSON but not an object (string)',
    ],
    ['a JSON boolean', rawInput('true', 'text/plain'), 'the body is JSON but not an object (boolean)'],
    [
      'a multipart body without JSON',
      multipartInput({ a: 'b' }),
      'no field of the multipart body holds a JSON object',
    ],
  ])('rejects %s', (_, input, reason) => {
    expect(jellyfinDriver.parse(input)).toEqual({ kind: 'rejected', reason });
  });
});

describe('Jellyfin driver: PlaybackStop', () => {
  it('counts a movie played to completion (current plugin)', () => {
    expect(jellyfinDriver.parse(report('jellyfin-playbackstop-movie.json'))).toEqual(kitesWatch);
  });

  it('counts a movie played to completion (plugin of Jellyfin 10.8)', () => {
    expect(jellyfinDriver.parse(report('jellyfin-playbackstop-movie-plugin-10.8.json'))).toEqual({
      ...kitesWatch,
      watchedAt: new Date('2023-11-05T07:12:44.612Z'),
    });
  });

  it('undoes the plugin escaping of quotes in a title', () => {
    const input = rawInput(fixtureText('jellyfin-playbackstop-movie-quoted-title.json'), 'text/plain');
    expect(jellyfinDriver.parse(input)).toEqual({
      ...kitesWatch,
      movie: { tmdbId: 713550, imdbId: 'tt7135502', title: 'The "Wolf" Sonata' },
      watchedAt: new Date('2025-06-17T21:05:10.040Z'),
    });
  });

  it('keeps a backslash that does not escape a quote', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.Name = 'AC\\DC: Live \\"Nowhere\\"';
      body.NotificationUsername = 'say \\"hi\\"';
    });
    expect(jellyfinDriver.parse(input)).toEqual({
      ...kitesWatch,
      account: 'say "hi"',
      movie: { ...kitesWatch.movie, title: 'AC\\DC: Live "Nowhere"' },
    });
  });

  it.each([
    ['"true"', 'true'],
    ['"True"', 'True'],
  ])('takes PlayedToCompletion %s as true', (_, flag) => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.PlayedToCompletion = flag;
    });
    expect(jellyfinDriver.parse(input)).toEqual(kitesWatch);
  });

  it.each([
    ['numbers', 902318, 'tt9023184', { tmdbId: 902318, imdbId: 'tt9023184' }],
    ['an upper-case TT', '902318', 'TT9023184', { tmdbId: 902318, imdbId: 'tt9023184' }],
    ['missing', undefined, undefined, {}],
    ['zero and garbage', '0', 'nm0000001', {}],
    ['negative and empty', -4, '', {}],
    ['fractional', '902318.5', 'tt', {}],
    ['objects', { id: 1 }, ['tt1'], {}],
  ])('reads provider ids that are %s', (_, tmdb, imdb, ids) => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.Provider_tmdb = tmdb;
      body.Provider_imdb = imdb;
    });
    expect(jellyfinDriver.parse(input)).toEqual({
      ...kitesWatch,
      movie: { ...ids, title: 'Paper Kites at Dawn' },
    });
  });

  it('reads keys in any letter case, as the plugin dictionary does', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      delete body.Provider_tmdb;
      delete body.NotificationUsername;
      body.Provider_Tmdb = '902318';
      body.notificationusername = 'marguerite';
    });
    expect(jellyfinDriver.parse(input)).toEqual(kitesWatch);
  });

  it('has no title when Name is not a string', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.Name = 1984;
    });
    expect(jellyfinDriver.parse(input)).toEqual({
      ...kitesWatch,
      movie: { tmdbId: 902318, imdbId: 'tt9023184' },
    });
  });

  it.each([
    [
      'UtcTimestamp with 6 fraction digits',
      '2025-06-14T20:41:07.331891Z',
      undefined,
      '2025-06-14T20:41:07.331Z',
    ],
    [
      'UtcTimestamp with 7 fraction digits',
      '2025-06-14T20:41:07.3318842Z',
      undefined,
      '2025-06-14T20:41:07.331Z',
    ],
    [
      'UtcTimestamp with 3 fraction digits',
      '2025-06-14T20:41:07.330Z',
      undefined,
      '2025-06-14T20:41:07.330Z',
    ],
    ['UtcTimestamp without fraction', '2025-06-14T20:41:07Z', undefined, '2025-06-14T20:41:07.000Z'],
    ['UtcTimestamp without zone', '2025-06-14T20:41:07.3318842', undefined, '2025-06-14T20:41:07.331Z'],
    [
      'Timestamp with +02:00, UtcTimestamp missing',
      undefined,
      '2025-06-14T22:41:07.3318842+02:00',
      '2025-06-14T20:41:07.331Z',
    ],
    [
      'Timestamp with +01:00, UtcTimestamp invalid',
      'soon',
      '2024-03-09T23:30:00.1234567+01:00',
      '2024-03-09T22:30:00.123Z',
    ],
    [
      'Timestamp with -0500, UtcTimestamp a number',
      1718203344,
      '2025-06-14T15:41:07-0500',
      '2025-06-14T20:41:07.000Z',
    ],
    ['neither', undefined, undefined, RECEIVED_AT.toISOString()],
    [
      "DateTime.MinValue (.NET's empty date)",
      '0001-01-01T00:00:00.0000000Z',
      undefined,
      RECEIVED_AT.toISOString(),
    ],
    ['both invalid', '2025-02-30T10:00:00Z', '2025-06-14 25:00', RECEIVED_AT.toISOString()],
  ])('dates the watch with %s', (_, utcTimestamp, timestamp, expected) => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.UtcTimestamp = utcTimestamp;
      body.Timestamp = timestamp;
    });
    expect(jellyfinDriver.parse(input)).toEqual({ ...kitesWatch, watchedAt: new Date(expected) });
  });

  it('ignores a movie stopped before the end', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.PlayedToCompletion = false;
    });
    expect(jellyfinDriver.parse(input)).toEqual(
      ignoredAs('PlaybackStop', 'stopped before the end (PlayedToCompletion: false)'),
    );
  });

  it('ignores "false" as PlayedToCompletion', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.PlayedToCompletion = 'false';
    });
    expect(jellyfinDriver.parse(input)).toEqual(
      ignoredAs('PlaybackStop', 'stopped before the end (PlayedToCompletion: false)'),
    );
  });

  it.each([
    ['missing', undefined],
    ['not a flag', 1],
  ])('ignores a stop whose PlayedToCompletion is %s', (_, flag) => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.PlayedToCompletion = flag;
    });
    expect(jellyfinDriver.parse(input)).toEqual(ignoredAs('PlaybackStop', 'no PlayedToCompletion flag'));
  });

  it('ignores an episode played to completion', () => {
    expect(jellyfinDriver.parse(report('jellyfin-playbackstop-episode.json'))).toEqual(
      ignoredAs('PlaybackStop', 'not a movie (Episode)'),
    );
  });

  it('ignores an item without an item type', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      body.ItemType = ['Movie'];
    });
    expect(jellyfinDriver.parse(input)).toEqual(ignoredAs('PlaybackStop', 'not a movie (no item type)'));
  });
});

describe('Jellyfin driver: UserDataSaved', () => {
  const markedWatch: ParsedReport = {
    ...kitesWatch,
    event: 'UserDataSaved',
    watchedAt: new Date('2025-06-15T07:03:26.550Z'),
  };

  it('counts a movie marked as played (TogglePlayed)', () => {
    expect(jellyfinDriver.parse(report('jellyfin-userdatasaved-movie.json'))).toEqual(markedWatch);
  });

  it('takes Played "True" as true', () => {
    const input = report('jellyfin-userdatasaved-movie.json', (body) => {
      body.Played = 'True';
    });
    expect(jellyfinDriver.parse(input)).toEqual(markedWatch);
  });

  it('ignores a movie marked as not played', () => {
    const input = report('jellyfin-userdatasaved-movie.json', (body) => {
      body.Played = false;
    });
    expect(jellyfinDriver.parse(input)).toEqual(ignoredAs('UserDataSaved', 'marked as not played'));
  });

  it.each([
    'PlaybackFinished',
    'PlaybackProgress',
    'PlaybackStart',
    'UpdateUserRating',
    'Import',
    'UpdateUserData',
  ])('ignores user data saved for %s, even with Played true', (saveReason) => {
    const input = report('jellyfin-userdatasaved-movie.json', (body) => {
      body.SaveReason = saveReason;
    });
    expect(jellyfinDriver.parse(input)).toEqual(
      ignoredAs('UserDataSaved', `user data saved for ${saveReason}, not a mark as played`),
    );
  });

  it('ignores user data saved without a reason', () => {
    const input = report('jellyfin-userdatasaved-movie.json', (body) => {
      delete body.SaveReason;
    });
    expect(jellyfinDriver.parse(input)).toEqual(
      ignoredAs('UserDataSaved', 'user data saved for no reason, not a mark as played'),
    );
  });

  it('ignores an episode marked as played', () => {
    const input = report('jellyfin-userdatasaved-movie.json', (body) => {
      body.ItemType = 'Episode';
    });
    expect(jellyfinDriver.parse(input)).toEqual(ignoredAs('UserDataSaved', 'not a movie (Episode)'));
  });
});

describe('Jellyfin driver: other notifications', () => {
  it('ignores PlaybackStart', () => {
    expect(jellyfinDriver.parse(report('jellyfin-playbackstart-movie.json'))).toEqual(
      ignoredAs('PlaybackStart', 'event PlaybackStart is not a finished watch'),
    );
  });

  it('ignores PlaybackProgress', () => {
    const input = report('jellyfin-playbackstart-movie.json', (body) => {
      body.NotificationType = 'PlaybackProgress';
    });
    expect(jellyfinDriver.parse(input)).toEqual(
      ignoredAs('PlaybackProgress', 'event PlaybackProgress is not a finished watch'),
    );
  });

  it('ignores ItemAdded, which names no user', () => {
    expect(jellyfinDriver.parse(report('jellyfin-itemadded-movie.json'))).toEqual(
      ignoredAs('ItemAdded', 'event ItemAdded is not a finished watch', null),
    );
  });

  it('ignores a report without a NotificationType', () => {
    const input = report('jellyfin-playbackstop-movie.json', (body) => {
      delete body.NotificationType;
    });
    expect(jellyfinDriver.parse(input)).toEqual(ignoredAs('', 'no event name'));
  });
});
