import { describe, expect, it } from 'vitest';
import {
  fixtureText,
  jsonInput,
  multipartInput,
  RECEIVED_AT,
  rawInput,
} from '../../../../test/fixtures/webhooks/inputs.js';
import type { MovieRef, ParsedReport } from '../scrobble.types.js';
import { kodiDriver } from './kodi.driver.js';

const watchOf = (movie: MovieRef): ParsedReport => ({
  kind: 'watch',
  event: 'scrobble',
  account: null,
  movie,
  watchedAt: RECEIVED_AT,
});

describe('Kodi driver', () => {
  it("reads the addon's report (Python json.dumps, tmdbId a string), dated on receipt", () => {
    const input = rawInput(
      '{"title": "The Lamplighter\'s Wager", "uniqueIds": {"tmdbId": "518377"}}',
      'application/json',
    );
    expect(kodiDriver.parse(input)).toEqual(watchOf({ tmdbId: 518377, title: "The Lamplighter's Wager" }));
  });

  it('reads the fixture with any content type and a byte order mark', () => {
    const input = rawInput(`\uFEFF${fixtureText('kodi-scrobble.json')}`, 'text/plain');
    expect(kodiDriver.parse(input)).toEqual(watchOf({ tmdbId: 518377, title: "The Lamplighter's Wager" }));
  });

  it('reads a multipart field holding the JSON', () => {
    const input = multipartInput({ body: fixtureText('kodi-scrobble.json') });
    expect(kodiDriver.parse(input)).toEqual(watchOf({ tmdbId: 518377, title: "The Lamplighter's Wager" }));
  });

  it.each([
    ['a number tmdbId', { tmdbId: 518377 }, { tmdbId: 518377 }],
    ['imdbId', { imdbId: 'tt5183770' }, { imdbId: 'tt5183770' }],
    ['imdb and tmdb keys', { tmdb: '518377', imdb: 'TT5183770' }, { tmdbId: 518377, imdbId: 'tt5183770' }],
    ['an invalid tmdbId beside a valid tmdb', { tmdbId: '', tmdb: '518377' }, { tmdbId: 518377 }],
    ['invalid ids', { tmdbId: '0', imdbId: '5183770' }, {}],
    ['no ids', {}, {}],
  ])('reads uniqueIds with %s', (_, uniqueIds, ids) => {
    const input = jsonInput({ title: 'Quarry Road', uniqueIds });
    expect(kodiDriver.parse(input)).toEqual(watchOf({ ...ids, title: 'Quarry Road' }));
  });

  it('counts a report whose uniqueIds is not an object, by its title', () => {
    expect(kodiDriver.parse(jsonInput({ title: 'Quarry Road', uniqueIds: '518377' }))).toEqual(
      watchOf({ title: 'Quarry Road' }),
    );
  });

  it('counts a report without a title, by its ids', () => {
    expect(kodiDriver.parse(jsonInput({ title: 7, uniqueIds: { tmdbId: '518377' } }))).toEqual(
      watchOf({ tmdbId: 518377 }),
    );
  });

  it.each([
    ['an empty object', {}],
    ['only unusable values', { title: '  ', uniqueIds: { tmdbId: 'abc' } }],
  ])('ignores %s: nothing names a movie', (_, body) => {
    expect(kodiDriver.parse(jsonInput(body))).toEqual({
      kind: 'ignored',
      event: 'scrobble',
      account: null,
      reason: 'no title and no movie ids',
    });
  });

  it.each([
    ['an empty body', rawInput('', 'application/json'), 'the body is empty'],
    ['no body at all', rawInput(null, ''), 'the body is empty'],
    ['text', rawInput('title=Quarry Road', 'application/json'), 'the body is not JSON'],
    [
      'a JSON array',
      rawInput('[{"title":"Quarry Road"}]', 'application/json'),
      'the body is JSON but not an object (array)',
    ],
    ['JSON null', rawInput('null', 'application/json'), 'the body is JSON but not an object (null)'],
    [
      'a JSON string',
      rawInput('"Quarry Road"', 'application/json'),
      'the body is JSON but not an object (string)',
    ],
    ['a JSON number', rawInput('518377', 'application/json'), 'the body is JSON but not an object (number)'],
  ])('rejects %s', (_, input, reason) => {
    expect(kodiDriver.parse(input)).toEqual({ kind: 'rejected', reason });
  });
});
