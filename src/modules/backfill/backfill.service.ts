import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  BACKFILL_SERVERS,
  type BackfillServer,
  type MediaServerClient,
  type MediaServerClientOptions,
  type MediaServerConnection,
  MediaServerError,
  type PlayedMovie,
  type ServerUser,
} from '../../integrations/media-servers/media-server.types.js';
import type { JobQueue, JobView } from '../../jobs/queue.js';
import type { Clock } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import type { SecretKeySource } from '../auth/secret-box.js';
import type { ImportOptions, ImportSummary, ImportsService } from '../imports/import.service.js';
import { MEDIA_SERVERS } from '../scrobble/media-servers.js';
import type { User } from '../users/users.service.js';
import {
  addJobPage,
  type ConnectionRow,
  deleteConnection,
  deleteJobPages,
  deleteOrphanPages,
  findConnection,
  jobPages,
  listConnections,
  saveConnection,
  syncedConnections,
  updateConnection,
} from './backfill.repository.js';
import { playRows } from './backfill-rows.js';

/** A backfill from a saved connection, run in the background (docs/imports-exports.md). */
export const BACKFILL_JOB = 'library.backfill';
/** Queues the backfills of the connections whose periodic sync is due. */
export const BACKFILL_SYNC_JOB = 'library.backfill-sync';

export interface BackfillJobPayload {
  userId: number;
  userName: string;
  server: BackfillServer;
  dryRun: boolean;
  /** Queued by the periodic sync rather than by the user. */
  periodic: boolean;
}

/** Builds a client for a server (media-server.client.ts; tests may pass their own). */
export type MediaServerClientFactory = (
  connection: MediaServerConnection,
  options?: MediaServerClientOptions,
) => MediaServerClient;

/** The periodic sync: every 1 to 168 hours (a week). */
export const MIN_SYNC_HOURS = 1;
export const MAX_SYNC_HOURS = 168;

/** Reasons that fail the same way every time: no retry. */
const PERMANENT: readonly MediaServerError['reason'][] = [
  'unauthorized',
  'not-found',
  'unknown-user',
  'ambiguous-user',
  'bad-answer',
];
export const isPermanent = (error: unknown) =>
  error instanceof MediaServerError && PERMANENT.includes(error.reason);

/** What the last backfill of a connection said: its summary, or why it failed. */
export type BackfillResult =
  | (ImportSummary & { error?: undefined; finishedAt: string; periodic: boolean })
  | { error: string; finishedAt: string; periodic: boolean };

/** A saved connection as its owner sees it: never the token. */
export interface ConnectionView {
  server: BackfillServer;
  name: string;
  url: string;
  serverUser: string | null;
  syncHours: number | null;
  lastSyncAt: string | null;
  lastResult: BackfillResult | null;
  /** The last backfill's job while it waits or runs (its progress), or until it is forgotten. */
  lastJob: (JobView & { payload: unknown }) | null;
  createdAt: string;
  updatedAt: string;
}

/** Where a backfill keeps the pages it has fetched, to go on from there after a restart. */
export interface PageStore {
  load(): Promise<{ movies: PlayedMovie[]; next: string | null; total: number | null }[]>;
  add(seq: number, page: { movies: PlayedMovie[]; next: string | null; total: number | null }): Promise<void>;
}

export interface BackfillOptions extends ImportOptions {
  /** Where fetched pages are kept (a job's); none: in memory only (the command line). */
  pages?: PageStore;
  /** Stops between pages (a job's signal when its runner stops). */
  signal?: AbortSignal;
  /** Movies fetched so far, of how many (null: the server does not say). */
  onFetched?: (done: number, total: number | null) => void;
}

