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
import { embyDriver } from './emby.driver.js';

type Body = Record<string, unknown>;

/** A fixture with some of its values changed, sent as Emby does by default: multipart field `data`. */
function report(name: string, change: (body: Body, item: Body) => void = () => {}) {
  const body = fixtureJson(name);
  change(body, body.Item as Body);
  return multipartInput({ data: JSON.stringify(body) });
}

const bridgeWatch: ParsedReport = {
  kind: 'watch',
  event: 'playback.stop',
  account: 'oskar',
  movie: { tmdbId: 615702, imdbId: 'tt6157023', title: 'Ninefold Bridge' },
  watchedAt: new Date('2024-08-21T19:05:44.281Z'),
};

const ignoredAs = (event: string, reason: string, account: string | null = 'oskar'): ParsedReport => ({
  kind: 'ignored',
  event,
  account,
  reason,
});

describe('Emby driver: request bodies', () => {
  const data = compact('emby-playback-stop-movie.json');

  it.each([
    ['multipart field data (the default)', multipartInput({ data })],
    ['urlencoded field data', urlencodedInput({ data })],
    // Its JSON holds "Span & Arch Pictures": form decoding alone would cut it at the &.
    ['unencoded data= (a hand-made form)', rawInput(`data=${data}`, 'application/x-www-form-urlencoded')],
    ['a raw application/json body (Emby 4.9+)', rawInput(data, 'application/json')],
    ['a raw JSON body of another type', rawInput(data, 'text/plain')],
    ['a raw JSON body with a byte order mark', rawInput(`\uFEFF${data}`, 'application/json')],
  ])('reads %s', (_, input) => {
    expect(embyDriver.parse(input)).toEqual(bridgeWatch);
  });

  it.each([
    [
      'a multipart body without data',
      multipartInput({ payload: data }),
      'no "data" field in the multipart body',
    ],
    [
      'a data field that is not JSON',
      multipartInput({ data: 'playback.stop' }),
      'the "data" field is not JSON',
    ],
    [
      'a data field holding an array',
      urlencodedInput({ data: '[]' }),
      'the "data" field is JSON but not an object (array)',
    ],
    [
      'a urlencoded body without data',
      urlencodedInput({ payload: data }),
      'the body is neither JSON nor a form with a "data" field',
    ],
    ['an empty body', rawInput('', 'application/json'), 'the body is empty'],
    ['no body at all', rawInput(null, ''), 'the body is empty'],
    ['text', rawInput('not json', 'text/plain'), 'the body is neither JSON nor a form with a "data" field'],
    ['JSON null', rawInput('null', 'application/json'), 'the body is JSON but not an object (null)'],
    ['a JSON string', rawInput('"x"', 'application/json'), 'the body is JSON but not an object (string)'],
    ['a JSON array', rawInput('[]', 'application/json'), 'the body is JSON but not an object (array)'],
  ])('rejects %s', (_, input, reason) => {
    expect(embyDriver.parse(input)).toEqual({ kind: 'rejected', reason });
  });
});

