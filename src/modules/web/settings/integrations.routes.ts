import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ValidationError } from '../../../shared/errors.js';
import type { App } from '../../../shared/http.js';
import { MEDIA_SERVER_KEYS, MEDIA_SERVERS } from '../../scrobble/media-servers.js';
import type { WebhookSettingsChange } from '../../scrobble/webhooks.service.js';
import { isTicked } from '../shell/forms.js';
import { currentUser, requireSignIn } from '../shell/guards.js';
import type { Pages } from '../shell/render.js';
import { setFlash } from '../shell/session.js';
import type { WebDeps } from '../web.deps.js';
import { integrationsPage, type OptionsError } from './integrations.page.js';

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

/** The services these pages use. */
export type IntegrationDeps = Pick<WebDeps, 'webhooks' | 'feeds' | 'scrobble' | 'appUrl'>;

/**
 * Settings → integrations: each media server's webhook URL, its options and its latest reports; the
 * feed URLs (the watchlist as a Radarr list).
 */
export function integrationRoutes(
  app: App,
  { render, settings }: Pages,
  { webhooks, feeds, scrobble, appUrl }: IntegrationDeps,
): void {
  const signedIn = { preHandler: requireSignIn };

  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    failed: OptionsError | null = null,
    status = 200,
  ) => {
    const { user } = currentUser(request);
    const [hooks, feedList, reports] = await Promise.all([
      webhooks.list(user.id),
      feeds.list(user.id),
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
      integrationsPage(user, hooks, reports, failed, appUrl, seenAt, feedList),
      status,
    );
  };

  app.get('/settings/integrations', signedIn, async (request, reply) => page(request, reply));

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
