import {
  BACKFILL_SERVERS,
  type BackfillServer,
  type ServerUser,
} from '../../../integrations/media-servers/media-server.types.js';
import type { Page } from '../../../shared/pagination.js';
import type { ConnectionView } from '../../backfill/backfill.service.js';
import type { FeedView } from '../../feeds/feeds.service.js';
import type { UnmatchedRow } from '../../imports/import.service.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS, type MediaServer } from '../../scrobble/media-servers.js';
import { INBOX_RETENTION_DAYS, type InboxEntry } from '../../scrobble/scrobble.service.js';
import type { WebhookView } from '../../scrobble/webhooks.service.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';
import { summaryView } from '../shell/import-summary.js';

// Settings → integrations. Pure: the user's webhooks and their latest reports in, the template's data out.

/** A refused options form: the server, why, and the values as sent. */
export interface OptionsError {
  server: MediaServer;
  message: string;
  values: { watches: boolean; ratings: boolean; accounts: string };
}

/**
 * `/settings/integrations` of `user`: each media server (in the registry's order) with its webhook URL,
 * its options (as sent when `failed` refused them) and its latest reports (`reports`, one page per
 * server in the same order), times in the user's time zone. The URLs are built on `appUrl`; a browser
 * `seenAt` another host is told that it may be wrong. `feeds`: the user's feed URLs (the Radarr list).
 */
export function integrationsPage(
  user: User,
  hooks: WebhookView[],
  reports: Page<InboxEntry>[],
  failed: OptionsError | null,
  appUrl: string,
  seenAt: { host: string; origin: string },
  feeds: FeedView[] = [],
) {
  const servers = MEDIA_SERVER_KEYS.map((server, index) => {
    const hook = hooks.find((h) => h.server === server) ?? null;
    const error = failed?.server === server ? failed : null;
    const { name, supports } = MEDIA_SERVERS[server];
    return {
      key: server,
      name,
      url: hook?.url ?? null,
      supports,
      values: error?.values ?? optionValues(hook),
      error: error?.message ?? null,
      reports: (reports[index]?.items ?? []).map((entry) => reportRow(entry, user.timezone)),
    };
  });
  return {
    title: 'Integrations',
    servers,
    retentionDays: INBOX_RETENTION_DAYS,
    radarrUrl: feeds.find((feed) => feed.kind === 'radarr')?.url ?? null,
    userName: user.name,
    appUrlHint: seenAt.host !== new URL(appUrl).host ? { appUrl, seenAt: seenAt.origin } : null,
  };
}

function optionValues(hook: WebhookView | null) {
  return {
    watches: hook?.scrobbleWatches ?? true,
    ratings: hook?.scrobbleRatings ?? false,
    accounts: hook?.accountFilter.join(', ') ?? '',
  };
}

function reportRow(entry: InboxEntry, timeZone: string) {
  return {
    receivedAt: entry.receivedAt,
    received: formatDateTime(entry.receivedAt, timeZone),
    event: entry.event,
    account: entry.account,
    movie: entry.movie?.title ?? null,
    outcome: entry.outcome,
    reason: entry.reason,
  };
}

/** A refused backfill form: the server, why, and the values as sent (never the token). */
export interface BackfillError {
  server: BackfillServer;
  message: string;
  values: { url: string; serverUser: string };
}

/**
 * The past-plays part of each server's card: its saved connection (never the token), the last
 * backfill's progress or result, and the forms. `pick`: the server's users to choose from, for the one
 * server whose list was asked for.
 */
export function backfillSections(
  user: User,
  connections: ConnectionView[],
  failed: BackfillError | null,
  pick: { server: BackfillServer; users: ServerUser[] } | null,
) {
  return Object.fromEntries(
    BACKFILL_SERVERS.map((server) => {
      const connection = connections.find((c) => c.server === server) ?? null;
      const error = failed?.server === server ? failed : null;
      const facts = backfillFacts(server);
      return [
        server,
        {
          key: server,
          name: MEDIA_SERVERS[server].name,
          tokenName: facts.tokenName,
          tokenHint: facts.tokenHint,
          urlPlaceholder: facts.urlPlaceholder,
          // One API key for the whole server (Jellyfin, Emby): whose plays must be said.
          hasUsers: facts.pickUser,
          error: error?.message ?? null,
          values: error?.values ?? { url: connection?.url ?? '', serverUser: connection?.serverUser ?? '' },
          pick:
            pick?.server === server
              ? pick.users.map((u) => ({ ...u, selected: u.id === connection?.serverUser }))
              : null,
          connection: connection && connectionView(connection, user.timezone),
        },
      ];
    }),
  ) as Record<BackfillServer, BackfillSection>;
}

export type BackfillSection = {
  key: BackfillServer;
  name: string;
  tokenName: string;
  tokenHint: string;
  urlPlaceholder: string;
  hasUsers: boolean;
  error: string | null;
  values: { url: string; serverUser: string };
  pick: (ServerUser & { selected: boolean })[] | null;
  connection: ReturnType<typeof connectionView> | null;
};

function connectionView(connection: ConnectionView, timeZone: string) {
  const job = connection.lastJob;
  const pending = job !== null && (job.state === 'queued' || job.state === 'running');
  const result = connection.lastResult;
  const where = (row: UnmatchedRow) => `${row.file}, item ${row.line}`;
  return {
    url: connection.url,
    serverUser: connection.serverUser,
    syncHours: connection.syncHours,
    lastSync: connection.lastSyncAt === null ? null : formatDateTime(connection.lastSyncAt, timeZone),
    job: pending
      ? {
          state:
            job.state === 'running'
              ? 'Running'
              : job.error
                ? `Waiting to try again (${job.error})`
                : 'Waiting to start',
          dryRun: (job.payload as { dryRun?: boolean } | undefined)?.dryRun === true,
          progress: job.progress
            ? { value: job.progress.done, max: job.progress.total, text: progressText(job.progress) }
            : { value: null, max: null, text: 'Starting…' },
        }
      : null,
    result:
      result === null
        ? null
        : {
            finished: formatDateTime(result.finishedAt, timeZone),
            periodic: result.periodic,
            error: result.error ?? null,
            dryRun: result.error === undefined ? result.dryRun : false,
            summary: result.error === undefined ? summaryView(result, where) : null,
          },
  };
}

const progressText = (progress: { done: number; total: number | null }) =>
  progress.total === null ? `${progress.done} done.` : `${progress.done} of ${progress.total} done.`;

/** How the backfill connects to `server`, from the registry (every backfill server has an entry). */
export function backfillFacts(server: BackfillServer) {
  const facts = MEDIA_SERVERS[server].backfill;
  if (!facts) throw new Error(`the registry says nothing of a backfill from ${server}`);
  return facts;
}