describe('Emby driver: counted events', () => {
  it('counts playback.stop of a movie played to completion', () => {
    expect(embyDriver.parse(report('emby-playback-stop-movie.json'))).toEqual(bridgeWatch);
  });

  it('counts item.markplayed of a movie', () => {
    expect(embyDriver.parse(report('emby-item-markplayed-movie.json'))).toEqual({
      ...bridgeWatch,
      event: 'item.markplayed',
      watchedAt: new Date('2024-08-22T08:31:12.045Z'),
    });
  });

  it('takes PlayedToCompletion "true" as true', () => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      body.PlaybackInfo = { PlayedToCompletion: 'true' };
    });
    expect(embyDriver.parse(input)).toEqual(bridgeWatch);
  });

  it.each([
    ['lower-case keys', { tmdb: '615702', imdb: 'tt6157023' }, { tmdbId: 615702, imdbId: 'tt6157023' }],
    ['upper-case keys', { TMDB: '615702', IMDB: 'TT6157023' }, { tmdbId: 615702, imdbId: 'tt6157023' }],
    ['a number id', { Tmdb: 615702 }, { tmdbId: 615702 }],
    ['invalid ids', { Tmdb: '-615702', Imdb: '6157023' }, {}],
    ['no ids', {}, {}],
    ['not an object', 'Tmdb=615702', {}],
  ])('reads ProviderIds with %s', (_, providerIds, ids) => {
    const input = report('emby-playback-stop-movie.json', (_, item) => {
      item.ProviderIds = providerIds;
    });
    expect(embyDriver.parse(input)).toEqual({ ...bridgeWatch, movie: { ...ids, title: 'Ninefold Bridge' } });
  });

  it.each([
    ['7 fraction digits and Z', '2024-08-21T19:05:44.2817306Z', '2024-08-21T19:05:44.281Z'],
    ['an offset', '2024-08-21T21:05:44.2817306+02:00', '2024-08-21T19:05:44.281Z'],
    ['no zone', '2024-08-21T19:05:44', '2024-08-21T19:05:44.000Z'],
    ['a missing Date', undefined, RECEIVED_AT.toISOString()],
    ['an invalid Date', '21/08/2024 19:05', RECEIVED_AT.toISOString()],
  ])('dates the watch with %s', (_, date, expected) => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      body.Date = date;
    });
    expect(embyDriver.parse(input)).toEqual({ ...bridgeWatch, watchedAt: new Date(expected) });
  });

  it('has no account when User is missing', () => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      delete body.User;
    });
    expect(embyDriver.parse(input)).toEqual({ ...bridgeWatch, account: null });
  });
});

describe('Emby driver: ignored events', () => {
  it('ignores a movie stopped before the end', () => {
    expect(embyDriver.parse(report('emby-playback-stop-movie-partial.json'))).toEqual(
      ignoredAs('playback.stop', 'stopped before the end (PlayedToCompletion: false)'),
    );
  });

  it.each([
    ['missing', undefined],
    ['a string', 'done'],
  ])('ignores a stop whose PlaybackInfo is %s', (_, playbackInfo) => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      body.PlaybackInfo = playbackInfo;
    });
    expect(embyDriver.parse(input)).toEqual(
      ignoredAs('playback.stop', 'no PlaybackInfo.PlayedToCompletion flag'),
    );
  });

  it('ignores an episode played to completion', () => {
    expect(embyDriver.parse(report('emby-playback-stop-episode.json'))).toEqual(
      ignoredAs('playback.stop', 'not a movie (Episode)'),
    );
  });

  it('ignores an episode marked as played', () => {
    const input = report('emby-playback-stop-episode.json', (body) => {
      body.Event = 'item.markplayed';
    });
    expect(embyDriver.parse(input)).toEqual(ignoredAs('item.markplayed', 'not a movie (Episode)'));
  });

  it.each([
    ['a string', 'Ninefold Bridge'],
    ['missing', undefined],
  ])('ignores a report whose Item is %s', (_, item) => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      body.Item = item;
    });
    expect(embyDriver.parse(input)).toEqual(ignoredAs('playback.stop', 'not a movie (no item type)'));
  });

  it.each([
    'playback.start',
    'playback.pause',
    'playback.unpause',
    'item.rate',
    'item.markunplayed',
    'library.new',
  ])('ignores %s of a movie', (event) => {
    const input = report('emby-playback-stop-movie.json', (body) => {
      body.Event = event;
    });
    expect(embyDriver.parse(input)).toEqual(ignoredAs(event, `event ${event} is not a finished watch`));
  });

  it('ignores a report without an Event', () => {
    const input = report('emby-item-markplayed-movie.json', (body) => {
      body.Event = null;
    });
    expect(embyDriver.parse(input)).toEqual(ignoredAs('', 'no event name'));
  });

  it('ignores an empty object', () => {
    expect(embyDriver.parse(jsonInput({}))).toEqual(ignoredAs('', 'no event name', null));
  });
});
