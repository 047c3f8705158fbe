import { type Command, Option } from 'commander';
import {
  MEDIA_SERVER_KEYS,
  MEDIA_SERVERS,
  type MediaServer,
  type MediaServerOption,
  namesOf,
  serversSupporting,
} from '../modules/scrobble/media-servers.js';
import type { WebhookView } from '../modules/scrobble/webhooks.service.js';
import { type CliIo, CommandError, plural, requireUser, UsageError, withDatabase } from './context.js';
import { mandatory } from './options.js';

const serverOption = () =>
  mandatory('--server <server>', `the media server: ${MEDIA_SERVER_KEYS.join(', ')}`).choices(
    MEDIA_SERVER_KEYS,
  );
/** "(Plex only)", "(not Kodi)": which servers an option is for, as the registry says. */
const forServers = (option: MediaServerOption) => {
  const supporting = serversSupporting(option);
  const others = MEDIA_SERVER_KEYS.filter((server) => !supporting.includes(server));
  return supporting.length <= others.length ? `(${namesOf(supporting)} only)` : `(not ${namesOf(others)})`;
};
const onOff = (flags: string, description: string) => new Option(flags, description).choices(['on', 'off']);

interface UpdateOptions {
  user: string;
  server: MediaServer;
  watches?: 'on' | 'off';
  ratings?: 'on' | 'off';
  users?: string;
  allUsers?: boolean;
}

/** `cinelog webhook ...`: the scrobble URLs of a user's media servers. */
export function registerWebhookCommands(program: Command, io: CliIo): void {
  const webhook = program.command('webhook').description("manage a user's media-server webhook URLs");

  webhook
    .command('create')
    .description(
      'create the webhook URL for a media server, or regenerate it (the old URL stops working); prints the URL',
    )
    .addOption(mandatory('--user <name>', 'the user whose plays it records'))
    .addOption(serverOption())
    .option('--ratings', `also record ratings ${forServers('ratings')}, off by default`)
    .action((options: { user: string; server: MediaServer; ratings?: boolean }) =>
      withDatabase(io, async ({ users, webhooks }) => {
        const owner = await requireUser(users, options.user);
        const existed = (await webhooks.list(owner.id)).some((w) => w.server === options.server);
        const created = await webhooks.create(owner.id, options.server, {
          ...(options.ratings && { scrobbleRatings: true }),
        });
        io.stderr.write(
          `${existed ? 'regenerated' : 'created'} the ${options.server} webhook of ${owner.name}` +
            `${existed ? ' (the previous URL no longer works)' : ''}; ${describe(created)}\n`,
        );
        io.stdout.write(`${created.url}\n`);
      }),
    );

  webhook
    .command('update')
    .description("change a webhook's settings; prints its URL")
    .addOption(mandatory('--user <name>', 'the user'))
    .addOption(serverOption())
    .addOption(onOff('--watches <on|off>', 'record finished watches'))
    .addOption(onOff('--ratings <on|off>', `record ratings ${forServers('ratings')}`))
    .option(
      '--users <names>',
      `count only reports for these media-server user names, comma-separated ${forServers('userFilter')}`,
    )
    .option('--all-users', "count every media-server user's reports (clears --users)")
    .action((options: UpdateOptions) =>
      withDatabase(io, async ({ users, webhooks }) => {
        if (options.users !== undefined && options.allUsers)
          throw new UsageError('give --users or --all-users, not both');
        if (
          options.watches === undefined &&
          options.ratings === undefined &&
          options.users === undefined &&
          !options.allUsers
        ) {
          throw new UsageError('nothing to change: give --watches, --ratings, --users or --all-users');
        }
        const owner = await requireUser(users, options.user);
        const updated = await webhooks.update(owner.id, options.server, {
          ...(options.watches !== undefined && { scrobbleWatches: options.watches === 'on' }),
          ...(options.ratings !== undefined && { scrobbleRatings: options.ratings === 'on' }),
          ...(options.users !== undefined && { accountFilter: options.users.split(',') }),
          ...(options.allUsers && { accountFilter: [] }),
        });
        io.stderr.write(`updated the ${options.server} webhook of ${owner.name}; ${describe(updated)}\n`);
        io.stdout.write(`${updated.url}\n`);
      }),
    );

  webhook
    .command('delete')
    .description('delete the webhook of a media server: its URL stops working')
    .addOption(mandatory('--user <name>', 'the user'))
    .addOption(serverOption())
    .action((options: { user: string; server: MediaServer }) =>
      withDatabase(io, async ({ users, webhooks }) => {
        const owner = await requireUser(users, options.user);
        if (!(await webhooks.remove(owner.id, options.server))) {
          throw new CommandError(`${owner.name} has no ${options.server} webhook`);
        }
        io.stderr.write(`deleted the ${options.server} webhook of ${owner.name}\n`);
        io.stdout.write(`${options.server}\n`);
      }),
    );

  webhook
    .command('list')
    .description("list a user's webhooks with their URLs and settings")
    .addOption(mandatory('--user <name>', 'the user'))
    .action((options: { user: string }) =>
      withDatabase(io, async ({ users, webhooks }) => {
        const owner = await requireUser(users, options.user);
        const list = await webhooks.list(owner.id);
        for (const hook of list) io.stdout.write(`${hook.server}\t${hook.url}\t${describe(hook)}\n`);
        io.stderr.write(`${plural(list.length, 'webhook')} of ${owner.name}\n`);
      }),
    );
}

/** The settings of a webhook, those its server supports: "watches on, ratings off, all users". */
function describe(hook: WebhookView): string {
  const { supports } = MEDIA_SERVERS[hook.server];
  const parts = [`watches ${hook.scrobbleWatches ? 'on' : 'off'}`];
  if (supports.ratings) parts.push(`ratings ${hook.scrobbleRatings ? 'on' : 'off'}`);
  if (supports.userFilter) {
    parts.push(hook.accountFilter.length > 0 ? `users ${hook.accountFilter.join(', ')}` : 'all users');
  }
  return parts.join(', ');
}
