import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, FeedRow } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { Library } from '../library/library.service.js';
import type { User, UsersService } from '../users/users.service.js';
import type { FeedKind } from './feeds.repository.js';
import * as feeds from './feeds.repository.js';

export type { FeedKind };

/** Every kind of feed; each is also the path segment of its URL (`/api/feed/<kind>/<uuid>`). */
export const FEED_KINDS: readonly FeedKind[] = ['radarr'];

/** A user's feed, as the settings page and the CLI show it to its owner. */
export interface FeedView {
  kind: FeedKind;
  url: string;
  createdAt: string;
  updatedAt: string;
}

export interface FeedsService {
  /** Creates the feed, or regenerates its UUID so the old URL stops working at once. */
  create(userId: number, kind: FeedKind): Promise<FeedView>;
  remove(userId: number, kind: FeedKind): Promise<boolean>;
  list(userId: number): Promise<FeedView[]>;
  /** The owner of the feed of this kind at this UUID; undefined for an unknown or removed one. */
  ownerOf(kind: FeedKind, uuid: string): Promise<User | undefined>;
  /**
   * The owner's watchlist as one JSON array that Radarr's "Custom Lists" and "StevenLu Custom" lists
   * both read (docs/webhooks.md, "Radarr list"), in chunks: in the order the movies were added,
   * oldest first; a movie without a TMDB id is left out (Radarr adds movies by TMDB id).
   */
  radarrList(owner: User): AsyncGenerator<string>;
}

export function feedUrl(appUrl: string, kind: FeedKind, uuid: string): string {
  return `${appUrl}/api/feed/${kind}/${uuid}`;
}

/**
 * One movie of the Radarr list. Radarr's "Custom Lists" reads `id` as the TMDB id (RadarrListParser,
 * TMDb MovieResultResource); "StevenLu Custom" reads `title` and `imdb_id` (StevenLuParser); Movary's
 * feed serves `tmdb_id`, `imdb_id`, `title` and `added_at`. Both readers skip the keys they do not know.
 */
export interface RadarrListItem {
  id: number;
  tmdb_id: number;
  imdb_id: string | null;
  title: string;
  year: number | null;
  /** ISO-8601 UTC time the movie was put on the watchlist. */
  added_at: string;
}

export function createFeedsService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  appUrl: string;
  users: UsersService;
  library: Library;
}): FeedsService {
  const { db, clock, appUrl, users, library } = deps;

  const toView = (row: FeedRow): FeedView => ({
    kind: row.kind,
    url: feedUrl(appUrl, row.kind, row.uuid),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  return {
    async create(userId, kind) {
      const now = clock.now().toISOString();
      return toView(await feeds.upsertFeedUuid(db, { userId, kind, uuid: randomUUID(), now }));
    },

    remove: (userId, kind) => feeds.deleteFeed(db, userId, kind),

    async list(userId) {
      return (await feeds.listFeeds(db, userId)).map(toView);
    },

    async ownerOf(kind, uuid) {
      const userId = await feeds.findFeedOwner(db, kind, uuid);
      return userId === undefined ? undefined : users.findById(userId);
    },

    async *radarrList(owner) {
      // Page by page from the library's read side (keyset, outside any transaction): memory stays
      // flat at any length, and writes never wait for Radarr.
      let first = true;
      yield '[';
      for await (const page of library.records(owner, 'watchlist')) {
        let chunk = '';
        for (const entry of page) {
          const { movie } = entry;
          if (movie.tmdbId === null) continue;
          const year = movie.releaseDate ? Number(movie.releaseDate.slice(0, 4)) : null;
          const item: RadarrListItem = {
            id: movie.tmdbId,
            tmdb_id: movie.tmdbId,
            imdb_id: movie.imdbId,
            title: movie.title,
            year: Number.isInteger(year) ? year : null,
            added_at: entry.addedAt,
          };
          chunk += `${first ? '\n' : ',\n'}${JSON.stringify(item)}`;
          first = false;
        }
        if (chunk) yield chunk;
      }
      yield first ? ']' : '\n]';
    },
  };
}
