import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  BACKFILL_SERVERS,
  type BackfillServer,
  MediaServerError,
  type ServerUser,
} from '../../../integrations/media-servers/media-server.types.js';
import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS } from '../../scrobble/media-servers.js';
import type { WebhookSettingsChange } from '../../scrobble/webhooks.service.js';
import { isTicked } from '../shell/forms.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import {
  type BackfillError,
  backfillFacts,
  backfillSections,
  integrationsPage,
  type OptionsError,
} from './integrations.page.js';

/** Reports shown per server; the API's inbox has them all (30 days). */
const LATEST_REPORTS = 10;

const ServerParams = Type.Object({
  server: Type.Union(MEDIA_SERVER_KEYS.map((server) => Type.Literal(server))),
});
const OptionsForm = Type.Object({
  watches: Type.Optional(Type.String({ maxLength: 10 })),
  ratings: Type.Optional(Type.String({ maxLength: 10 })),
  accounts: Type.Optional(Type.String({ maxLength: 5000 })),
});

const BackfillParams = Type.Object({
  server: Type.Union(BACKFILL_SERVERS.map((server) => Type.Literal(server))),
});
const IntegrationsQuery = Type.Object({
  pick: Type.Optional(Type.Union(BACKFILL_SERVERS.map((server) => Type.Literal(server)))),
});
const ConnectForm = Type.Object({
  url: Type.String({ maxLength: 2000 }),
  token: Type.String({ maxLength: 2000 }),
  serverUser: Type.Optional(Type.String({ maxLength: 500 })),
});
const TokenForm = Type.Object({ token: Type.String({ maxLength: 2000 }) });
const ServerUserForm = Type.Object({ serverUser: Type.String({ maxLength: 500 }) });
const SyncForm = Type.Object({
  sync: Type.Optional(Type.String({ maxLength: 10 })),
  hours: Type.Optional(Type.String({ maxLength: 10 })),
});
const BackfillForm = Type.Object({ dryRun: Type.Optional(Type.String({ maxLength: 10 })) });

/** The services these pages use. */
export type IntegrationDeps = Pick<WebDeps, 'webhooks' | 'feeds' | 'scrobble' | 'appUrl' | 'backfill'>;

/**
 * Settings → integrations: each media server's webhook URL, its options and its latest reports; the
 * feed URLs (the watchlist as a Radarr list).
 */
