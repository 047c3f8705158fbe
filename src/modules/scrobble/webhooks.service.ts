import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, WebhookRow } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import { MEDIA_SERVERS, type MediaServer, namesOf, serversSupporting } from './media-servers.js';
import * as webhooks from './webhooks.repository.js';

/** A user's webhook for one media server, as settings pages and the CLI show it. */
export interface WebhookView {
  server: MediaServer;
  url: string;
  scrobbleWatches: boolean;
  /** A report of a rating sets the user's rating; only for a server that supports ratings. */
  scrobbleRatings: boolean;
  /** Media-server user names whose reports count; empty: everyone's. Only for a server that supports it. */
  accountFilter: string[];
  createdAt: string;
  updatedAt: string;
}

export interface WebhookSettingsChange {
  scrobbleWatches?: boolean;
  scrobbleRatings?: boolean;
  accountFilter?: string[];
}

export interface WebhooksService {
  /** Creates the webhook, or regenerates its UUID so the old URL stops working at once. */
  create(userId: number, server: MediaServer, options?: { scrobbleRatings?: boolean }): Promise<WebhookView>;
  update(userId: number, server: MediaServer, changes: WebhookSettingsChange): Promise<WebhookView>;
  remove(userId: number, server: MediaServer): Promise<boolean>;
  list(userId: number): Promise<WebhookView[]>;
}

export function webhookUrl(appUrl: string, server: MediaServer, uuid: string): string {
  return `${appUrl}/api/webhook/${MEDIA_SERVERS[server].segment}/${uuid}`;
}

/** Refuses turning on an option the server's reports give no meaning to (the registry says which). */
function refuseUnsupported(server: MediaServer, changes: WebhookSettingsChange): void {
  const { name, supports } = MEDIA_SERVERS[server];
  if (changes.scrobbleRatings && !supports.ratings) {
    throw new ValidationError(
      `${name} sends no ratings: only ${namesOf(serversSupporting('ratings'))} ratings can be set`,
    );
  }
  if (changes.accountFilter !== undefined && changes.accountFilter.length > 0 && !supports.userFilter) {
    throw new ValidationError(`${name} reports carry no user name: a user filter would ignore all of them`);
  }
}

export function parseAccountFilter(stored: string | null): string[] {
  if (stored === null) return [];
  try {
    const names: unknown = JSON.parse(stored);
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

export function createWebhooksService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  appUrl: string;
}): WebhooksService {
  const { db, clock, appUrl } = deps;

  const toView = (row: WebhookRow): WebhookView => ({
    server: row.server,
    url: webhookUrl(appUrl, row.server, row.uuid),
    scrobbleWatches: row.scrobble_watches === 1,
    scrobbleRatings: row.scrobble_ratings === 1,
    accountFilter: parseAccountFilter(row.account_filter),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  return {
    async create(userId, server, options = {}) {
      refuseUnsupported(server, options);
      const row = await webhooks.upsertWebhookUuid(db, {
        userId,
        server,
        uuid: randomUUID(),
        scrobbleRatings: options.scrobbleRatings,
        now: clock.now().toISOString(),
      });
      return toView(row);
    },

    async update(userId, server, changes) {
      const row = await webhooks.findWebhook(db, userId, server);
      if (!row) throw new ValidationError(`no ${server} webhook yet: create one first`);
      const names = changes.accountFilter?.map((n) => n.trim()).filter((n) => n.length > 0);
      refuseUnsupported(server, { ...changes, accountFilter: names });
      if (names?.some((n) => n.length > 200))
        throw new ValidationError('a user name is at most 200 characters');
      await webhooks.updateWebhookSettings(db, row.id, {
        ...(changes.scrobbleWatches !== undefined && { scrobble_watches: changes.scrobbleWatches ? 1 : 0 }),
        ...(changes.scrobbleRatings !== undefined && { scrobble_ratings: changes.scrobbleRatings ? 1 : 0 }),
        ...(names !== undefined && { account_filter: names.length > 0 ? JSON.stringify(names) : null }),
        updated_at: clock.now().toISOString(),
      });
      return toView((await webhooks.findWebhook(db, userId, server))!);
    },

    remove: (userId, server) => webhooks.deleteWebhook(db, userId, server),

    async list(userId) {
      return (await webhooks.listWebhooks(db, userId)).map(toView);
    },
  };
}
