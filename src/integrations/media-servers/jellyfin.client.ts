/**
 * Jellyfin, read for a backfill (the API it shares with Emby: media-browser.client.ts). The API key goes
 * in `Authorization: MediaBrowser Token="..."`, the header Jellyfin 10.8+ documents (it still takes
 * `X-Emby-Token`, which later versions may drop); never in the URL (`api_key=`). A user's items are
 * read from `/Items?userId=` (10.9 marked `/Users/{id}/Items` obsolete; `/Items` has long taken
 * `userId`).
 */
import { mediaBrowserClient } from './media-browser.client.js';
import type {
  MediaServerClient,
  MediaServerClientOptions,
  MediaServerConnection,
} from './media-server.types.js';

export function jellyfinClient(
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
): MediaServerClient {
  return mediaBrowserClient(
    {
      server: 'jellyfin',
      serverName: 'Jellyfin',
      notFoundHint: ' (with its base path, if it has one)',
      headers: (token) => ({
        authorization: `MediaBrowser Client="cinelog", Device="cinelog", DeviceId="cinelog-backfill", Version="1", Token="${token.replaceAll('"', '')}"`,
      }),
      // A Jellyfin behind a base path (`/jellyfin`) has it in the URL the user gives.
      apiBase: (url) => url,
      usersPaths: ['/Users'],
      // `/Items?userId=`: Jellyfin 10.9 marked `/Users/{id}/Items` obsolete, for removal.
      userItems: (userId) => ({ path: '/Items', query: { userId } }),
    },
    connection,
    options,
  );
}
