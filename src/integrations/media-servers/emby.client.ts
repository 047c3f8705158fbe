/**
 * Emby, read for a backfill (the API it shares with Jellyfin: media-browser.client.ts). The API key goes
 * in `X-Emby-Token`, never in the URL (`api_key=`); the API lives under `/emby/` (the URL given may
 * end with it or not).
 */
import { mediaBrowserClient } from './media-browser.client.js';
import type {
  MediaServerClient,
  MediaServerClientOptions,
  MediaServerConnection,
} from './media-server.types.js';

export function embyClient(
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
): MediaServerClient {
  return mediaBrowserClient(
    {
      server: 'emby',
      serverName: 'Emby',
      notFoundHint: '',
      headers: (token) => ({ 'x-emby-token': token }),
      apiBase: (url) => {
        const trimmed = url.trim().replace(/\/+$/, '');
        return /\/emby$/i.test(trimmed) ? trimmed : `${trimmed}/emby`;
      },
      // Emby 4.8's reference lists `/Users/Query` (a query result) and no longer `/Users`, which older
      // servers answer (a list).
      usersPaths: ['/Users/Query', '/Users'],
      userItems: (userId) => ({ path: `/Users/${encodeURIComponent(userId)}/Items`, query: {} }),
    },
    connection,
    options,
  );
}
