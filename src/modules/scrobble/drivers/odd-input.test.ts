import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureJson, multipartInput, rawInput } from '../../../../test/fixtures/webhooks/inputs.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS, type MediaServer } from '../media-servers.js';
import type { WebhookInput } from '../scrobble.types.js';

const FIXTURE_PREFIX: Record<MediaServer, string> = {
  plex: 'plex-',
  jellyfin: 'jellyfin-',
  emby: 'emby-',
  kodi: 'kodi-',
};

const ODD_VALUES: unknown[] = [null, 0, -1, 1e308, '', 'x', true, [], [null], {}, { id: 'tmdb://1' }];

/** Every body of a fixture with one value, at depth 1 or 2, replaced by an odd one. */
function* variants(body: Record<string, unknown>): Generator<Record<string, unknown>> {
  for (const key of Object.keys(body)) {
    for (const odd of ODD_VALUES) yield { ...body, [key]: odd };
    const inner = body[key];
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      for (const innerKey of Object.keys(inner)) {
        for (const odd of ODD_VALUES) yield { ...body, [key]: { ...inner, [innerKey]: odd } };
      }
    }
  }
}

function inputFor(server: MediaServer, text: string): WebhookInput {
  if (server === 'plex') return multipartInput({ payload: text });
  if (server === 'emby') return multipartInput({ data: text });
  return rawInput(text, 'text/plain');
}

describe('every media server’s driver', () => {
  const fixtures = readdirSync(new URL('../../../../test/fixtures/webhooks/', import.meta.url)).filter(
    (name) => name.endsWith('.json'),
  );

  it.each(MEDIA_SERVER_KEYS)('%s never throws on a fixture with a value of the wrong type', (server) => {
    const names = fixtures.filter((name) => name.startsWith(FIXTURE_PREFIX[server]));
    expect(names.length).toBeGreaterThan(0);
    let parsed = 0;
    for (const name of names) {
      for (const body of variants(fixtureJson(name))) {
        const result = MEDIA_SERVERS[server].driver.parse(inputFor(server, JSON.stringify(body)));
        expect(['watch', 'rate', 'ignored']).toContain(result.kind);
        parsed += 1;
      }
    }
    expect(parsed).toBeGreaterThan(names.length * ODD_VALUES.length);
  });

  it.each(MEDIA_SERVER_KEYS)('%s rejects odd bodies without throwing', (server) => {
    const bodies = ['', ' ', '\uFEFF', '{', '}', '[]', 'null', '0', '"{}"', 'a=b&c', '=', '%', '\u0000'];
    for (const body of bodies) {
      expect(
        MEDIA_SERVERS[server].driver.parse(rawInput(body, 'application/x-www-form-urlencoded')),
      ).toMatchObject({
        kind: 'rejected',
      });
      expect(MEDIA_SERVERS[server].driver.parse(multipartInput({ payload: body, data: body }))).toMatchObject(
        {
          kind: 'rejected',
        },
      );
    }
  });
});
