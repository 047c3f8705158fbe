/**
 * What cinelog reads of a Plex, Jellyfin or Emby server for a backfill (issue 31): the played movies of
 * one user on that server, page by page. The clients (one per server, in this folder) speak the
 * servers' HTTP APIs; the backfill (src/modules/backfill) turns their pages into plays.
 */

/** The servers a backfill reads. */
export const BACKFILL_SERVERS = ['plex', 'jellyfin', 'emby'] as const;
export type BackfillServer = (typeof BACKFILL_SERVERS)[number];

/** How to reach a server: its base URL (no trailing slash needed) and the token or API key. */
export interface MediaServerConnection {
  server: BackfillServer;
  url: string;
  /** Plex: an `X-Plex-Token`; Jellyfin and Emby: an API key. A secret: never logged, never in an error. */
  token: string;
  /**
   * Whose plays: a user's id or name on that server (Jellyfin and Emby users, Plex accounts). Null:
   * Plex, the token's own account; Jellyfin and Emby, refused when the server has more than one user.
   */
  serverUser: string | null;
}

/** A user (Jellyfin, Emby) or account (Plex) on the server, to pick from. */
export interface ServerUser {
  id: string;
  name: string;
}

/** One movie the user has played, with what the server knows of its plays. */
export interface PlayedMovie {
  /**
   * The server's own id of the item (Plex `ratingKey`, Jellyfin and Emby `Id`). A Plex movie deleted
   * since, known from its history rows only, has one of cinelog's own: `deleted:<library>:<title>:<year>`.
   */
  itemId: string;
  title: string | null;
  year: number | null;
  tmdbId: number | null;
  imdbId: string | null;
  /** Each play the server recorded, as an instant (ISO 8601 in UTC), oldest first. */
  views: string[];
  /**
   * How many times the server counts it played (Plex `viewCount`, `UserData.PlayCount`); at least
   * `views.length`. More than `views.length` when the history was trimmed or only a count is kept.
   */
  playCount: number;
  /** The last play's instant (ISO 8601 in UTC), when the server gives one. */
  lastPlayedAt: string | null;
}

export interface PlayedPage {
  movies: PlayedMovie[];
  /** Give it back to `playedMovies` for the next page; null: this was the last page. */
  next: string | null;
  /** The played movies in all, when the server says it (for progress). */
  total: number | null;
}

export interface MediaServerClient {
  readonly server: BackfillServer;
  /** Checks the URL and the token: the server's name and version. MediaServerError when not. */
  check(): Promise<{ name: string; version: string | null }>;
  /** The server's users (Jellyfin, Emby) or accounts (Plex). */
  users(): Promise<ServerUser[]>;
  /**
   * One page of the user's played movies (episodes, trailers and other items left out), from a cursor
   * (null: the first page). A cursor stays valid across a restart: it is plain text to store.
   * A page may hold no movie while `next` is not null (Plex pages through the whole library and keeps
   * the played movies): go on until `next` is null.
   */
  playedMovies(cursor: string | null): Promise<PlayedPage>;
}

/** What went wrong talking to a server; `message` is for the user and never holds the token. */
export class MediaServerError extends Error {
  override name = 'MediaServerError';
  constructor(
    readonly reason:
      | 'unreachable'
      | 'timeout'
      | 'unauthorized'
      | 'not-found'
      | 'bad-answer'
      | 'unknown-user'
      | 'ambiguous-user',
    message: string,
  ) {
    super(message);
  }
}

export interface MediaServerClientOptions {
  /** Per request; the default is 30 s. */
  timeoutMs?: number;
  /** Movies a page (the default is 200). */
  pageSize?: number;
  /**
   * The most bytes read of one answer (the default is 20 MB); more is a bad answer. Added for the
   * clients' tests, which check the cap without sending 20 MB.
   */
  maxResponseBytes?: number;
}
