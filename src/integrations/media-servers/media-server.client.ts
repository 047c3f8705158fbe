/** The client of a connection's server: what the backfill calls. */
import { embyClient } from './emby.client.js';
import { jellyfinClient } from './jellyfin.client.js';
import type {
  MediaServerClient,
  MediaServerClientOptions,
  MediaServerConnection,
} from './media-server.types.js';
import { plexClient } from './plex.client.js';

export function mediaServerClient(
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
): MediaServerClient {
  switch (connection.server) {
    case 'plex':
      return plexClient(connection, options);
    case 'jellyfin':
      return jellyfinClient(connection, options);
    case 'emby':
      return embyClient(connection, options);
    default:
      throw new RangeError(`No backfill client for ${JSON.stringify(connection.server satisfies never)}`);
  }
}
