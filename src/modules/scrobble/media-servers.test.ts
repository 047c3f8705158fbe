import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, setupTestApp, type TestContext, type TestUser } from '../../../test/harness.js';
import { signedInClient, textOf, type WebClient } from '../../../test/web-client.js';
import { runCli } from '../../cli/program.js';
import { ValidationError } from '../../shared/errors.js';
import {
  MEDIA_SERVER_KEYS,
  MEDIA_SERVERS,
  type MediaServer,
  type MediaServerEntry,
  namesOf,
  serversSupporting,
} from './media-servers.js';
import { createWebhooksService, type WebhooksService } from './webhooks.service.js';

const SRC = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = '/settings/integrations';

describe('the media-server registry', () => {
  it('keeps each server’s wire name, webhook path segment and display name', () => {
    const facts = Object.fromEntries(
      MEDIA_SERVER_KEYS.map((server) => [
        server,
        [MEDIA_SERVERS[server].segment, MEDIA_SERVERS[server].name],
      ]),
    );
    expect(facts).toEqual({
      plex: ['mediaserver-a', 'Plex'],
      jellyfin: ['mediaserver-b', 'Jellyfin'],
      emby: ['mediaserver-c', 'Emby'],
      kodi: ['mediaserver-d', 'Kodi'],
    });
  });

  it('says what each server’s reports support: ratings from Plex, a user filter for all but Kodi', () => {
    expect(serversSupporting('ratings')).toEqual(['plex']);
    expect(serversSupporting('userFilter')).toEqual(['plex', 'jellyfin', 'emby']);
    expect(namesOf(MEDIA_SERVER_KEYS)).toBe('Plex, Jellyfin, Emby or Kodi');
  });

  it('is the only source file that states a rule about one server by its name', () => {
    // A server's key compared in code, or a map keyed by server: such a fact belongs in the registry.
    const rule =
      /[!=]==\s*'(plex|jellyfin|emby|kodi)'|'(plex|jellyfin|emby|kodi)'\s*[!=]==|^\s*(plex|jellyfin|emby|kodi)\s*:/m;
    const offenders = sourceFiles(SRC)
      .map((path) => relative(SRC, path))
      .filter((path) => !path.endsWith('.test.ts'))
      // The registry itself, and the per-server how-to texts of the settings page (content, not rules).
      .filter((path) => path !== 'modules/scrobble/media-servers.ts')
      .filter((path) => path !== 'modules/web/views/integrations-howto.eta')
      .filter((path) => rule.test(readFileSync(join(SRC, path), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

/** The registry as it is, and with every option turned around and every name changed. */
const variants: { label: string; change: (entry: MediaServerEntry) => MediaServerEntry }[] = [
  { label: 'as it is', change: (entry) => entry },
  {
    label: 'turned around',
    change: (entry) => ({
      ...entry,
      name: `${entry.name} Box`,
      supports: { ratings: !entry.supports.ratings, userFilter: !entry.supports.userFilter },
    }),
  },
];

describe.each(variants)('every place reads the registry ($label)', ({ change }) => {
  // Only this test file's module instances see the change: vitest gives each test file its own.
  const registry = MEDIA_SERVERS as Record<MediaServer, MediaServerEntry>;
  const original = { ...registry };
  beforeAll(() => {
    for (const server of MEDIA_SERVER_KEYS) registry[server] = change(original[server]);
  });
  afterAll(() => {
    Object.assign(registry, original);
  });

  let ctx: TestContext;
  let alice: TestUser;
  let webhooks: WebhooksService;
  let browser: WebClient;
  beforeEach(async () => {
    ctx = await setupTestApp();
    alice = await createUser(ctx, { name: 'alice' });
    webhooks = createWebhooksService({ db: ctx.db, clock: ctx.clock, appUrl: ctx.config.appUrl });
    browser = await signedInClient(ctx.app, 'alice', { password: 'correct horse battery' });
  });
  afterEach(() => ctx.close());

  async function cli(args: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: { DATABASE_URL: ctx.config.databaseUrl, APP_URL: ctx.config.appUrl },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      clock: ctx.clock,
    });
    return { code, stdout, stderr };
  }

  const webhookRow = (server: MediaServer) =>
    ctx.db
      .selectFrom('webhooks')
      .select(['uuid', 'scrobble_watches', 'scrobble_ratings', 'account_filter'])
      .where('user_id', '=', alice.user.id)
      .where('server', '=', server)
      .executeTakeFirst();

  /** The text of one server's section of the integrations page. */
  const section = (html: string, server: MediaServer) =>
    new RegExp(`<section class="card" id="${server}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? '';

  const noRatings = (server: MediaServer) =>
    `${MEDIA_SERVERS[server].name} sends no ratings: only ${namesOf(serversSupporting('ratings'))} ratings can be set`;
  const noUserFilter = (server: MediaServer) =>
    `${MEDIA_SERVERS[server].name} reports carry no user name: a user filter would ignore all of them`;

  it.each(MEDIA_SERVER_KEYS)(
    '%s: the CLI turns on the options its entry supports, and only those',
    async (server) => {
      const { segment, supports } = MEDIA_SERVERS[server];
      const withRatings = await cli([
        'webhook',
        'create',
        '--user',
        'alice',
        '--server',
        server,
        '--ratings',
      ]);
      if (supports.ratings) {
        expect(withRatings.code, withRatings.stderr).toBe(0);
        expect(await webhookRow(server)).toMatchObject({ scrobble_ratings: 1 });
      } else {
        expect(withRatings).toMatchObject({ code: 1, stderr: `cinelog: ${noRatings(server)}\n` });
        expect(await webhookRow(server)).toBeUndefined();
        expect((await cli(['webhook', 'create', '--user', 'alice', '--server', server])).code).toBe(0);
      }
      const row = await webhookRow(server);
      const created = await cli(['webhook', 'list', '--user', 'alice']);
      expect(created.stdout).toContain(`${ctx.config.appUrl}/api/webhook/${segment}/${row?.uuid}`);

      const filtered = await cli([
        'webhook',
        'update',
        '--user',
        'alice',
        '--server',
        server,
        '--users',
        'partner',
      ]);
      if (supports.userFilter) {
        expect(filtered.code, filtered.stderr).toBe(0);
        expect(await webhookRow(server)).toEqual({ ...row, account_filter: '["partner"]' });
      } else {
        expect(filtered).toMatchObject({ code: 1, stderr: `cinelog: ${noUserFilter(server)}\n` });
        expect(await webhookRow(server)).toEqual(row);
      }

      const listed = (await cli(['webhook', 'list', '--user', 'alice'])).stdout;
      expect(listed.includes('ratings on')).toBe(supports.ratings);
      expect(listed.includes('users partner')).toBe(supports.userFilter);
      expect(listed.includes('all users')).toBe(false);
    },
  );

  it.each(MEDIA_SERVER_KEYS)(
    '%s: the page and its form offer the options its entry supports, and only those',
    async (server) => {
      const { name, segment, supports } = MEDIA_SERVERS[server];
      expect((await browser.submit(PAGE, `${PAGE}/${server}/url`)).statusCode).toBe(303);
      const page = section((await browser.get(PAGE)).body, server);
      expect(page).toContain(`<h2 id="${server}-heading">${name}</h2>`);
      expect(page).toContain(`/api/webhook/${segment}/${(await webhookRow(server))?.uuid}</code>`);
      expect(page.includes(`Set ratings from ${name}`)).toBe(supports.ratings);
      expect(page.includes(`Only reports from these ${name} users`)).toBe(supports.userFilter);
      expect(page.includes(`${name} reports name no user`)).toBe(!supports.userFilter);

      const before = await webhookRow(server);
      const rated = await browser.post(`${PAGE}/${server}/options`, { watches: 'on', ratings: 'on' });
      if (supports.ratings) {
        expect(rated.statusCode).toBe(303);
        expect(await webhookRow(server)).toMatchObject({ scrobble_ratings: 1 });
      } else {
        expect(rated.statusCode).toBe(400);
        expect(textOf(section(rated.body, server))).toContain(noRatings(server));
        expect(await webhookRow(server)).toEqual(before);
      }

      const between = await webhookRow(server);
      const filtered = await browser.post(`${PAGE}/${server}/options`, {
        watches: 'on',
        accounts: 'partner',
      });
      if (supports.userFilter) {
        expect(filtered.statusCode).toBe(303);
        expect(await webhookRow(server)).toMatchObject({ account_filter: '["partner"]' });
      } else {
        expect(filtered.statusCode).toBe(400);
        expect(textOf(section(filtered.body, server))).toContain(noUserFilter(server));
        expect(await webhookRow(server)).toEqual(between);
      }
    },
  );

  it.each(MEDIA_SERVER_KEYS)(
    '%s: the service refuses the options its entry does not support',
    async (server) => {
      const { supports } = MEDIA_SERVERS[server];
      const create = webhooks.create(alice.user.id, server, { scrobbleRatings: true });
      if (supports.ratings) await expect(create).resolves.toMatchObject({ scrobbleRatings: true });
      else {
        await expect(create).rejects.toThrow(new ValidationError(noRatings(server)));
        await webhooks.create(alice.user.id, server);
      }
      const before = await webhookRow(server);
      const update = webhooks.update(alice.user.id, server, {
        scrobbleWatches: false,
        accountFilter: ['partner'],
      });
      if (supports.userFilter) await expect(update).resolves.toMatchObject({ accountFilter: ['partner'] });
      else {
        await expect(update).rejects.toThrow(new ValidationError(noUserFilter(server)));
        expect(await webhookRow(server)).toEqual(before);
      }
      // Clearing is no option of its own: every server may be told to count everyone's reports.
      await expect(webhooks.update(alice.user.id, server, { accountFilter: [] })).resolves.toMatchObject({
        accountFilter: [],
      });
    },
  );

  it('names the servers on the home page and in the API document by their entries', async () => {
    expect(textOf((await browser.get('/')).body)).toContain(
      `connect ${namesOf(MEDIA_SERVER_KEYS)} in Settings`,
    );
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const { name, segment } of Object.values(MEDIA_SERVERS)) {
      expect(doc.paths[`/webhook/${segment}/{uuid}`]?.post?.summary).toBe(
        `Scrobble endpoint for ${name} (${segment})`,
      );
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|eta)$/.test(entry.name) ? [path] : [];
  });
}
