import type { MediaServer, ScrobbleDriver } from '../scrobble.types.js';
import { embyDriver } from './emby.driver.js';
import { jellyfinDriver } from './jellyfin.driver.js';
import { kodiDriver } from './kodi.driver.js';
import { plexDriver } from './plex.driver.js';

/** The driver of each media server, keyed by the server's name. */
export const scrobbleDrivers: Record<MediaServer, ScrobbleDriver> = {
  plex: plexDriver,
  jellyfin: jellyfinDriver,
  emby: embyDriver,
  kodi: kodiDriver,
};
