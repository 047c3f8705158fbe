import { describe, expect, it } from 'vitest';
import {
  compact,
  fixtureJson,
  jsonInput,
  multipartInput,
  RECEIVED_AT,
  rawInput,
  urlencodedInput,
} from '../../../../test/fixtures/webhooks/inputs.js';
import type { ParsedReport } from '../scrobble.types.js';
import { plexDriver } from './plex.driver.js';

type Body = Record<string, unknown>;

/** A fixture with some of its values changed, serialised as Plex sends it. */
function payload(name: string, change: (body: Body, metadata: Body) => void = () => {}): string {
  const body = fixtureJson(name);
  change(body, body.Metadata as Body);
  return JSON.stringify(body);
}

const parse = (payloadText: string) => plexDriver.parse(multipartInput({ payload: payloadText }));

const harbourWatch: ParsedReport = {
  kind: 'watch',
  event: 'media.scrobble',
  account: 'nightowl_reels',
  movie: { tmdbId: 781204, imdbId: 'tt7812040', title: 'Harbour of Small Lights' },
  watchedAt: new Date('2024-06-12T14:42:24.000Z'),
};

describe('Plex driver: request bodies', () => {
  it('reads the multipart payload field and ignores the other parts', () => {
    const input = multipartInput({ payload: compact('plex-scrobble-movie.json'), note: 'not the report' });
    expect(plexDriver.parse(input)).toEqual(harbourWatch);
  });

  it('reads a urlencoded payload field', () => {
    expect(plexDriver.parse(urlencodedInput({ payload: compact('plex-scrobble-movie.json') }))).toEqual(
      harbourWatch,
    );
  });

  it('reads a payload field posted unencoded (curl -d), even with & and + in it', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.title = 'Salt & Vinegar + Co';
    });
    const result = plexDriver.parse(rawInput(`payload=${text}`, 'application/x-www-form-urlencoded'));
    expect(result).toEqual({
      ...harbourWatch,
      movie: { ...harbourWatch.movie, title: 'Salt & Vinegar + Co' },
    });
  });

  it('also takes the report as a raw JSON body', () => {
    expect(plexDriver.parse(jsonInput(fixtureJson('plex-scrobble-movie.json')))).toEqual(harbourWatch);
  });

  it('strips a UTF-8 byte order mark', () => {
    expect(parse(`\uFEFF${compact('plex-scrobble-movie.json')}`)).toEqual(harbourWatch);
  });

  it.each([
    [
      'a multipart body without a payload field',
      multipartInput({ thumbnail: 'x' }),
      'no "payload" field in the multipart body',
    ],
    [
      'a payload field that is not JSON',
      multipartInput({ payload: '{"event":' }),
      'the "payload" field is not JSON',
    ],
    [
      'a payload field holding an array',
      multipartInput({ payload: '[{"event":"media.scrobble"}]' }),
      'the "payload" field is JSON but not an object (array)',
    ],
    [
      'a payload field holding null',
      multipartInput({ payload: 'null' }),
      'the "payload" field is JSON but not an object (null)',
    ],
    [
      'a urlencoded body without a payload field',
      urlencodedInput({ data: '{}' }),
      'the body is neither JSON nor a form with a "payload" field',
    ],
    ['an empty body', rawInput('', 'application/x-www-form-urlencoded'), 'the body is empty'],
    ['no body at all', rawInput(null, ''), 'the body is empty'],
    ['a blank body', rawInput(' \r\n', 'text/plain'), 'the body is empty'],
    ['text', rawInput('hello', 'text/plain'), 'the body is neither JSON nor a form with a "payload" field'],
    ['a JSON array', rawInput('[]', 'application/json'), 'the body is JSON but not an object (array)'],
    ['JSON null', rawInput('null', 'application/json'), 'the body is JSON but not an object (null)'],
    [
      'a JSON string',
      rawInput('"media.scrobble"', 'application/json'),
      'the body is JSON but not an object (string)',
    ],
    ['a JSON number', rawInput('42', 'application/json'), 'the body is JSON but not an object (number)'],
  ])('rejects %s', (_, input, reason) => {
    expect(plexDriver.parse(input)).toEqual({ kind: 'rejected', reason });
  });
});