export interface BackfillService {
  /** The user's saved connections, in server order. */
  connections(user: User): Promise<ConnectionView[]>;
  /** The users (Jellyfin, Emby) or accounts (Plex) of the server, read with the saved token. */
  serverUsers(user: User, server: BackfillServer): Promise<ServerUser[]>;
  /**
   * Checks the URL and token against the server, then saves them (the token sealed): a new connection,
   * or a new URL, token and user for the existing one. ValidationError or MediaServerError when not.
   */
  connect(
    user: User,
    server: BackfillServer,
    values: { url: string; token: string; serverUser: string | null },
  ): Promise<void>;
  /** A new token for the saved connection, checked first. */
  replaceToken(user: User, server: BackfillServer, token: string): Promise<void>;
  /** Whose plays: a user of the server (an id or a name), checked against its list. */
  chooseServerUser(user: User, server: BackfillServer, serverUser: string): Promise<void>;
  /** Turns the periodic sync on (every `hours`) or off (null). */
  setSync(user: User, server: BackfillServer, hours: number | null): Promise<void>;
  /** Deletes the connection (and its sealed token); false when there was none. */
  remove(user: User, server: BackfillServer): Promise<boolean>;
  /** Queues a backfill of the saved connection; the job's id, or null when one waits or runs already. */
  run(
    user: User,
    server: BackfillServer,
    options: { dryRun: boolean; periodic?: boolean },
  ): Promise<number | null>;
  /** The backfill itself: fetches every page (or goes on from `pages`), then imports the plays at once. */
  backfill(user: User, connection: MediaServerConnection, options?: BackfillOptions): Promise<ImportSummary>;
  /** The connection's token, opened, for its backfill job. */
  savedConnection(userId: number, server: BackfillServer): Promise<MediaServerConnection | null>;
  /** A job's page store (in the database, until the job ends). */
  jobPages(jobId: number): PageStore & { clear(): Promise<void> };
  /** Records how a connection's backfill ended (now); the result as recorded. */
  recordResult(
    userId: number,
    server: BackfillServer,
    result: DistributiveOmit<BackfillResult, 'finishedAt'>,
  ): Promise<BackfillResult>;
  /** Queues the backfills of the connections whose sync is due; how many. Drops orphan pages. */
  queueDueSyncs(): Promise<number>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const sealContext = (userId: number, server: BackfillServer) => `media-server:${userId}:${server}`;

/** Connections: URL and sealed token per user and server; backfills run through the imports. */
export function createBackfillService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  keys: SecretKeySource;
  imports: ImportsService;
  queue: JobQueue;
  clientFor: MediaServerClientFactory;
  /** Per request to a server from a page (checking a token, listing users): short. */
  pageTimeoutMs?: number;
}): BackfillService {
  const { db, clock, keys, imports, queue, clientFor } = deps;
  const now = () => clock.now().toISOString();
  const pageOptions = { timeoutMs: deps.pageTimeoutMs ?? 10_000 };

  const box = () => {
    if (!keys.available) {
      throw new ValidationError(
        'cinelog cannot keep a token safely: set SECRET_KEY (docs/configuration.md) and restart it',
      );
    }
    return keys.box();
  };

  const connectionOf = (row: ConnectionRow): MediaServerConnection => ({
    server: row.server,
    url: row.url,
    token: box().open(row.token, sealContext(row.user_id, row.server)),
    serverUser: row.server_user,
  });

  const required = async (user: User, server: BackfillServer) => {
    const row = await findConnection(db, user.id, server);
    if (!row) throw new ValidationError(`there is no ${MEDIA_SERVERS[server].name} connection`);
    return row;
  };

  const view = async (row: ConnectionRow): Promise<ConnectionView> => ({
    server: row.server,
    name: MEDIA_SERVERS[row.server].name,
    url: row.url,
    serverUser: row.server_user,
    syncHours: row.sync_hours,
    lastSyncAt: row.last_sync_at,
    lastResult: row.last_result === null ? null : (JSON.parse(row.last_result) as BackfillResult),
    lastJob: row.last_job_id === null ? null : await queue.find(row.last_job_id, BACKFILL_JOB),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  const service: BackfillService = {
    async connections(user) {
      const rows = await listConnections(db, user.id);
      rows.sort((a, b) => BACKFILL_SERVERS.indexOf(a.server) - BACKFILL_SERVERS.indexOf(b.server));
      return Promise.all(rows.map(view));
    },

    async serverUsers(user, server) {
      const row = await required(user, server);
      return clientFor(connectionOf(row), pageOptions).users();
    },

    async connect(user, server, values) {
      const url = checkedUrl(values.url);
      const token = checkedToken(values.token);
      const serverUser = values.serverUser?.trim() || null;
      const sealed = box().seal(token, sealContext(user.id, server));
      const client = clientFor({ server, url, token, serverUser }, pageOptions);
      await client.check();
      if (serverUser !== null) await knownUser(client, serverUser);
      await saveConnection(db, { userId: user.id, server, url, token: sealed, serverUser, now: now() });
    },

    async replaceToken(user, server, token) {
      const row = await required(user, server);
      const checked = checkedToken(token);
      await clientFor(
        { server, url: row.url, token: checked, serverUser: row.server_user },
        pageOptions,
      ).check();
      await updateConnection(db, user.id, server, {
        token: box().seal(checked, sealContext(user.id, server)),
        updated_at: now(),
      });
    },

    async chooseServerUser(user, server, serverUser) {
      const row = await required(user, server);
      const chosen = await knownUser(clientFor(connectionOf(row), pageOptions), serverUser.trim());
      // Kept by its id: a name may change on the server.
      await saveConnection(db, {
        userId: user.id,
        server,
        url: row.url,
        token: row.token,
        serverUser: chosen.id,
        now: now(),
      });
    },

    async setSync(user, server, hours) {
      await required(user, server);
      if (hours !== null && (!Number.isInteger(hours) || hours < MIN_SYNC_HOURS || hours > MAX_SYNC_HOURS)) {
        throw new ValidationError(`the sync runs every ${MIN_SYNC_HOURS} to ${MAX_SYNC_HOURS} hours`);
      }
      await updateConnection(db, user.id, server, { sync_hours: hours, updated_at: now() });
    },

    async remove(user, server) {
      return deleteConnection(db, user.id, server);
    },

    async run(user, server, options) {
      await required(user, server);
      const payload: BackfillJobPayload = {
        userId: user.id,
        userName: user.name,
        server,
        dryRun: options.dryRun,
        periodic: options.periodic === true,
      };
      const id = await queue.enqueue(BACKFILL_JOB, payload, {
        key: `${user.id}:${server}`,
        userId: user.id,
        maxAttempts: 3,
      });
      if (id !== null) await updateConnection(db, user.id, server, { last_job_id: id });
      return id;
    },

    async backfill(user, connection, options = {}) {
      const client = clientFor(connection);
      const movies: PlayedMovie[] = [];
      let cursor: string | null = null;
      let finished = false;
      let seq = 0;
      let total: number | null = null;
      for (const page of (await options.pages?.load()) ?? []) {
        for (const movie of page.movies) movies.push(movie);
        cursor = page.next;
        total = page.total;
        finished = page.next === null;
        seq += 1;
      }
      options.onFetched?.(movies.length, total);
      while (!finished) {
        if (options.signal?.aborted) throw new Error('stopped: the backfill goes on at its next run');
        const page = await client.playedMovies(cursor);
        if (!Array.isArray(page?.movies) || (page.next !== null && typeof page.next !== 'string')) {
          throw new MediaServerError(
            'bad-answer',
            `${MEDIA_SERVERS[connection.server].name} gave a page cinelog cannot read`,
          );
        }
        // A server that hands back the cursor it was given would be paged forever.
        if (page.next !== null && page.next === cursor) {
          throw new MediaServerError(
            'bad-answer',
            `${MEDIA_SERVERS[connection.server].name} pages without end`,
          );
        }
        await options.pages?.add(seq++, page);
        for (const movie of page.movies) movies.push(movie);
        cursor = page.next;
        total = page.total;
        finished = page.next === null;
        options.onFetched?.(movies.length, total);
      }
      const rows = playRows(connection.server, movies, user.timezone);
      return imports.importRows(user, { rows, lists: [], unreadable: [], skipped: [] }, options);
    },

    async savedConnection(userId, server) {
      const row = await findConnection(db, userId, server);
      return row ? connectionOf(row) : null;
    },

    jobPages(jobId) {
      return {
        async load() {
          return (await jobPages(db, jobId)).map((page) => ({
            movies: JSON.parse(page.movies) as PlayedMovie[],
            next: page.next_cursor,
            total: page.total,
          }));
        },
        add: (seq, page) =>
          addJobPage(db, {
            jobId,
            seq,
            nextCursor: page.next,
            total: page.total,
            movies: JSON.stringify(page.movies),
            now: now(),
          }),
        clear: () => deleteJobPages(db, jobId),
      };
    },

    async recordResult(userId, server, given) {
      const result = { ...given, finishedAt: now() } as BackfillResult;
      await updateConnection(db, userId, server, {
        last_result: JSON.stringify(result),
        // A finished real run is a sync: the periodic one counts its hours from here.
        ...(result.error === undefined && !result.dryRun && { last_sync_at: result.finishedAt }),
      });
      return result;
    },

    async queueDueSyncs() {
      await deleteOrphanPages(db);
      const at = clock.now().getTime();
      let queued = 0;
      for (const row of await syncedConnections(db)) {
        const last = row.last_sync_at === null ? null : Date.parse(row.last_sync_at);
        if (last !== null && last + (row.sync_hours ?? 0) * 3_600_000 > at) continue;
        const payload: BackfillJobPayload = {
          userId: row.user_id,
          userName: row.user_name,
          server: row.server,
          dryRun: false,
          periodic: true,
        };
        const id = await queue.enqueue(BACKFILL_JOB, payload, {
          key: `${row.user_id}:${row.server}`,
          userId: row.user_id,
          maxAttempts: 3,
        });
        // Counted from now even when one runs already: a due sync is queued once, not at each check.
        await updateConnection(db, row.user_id, row.server, {
          last_sync_at: now(),
          ...(id !== null && { last_job_id: id }),
        });
        if (id !== null) queued += 1;
      }
      return queued;
    },
  };
  return service;
}

/** The server user named (by id or by name, letter case aside); MediaServerError 'unknown-user' when none. */
async function knownUser(client: MediaServerClient, wanted: string): Promise<ServerUser> {
  const users = await client.users();
  const found =
    users.find((u) => u.id === wanted) ?? users.find((u) => u.name.toLowerCase() === wanted.toLowerCase());
  if (!found) {
    throw new MediaServerError(
      'unknown-user',
      `${MEDIA_SERVERS[client.server].name} has no user "${wanted}"`,
    );
  }
  return found;
}

/** An http(s) URL without credentials, query or fragment; the trailing slash dropped. */
export function checkedUrl(text: string): string {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ValidationError('the server URL must be a full URL, such as http://192.168.1.10:32400');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('the server URL must start with http:// or https://');
  }
  if (url.username || url.password)
    throw new ValidationError('the server URL must not hold a user or password');
  if (url.search || url.hash) throw new ValidationError('the server URL must not hold a query or a fragment');
  if (trimmed.length > 500) throw new ValidationError('the server URL is too long');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkedToken(text: string): string {
  const token = text.trim();
  if (token.length === 0) throw new ValidationError('the token is missing');
  if (token.length > 500 || /[\s\p{Cc}]/u.test(token)) {
    throw new ValidationError('the token must be one line of at most 500 characters');
  }
  return token;
}
