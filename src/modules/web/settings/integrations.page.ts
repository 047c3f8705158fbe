import type { Page } from '../../../shared/pagination.js';
import type { FeedView } from '../../feeds/feeds.service.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS, type MediaServer } from '../../scrobble/media-servers.js';
import { INBOX_RETENTION_DAYS, type InboxEntry } from '../../scrobble/scrobble.service.js';
import type { WebhookView } from '../../scrobble/webhooks.service.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';

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