describe('Plex driver: media.scrobble', () => {
  it('counts a movie of the new agent, with the ids of its Guid array', () => {
    expect(parse(compact('plex-scrobble-movie.json'))).toEqual(harbourWatch);
  });

  it('counts a movie with only a plex:// guid and no Guid array, without ids', () => {
    expect(parse(compact('plex-scrobble-movie-plex-guid-only.json'))).toEqual({
      kind: 'watch',
      event: 'media.scrobble',
      account: 'ferrywatcher',
      movie: { title: 'Northbound Freight' },
      watchedAt: new Date('2021-02-03T21:40:00.000Z'),
    });
  });

  it('reads the TMDB id of the legacy themoviedb agent guid', () => {
    expect(parse(compact('plex-scrobble-movie-legacy-themoviedb-agent.json'))).toEqual({
      kind: 'watch',
      event: 'media.scrobble',
      account: 'orchardkeeper',
      movie: { tmdbId: 442917, title: 'The Glass Orchard' },
      watchedAt: new Date('2019-08-15T20:13:20.000Z'),
    });
  });

  it('reads the IMDb id of the legacy imdb agent guid', () => {
    expect(parse(compact('plex-scrobble-movie-legacy-imdb-agent.json'))).toEqual({
      kind: 'watch',
      event: 'media.scrobble',
      account: 'orchardkeeper',
      movie: { imdbId: 'tt5190387', title: 'Saltmarsh Radio' },
      watchedAt: new Date('2019-08-17T00:00:00.000Z'),
    });
  });

  it('tolerates a missing librarySectionType', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      delete metadata.librarySectionType;
    });
    expect(parse(text)).toEqual(harbourWatch);
  });

  it('counts a Plex streaming (VOD) movie, which has no library and no ids', () => {
    const text = payload('plex-stop-movie-vod-streaming.json', (body) => {
      body.event = 'media.scrobble';
    });
    expect(parse(text)).toEqual({
      kind: 'watch',
      event: 'media.scrobble',
      account: 'nightowl_reels',
      movie: { title: 'Copper Canyon Blues' },
      watchedAt: RECEIVED_AT,
    });
  });

  it('skips Guid entries that are not ids and normalises the case of tt', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.Guid = [null, 7, { id: 42 }, { id: 'tmdb://0' }, 'tmdb://781204', { id: 'imdb://TT7812040' }];
    });
    expect(parse(text)).toEqual(harbourWatch);
  });

  it('prefers the Guid array to a legacy guid', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.guid = 'com.plexapp.agents.themoviedb://111?lang=en';
    });
    expect(parse(text)).toEqual(harbourWatch);
  });

  it('falls back to the legacy guid when the Guid array has no ids', () => {
    const text = payload('plex-scrobble-movie-legacy-themoviedb-agent.json', (_, metadata) => {
      metadata.Guid = [{ id: 'tvdb://5' }];
    });
    expect(parse(text)).toMatchObject({
      kind: 'watch',
      movie: { tmdbId: 442917, title: 'The Glass Orchard' },
    });
  });

  it('still counts the watch, without ids, when Guid is not an array', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.Guid = 'tmdb://781204';
    });
    expect(parse(text)).toEqual({ ...harbourWatch, movie: { title: 'Harbour of Small Lights' } });
  });

  it('still counts the watch when guid and title have the wrong types', () => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.Guid = { id: 'tmdb://781204' };
      metadata.guid = 17;
      metadata.title = ['Harbour of Small Lights'];
    });
    expect(parse(text)).toEqual({ ...harbourWatch, movie: {} });
  });

  it.each([
    ['a numeric string', '1718203344', harbourWatch.watchedAt],
    ['a fractional number', 1718203344.5, new Date('2024-06-12T14:42:24.500Z')],
    ['missing', undefined, RECEIVED_AT],
    ['zero', 0, RECEIVED_AT],
    ['text', 'yesterday', RECEIVED_AT],
    ['milliseconds sent as seconds', 1718203344000, RECEIVED_AT],
  ])('dates the watch with lastViewedAt as %s', (_, lastViewedAt, watchedAt) => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      metadata.lastViewedAt = lastViewedAt;
    });
    expect(parse(text)).toEqual({ ...harbourWatch, watchedAt });
  });

  it.each([
    ['true', true],
    ['"true"', 'true'],
    ['"True"', 'True'],
  ])('counts user: %s', (_, user) => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.user = user;
    });
    expect(parse(text)).toEqual(harbourWatch);
  });

  it('has no account when Account is missing', () => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      delete body.Account;
    });
    expect(parse(text)).toEqual({ ...harbourWatch, account: null });
  });
});