export function integrationRoutes(
  app: App,
  { render, settings }: Pages,
  { webhooks, feeds, scrobble, appUrl, backfill }: IntegrationDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    failed: OptionsError | null = null,
    status = 200,
    more: { backfillFailed?: BackfillError; pick?: { server: BackfillServer; users: ServerUser[] } } = {},
  ) => {
    const { user } = currentUser(request);
    const [hooks, feedList, connections, reports] = await Promise.all([
      webhooks.list(user.id),
      feeds.list(user.id),
      backfill.connections(user),
      Promise.all(
        MEDIA_SERVER_KEYS.map((server) =>
          scrobble.inbox(user.id, { server }, { page: 1, limit: LATEST_REPORTS }),
        ),
      ),
    ]);
    // The URLs are built on APP_URL; a browser on another address hints that it may be wrong.
    const seenAt = { host: request.host, origin: `${request.protocol}://${request.host}` };
    return render(
      request,
      reply,
      'integrations',
      {
        ...integrationsPage(user, hooks, reports, failed, appUrl, seenAt, feedList),
        backfill: backfillSections(user, connections, more.backfillFailed ?? null, more.pick ?? null),
      },
      status,
    );
  };

  app.get(
    '/settings/integrations',
    { ...signedIn, schema: { querystring: IntegrationsQuery } },
    async (request, reply) => {
      const server = request.query.pick;
      if (server === undefined) return page(request, reply);
      // The server's users, read with the saved token, to choose whose plays to bring in.
      const { user } = currentUser(request);
      try {
        const users = await backfill.serverUsers(user, server);
        return page(request, reply, null, 200, { pick: { server, users } });
      } catch (error) {
        const message = refusal(error);
        if (message === null) throw error;
        const values = { url: '', serverUser: '' };
        return page(request, reply, null, 400, { backfillFailed: { server, message, values } });
      }
    },
  );

  /** Runs a backfill form's change; a refusal (a bad value, the server's answer) shows the page again. */
  const backfillForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    server: BackfillServer,
    change: () => Promise<string>,
    values: { url?: string | undefined; serverUser?: string | undefined } = {},
    next = `/settings/integrations#${server}-backfill`,
  ) => {
    try {
      setFlash(reply, await change(), settings);
    } catch (error) {
      const message = refusal(error);
      if (message === null) throw error;
      const { user } = currentUser(request);
      const saved = (await backfill.connections(user)).find((c) => c.server === server);
      const shown = {
        url: values.url ?? saved?.url ?? '',
        serverUser: values.serverUser ?? saved?.serverUser ?? '',
      };
      return page(request, reply, null, 400, { backfillFailed: { server, message, values: shown } });
    }
    return reply.redirect(next, 303);
  };

  app.post(
    '/settings/integrations/:server/connection',
    { ...signedIn, schema: { params: BackfillParams, body: ConnectForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { url, token } = request.body;
      const serverUser = request.body.serverUser?.trim() || null;
      const { name } = MEDIA_SERVERS[server];
      // Jellyfin and Emby without a user named: on to the list of the server's users.
      const next =
        backfillFacts(server).pickUser && serverUser === null
          ? `/settings/integrations?pick=${server}#${server}-backfill`
          : `/settings/integrations#${server}-backfill`;
      return backfillForm(
        request,
        reply,
        server,
        async () => {
          await backfill.connect(user, server, { url, token, serverUser });
          return next.includes('pick=')
            ? `Connected to ${name}. Choose whose plays to bring in.`
            : `Connected to ${name}. The token is kept encrypted and is not shown again.`;
        },
        { url, serverUser: serverUser ?? '' },
        next,
      );
    },
  );

  app.post(
    '/settings/integrations/:server/connection/token',
    { ...signedIn, schema: { params: BackfillParams, body: TokenForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      return backfillForm(request, reply, server, async () => {
        await backfill.replaceToken(user, server, request.body.token);
        return `The ${name} token was replaced.`;
      });
    },
  );

  app.post(
    '/settings/integrations/:server/connection/user',
    { ...signedIn, schema: { params: BackfillParams, body: ServerUserForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      return backfillForm(request, reply, server, async () => {
        await backfill.chooseServerUser(user, server, request.body.serverUser);
        return `The ${name} user was saved.`;
      });
    },
  );

  app.post(
    '/settings/integrations/:server/connection/sync',
    { ...signedIn, schema: { params: BackfillParams, body: SyncForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      const on = isTicked(request.body.sync);
      return backfillForm(request, reply, server, async () => {
        // Not a whole number (NaN included): the service refuses it.
        const hours = on ? Number(request.body.hours ?? Number.NaN) : null;
        await backfill.setSync(user, server, hours);
        return on ? `${name} is synced every ${hours} hours.` : `The periodic ${name} sync is off.`;
      });
    },
  );

  app.post(
    '/settings/integrations/:server/connection/delete',
    { ...signedIn, schema: { params: BackfillParams } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      const removed = await backfill.remove(user, server);
      setFlash(
        reply,
        removed
          ? `The ${name} connection and its token were removed. The plays it brought in stay.`
          : `There was no ${name} connection to remove.`,
        settings,
      );
      return reply.redirect('/settings/integrations', 303);
    },
  );

  app.post(
    '/settings/integrations/:server/backfill',
    { ...signedIn, schema: { params: BackfillParams, body: BackfillForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const dryRun = isTicked(request.body.dryRun);
      return backfillForm(request, reply, server, async () => {
        const id = await backfill.run(user, server, { dryRun });
        const { name } = MEDIA_SERVERS[server];
        if (id === null) return `A ${name} backfill is already waiting or running.`;
        return dryRun
          ? `The ${name} preview has started: nothing is changed. Refresh this page to see how far it is.`
          : `The ${name} backfill has started. Refresh this page to see how far it is.`;
      });
    },
  );

  // Creates the URL, or regenerates it: the old URL stops working at once.
  app.post(
    '/settings/integrations/:server/url',
    { ...signedIn, schema: { params: ServerParams } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const existed = (await webhooks.list(user.id)).some((hook) => hook.server === server);
      await webhooks.create(user.id, server);
      const { name } = MEDIA_SERVERS[server];
      setFlash(
        reply,
        existed
          ? `Your ${name} webhook URL was regenerated: the old URL no longer works. Paste the new one into ${name}.`
          : `Your ${name} webhook URL is ready: paste it into ${name}.`,
        settings,
      );
      return reply.redirect('/settings/integrations', 303);
    },
  );

  app.post(
    '/settings/integrations/:server/delete',
    { ...signedIn, schema: { params: ServerParams } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      const removed = await webhooks.remove(user.id, server);
      setFlash(
        reply,
        removed
          ? `Your ${name} webhook URL was deleted: ${name} reports to it are no longer accepted.`
          : `There was no ${name} webhook URL to delete.`,
        settings,
      );
      return reply.redirect('/settings/integrations', 303);
    },
  );

  // The Radarr list: created, or regenerated (the old URL stops working at once).
  app.post('/settings/integrations/feeds/radarr/url', signedIn, async (request, reply) => {
    const { user } = currentUser(request);
    const existed = (await feeds.list(user.id)).some((feed) => feed.kind === 'radarr');
    await feeds.create(user.id, 'radarr');
    setFlash(
      reply,
      existed
        ? 'Your Radarr list URL was regenerated: the old URL no longer works. Paste the new one into Radarr.'
        : 'Your Radarr list URL is ready: paste it into Radarr.',
      settings,
    );
    return reply.redirect('/settings/integrations#radarr-list', 303);
  });

  app.post('/settings/integrations/feeds/radarr/delete', signedIn, async (request, reply) => {
    const { user } = currentUser(request);
    const removed = await feeds.remove(user.id, 'radarr');
    setFlash(
      reply,
      removed
        ? 'Your Radarr list URL was deleted: Radarr gets "not found" from it from now on.'
        : 'There was no Radarr list URL to delete.',
      settings,
    );
    return reply.redirect('/settings/integrations#radarr-list', 303);
  });

  app.post(
    '/settings/integrations/:server/options',
    { ...signedIn, schema: { params: ServerParams, body: OptionsForm } },
    async (request, reply) => {
      const { user } = currentUser(request);
      const { server } = request.params;
      const { name } = MEDIA_SERVERS[server];
      const form = request.body;
      try {
        await webhooks.update(user.id, server, optionChanges(form));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const values = {
          watches: isTicked(form.watches),
          ratings: isTicked(form.ratings),
          accounts: form.accounts ?? '',
        };
        return page(request, reply, { server, message: error.message, values }, 400);
      }
      setFlash(reply, `${name} options saved.`, settings);
      return reply.redirect('/settings/integrations', 303);
    },
  );
}

/** What to tell the user when a backfill form is refused; null: a bug, not theirs to fix. */
function refusal(error: unknown): string | null {
  if (error instanceof ValidationError || error instanceof MediaServerError) return error.message;
  return null;
}

/**
 * The options form as a change: an unticked checkbox is absent from the form, so it means off. A server
 * without ratings or a user filter has no such field; sent anyway, the service refuses it.
 */
function optionChanges(form: {
  watches?: string | undefined;
  ratings?: string | undefined;
  accounts?: string | undefined;
}): WebhookSettingsChange {
  return {
    scrobbleWatches: isTicked(form.watches),
    scrobbleRatings: isTicked(form.ratings),
    accountFilter: splitNames(form.accounts ?? ''),
  };
}

/** "alice, Partner ,alice" -> ["alice", "Partner"]: names are matched without regard to case. */
function splitNames(text: string): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  return names.filter(
    (name, index) => names.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === index,
  );
}
