import { embyDriver } from './drivers/emby.driver.js';
import { jellyfinDriver } from './drivers/jellyfin.driver.js';
import { kodiDriver } from './drivers/kodi.driver.js';
import { plexDriver } from './drivers/plex.driver.js';
import type { ScrobbleDriver } from './scrobble.types.js';

/** What cinelog knows of one media server. Routes, CLI, pages and services read it here, nowhere else. */
export interface MediaServerEntry {
  /** Shown to people: page headings, messages, the OpenAPI summary. */
  name: string;
  /** Of its webhook URL: `/api/webhook/<segment>/<uuid>`. */
  segment: string;
  /** The webhook options that mean something for this server's reports. */
  supports: {
    /** Its reports carry the user's ratings (Plex `media.rate`). */
    ratings: boolean;
    /** Its reports name the media-server user, so a webhook can count only some users' reports. */
    userFilter: boolean;
  };
  /** Reads its requests. */
  driver: ScrobbleDriver;
  /** How a backfill connects to it (issue 31); null: it has no API to read past plays from (Kodi). */
  backfill: {
    /** What its token is called: the connection form's label. */
    tokenName: string;
    /** Where the user finds the token. */
    tokenHint: string;
    /** An address such a server usually has, as the URL field's placeholder. */
    urlPlaceholder: string;
    /**
     * One token reads every user's plays (an API key of the server), so whose must be said, picked
     * from the server's users. Otherwise the token's own account (Plex).
     */
    pickUser: boolean;
  } | null;
}

export type MediaServerOption = keyof MediaServerEntry['supports'];

// The order is the order of the settings page and of every listing.
const entries = {
  plex: {
    name: 'Plex',
    segment: 'mediaserver-a',
    supports: { ratings: true, userFilter: true },
    driver: plexDriver,
    backfill: {
      tokenName: 'X-Plex-Token',
      tokenHint:
        'Your X-Plex-Token (Plex\u2019s support article \u201cFinding an authentication token\u201d).',
      urlPlaceholder: 'http://192.168.1.10:32400',
      pickUser: false,
    },
  },
  jellyfin: {
    name: 'Jellyfin',
    segment: 'mediaserver-b',
    supports: { ratings: false, userFilter: true },
    driver: jellyfinDriver,
    backfill: {
      tokenName: 'API key',
      tokenHint: 'Dashboard \u2192 API Keys \u2192 add one for cinelog.',
      urlPlaceholder: 'http://192.168.1.10:8096',
      pickUser: true,
    },
  },
  emby: {
    name: 'Emby',
    segment: 'mediaserver-c',
    supports: { ratings: false, userFilter: true },
    driver: embyDriver,
    backfill: {
      tokenName: 'API key',
      tokenHint: 'The dashboard \u2192 Advanced \u2192 API Keys \u2192 New API Key, for cinelog.',
      urlPlaceholder: 'http://192.168.1.10:8096',
      pickUser: true,
    },
  },
  // The Movary add-on sends no user name: a filter would ignore every report.
  kodi: {
    name: 'Kodi',
    segment: 'mediaserver-d',
    supports: { ratings: false, userFilter: false },
    driver: kodiDriver,
    backfill: null,
  },
} satisfies Record<string, MediaServerEntry>;

/** The media servers cinelog takes scrobbles from, by the name the API, the CLI and the database use. */
export type MediaServer = keyof typeof entries;

export const MEDIA_SERVERS: Readonly<Record<MediaServer, Readonly<MediaServerEntry>>> = entries;

/** Every media server, in the registry's order. */
export const MEDIA_SERVER_KEYS = Object.keys(MEDIA_SERVERS) as readonly MediaServer[];

/** The servers whose reports make `option` meaningful. */
export const serversSupporting = (option: MediaServerOption): MediaServer[] =>
  MEDIA_SERVER_KEYS.filter((server) => MEDIA_SERVERS[server].supports[option]);

/** Display names as prose: "Plex", "Plex or Kodi", "Plex, Jellyfin, Emby or Kodi". */
export function namesOf(servers: readonly MediaServer[]): string {
  return listed(servers.map((server) => MEDIA_SERVERS[server].name));
}

/** "a", "a or b", "a, b or c". */
export function listed(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