describe('Plex driver: media.rate', () => {
  const lanterns = { tmdbId: 655310, imdbId: 'tt6553104', title: 'Lanterns Over Kessel' };
  const rated = (rating: number | null): ParsedReport => ({
    kind: 'rate',
    event: 'media.rate',
    account: 'nightowl_reels',
    movie: lanterns,
    rating,
  });

  it('reads a number rating (4.0)', () => {
    expect(parse(compact('plex-rate-movie.json'))).toEqual(rated(4));
  });

  it('reads a string rating ("10") of a movie without ids', () => {
    expect(parse(compact('plex-rate-movie-string-rating.json'))).toEqual({
      kind: 'rate',
      event: 'media.rate',
      account: 'ferrywatcher',
      movie: { title: 'The Quiet Ferry' },
      rating: 10,
    });
  });

  // Plex sends two points a star: 3½ stars are 7. Between two whole numbers, the nearer one; a half up.
  it.each([
    [7.5, 8],
    [7.4, 7],
    [7.6, 8],
    [6.5, 7],
    [7, 7],
    [9.5, 10],
    [10, 10],
    [1, 1],
    [0.5, 1],
    [0.4, 1],
    [0.01, 1],
  ])('rounds rating %s to the whole %s', (rating, expected) => {
    const text = payload('plex-rate-movie.json', (body) => {
      body.rating = rating;
    });
    expect(parse(text)).toEqual(rated(expected));
  });

  it.each([
    ['"7.5"', '7.5', 8],
    ['"7.4"', '7.4', 7],
    ['0', 0, null],
    ['"0"', '0', null],
    ['-1', -1, null],
    ['absent', undefined, null],
    ['unparsable text', 'ten', null],
    ['a boolean', true, null],
    ['an object', { value: 8 }, null],
  ])('takes rating %s as %s', (_, rating, expected) => {
    const text = payload('plex-rate-movie.json', (body) => {
      body.rating = rating;
    });
    expect(parse(text)).toEqual(rated(expected));
  });

  it.each([11, 10.5, 10.01])(
    'ignores rating %s, above the 0-10 scale, rather than clearing the rating',
    (rating) => {
      const text = payload('plex-rate-movie.json', (body) => {
        body.rating = rating;
      });
      expect(parse(text)).toEqual({
        kind: 'ignored',
        event: 'media.rate',
        account: 'nightowl_reels',
        reason: `rating ${rating} is outside Plex's 0-10 scale`,
      });
    },
  );

  it('ignores a rating by another account', () => {
    const text = payload('plex-rate-movie.json', (body) => {
      body.user = false;
    });
    expect(parse(text)).toEqual({
      kind: 'ignored',
      event: 'media.rate',
      account: 'nightowl_reels',
      reason: 'reported for another Plex account (user: false)',
    });
  });

  it('ignores a rating of an episode', () => {
    const text = payload('plex-scrobble-episode.json', (body) => {
      body.event = 'media.rate';
      body.rating = 6;
    });
    expect(parse(text)).toEqual({
      kind: 'ignored',
      event: 'media.rate',
      account: 'nightowl_reels',
      reason: 'not a movie (episode)',
    });
  });
});

describe('Plex driver: ignored reports', () => {
  const ignoredAs = (
    event: string,
    reason: string,
    account: string | null = 'nightowl_reels',
  ): ParsedReport => ({
    kind: 'ignored',
    event,
    account,
    reason,
  });

  it.each([
    'media.play',
    'media.pause',
    'media.resume',
    'media.stop',
    'library.new',
    'library.on.deck',
    'playback.started',
  ])('ignores %s of a movie', (event) => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.event = event;
    });
    expect(parse(text)).toEqual(ignoredAs(event, `event ${event} is not a finished watch`));
  });

  it('ignores a real pause report', () => {
    expect(parse(compact('plex-pause-movie.json'))).toEqual(
      ignoredAs('media.pause', 'event media.pause is not a finished watch'),
    );
  });

  it.each(['device.new', 'admin.database.backup', 'admin.database.corrupted'])(
    'ignores %s, which has no Metadata',
    (event) => {
      const text = payload('plex-device-new.json', (body) => {
        body.event = event;
      });
      expect(parse(text)).toEqual(ignoredAs(event, `event ${event} is not a finished watch`));
    },
  );

  it('ignores a trailer being played', () => {
    expect(parse(compact('plex-play-trailer-clip.json'))).toEqual(
      ignoredAs('media.play', 'event media.play is not a finished watch'),
    );
  });

  it('ignores a trailer scrobble as a clip', () => {
    const text = payload('plex-play-trailer-clip.json', (body) => {
      body.event = 'media.scrobble';
    });
    expect(parse(text)).toEqual(ignoredAs('media.scrobble', 'not a movie (clip)'));
  });

  it('ignores a stopped Plex streaming movie', () => {
    expect(parse(compact('plex-stop-movie-vod-streaming.json'))).toEqual(
      ignoredAs('media.stop', 'event media.stop is not a finished watch'),
    );
  });

  it('ignores an episode, though it has TMDB and IMDb guids', () => {
    expect(parse(compact('plex-scrobble-episode.json'))).toEqual(
      ignoredAs('media.scrobble', 'not a movie (episode)'),
    );
  });

  it.each([
    ['a track', (metadata: Body) => (metadata.type = 'track'), 'not a movie (track)'],
    ['no type', (metadata: Body) => delete metadata.type, 'not a movie (no item type)'],
    ['a numeric type', (metadata: Body) => (metadata.type = 1), 'not a movie (no item type)'],
  ])('ignores an item of %s', (_, change, reason) => {
    const text = payload('plex-scrobble-movie.json', (_, metadata) => {
      change(metadata);
    });
    expect(parse(text)).toEqual(ignoredAs('media.scrobble', reason));
  });

  it.each([
    ['a string', 'Harbour of Small Lights'],
    ['an array', [{ type: 'movie' }]],
    ['null', null],
  ])('ignores Metadata that is %s', (_, metadata) => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.Metadata = metadata;
    });
    expect(parse(text)).toEqual(ignoredAs('media.scrobble', 'no item metadata'));
  });

  it('ignores a scrobble by another account of the server (user: false)', () => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.user = false;
    });
    expect(parse(text)).toEqual(
      ignoredAs('media.scrobble', 'reported for another Plex account (user: false)'),
    );
  });

  it.each([
    ['missing', undefined],
    ['not a flag', 'yes'],
  ])('ignores a scrobble whose user flag is %s', (_, user) => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.user = user;
    });
    expect(parse(text)).toEqual(
      ignoredAs('media.scrobble', 'no user flag, so not known to be this Plex account'),
    );
  });

  it.each([
    ['missing', undefined],
    ['not a string', 3],
  ])('ignores a report whose event is %s', (_, event) => {
    const text = payload('plex-scrobble-movie.json', (body) => {
      body.event = event;
    });
    expect(parse(text)).toEqual(ignoredAs('', 'no event name'));
  });

  it('ignores an empty object', () => {
    expect(parse('{}')).toEqual(ignoredAs('', 'no event name', null));
  });
});
