import type { Command } from 'commander';
import { FEED_KINDS, type FeedKind } from '../modules/feeds/feeds.service.js';
import { type CliIo, CommandError, plural, requireUser, withDatabase } from './context.js';
import { mandatory } from './options.js';

const kindOption = () =>
  mandatory('--kind <kind>', `the kind of feed: ${FEED_KINDS.join(', ')}`).choices(FEED_KINDS);

/** `cinelog feed ...`: the feed URLs of a user (the watchlist as a Radarr list). */
export function registerFeedCommands(program: Command, io: CliIo): void {
  const feed = program
    .command('feed')
    .description("manage a user's feed URLs (the watchlist as a Radarr list)");

  feed
    .command('create')
    .description(
      'create the feed URL of a kind, or regenerate it (the old URL stops working); prints the URL',
    )
    .addOption(mandatory('--user <name>', 'the user whose watchlist it serves'))
    .addOption(kindOption())
    .action((options: { user: string; kind: FeedKind }) =>
      withDatabase(io, async ({ users, feeds }) => {
        const owner = await requireUser(users, options.user);
        const existed = (await feeds.list(owner.id)).some((f) => f.kind === options.kind);
        const created = await feeds.create(owner.id, options.kind);
        io.stderr.write(
          `${existed ? 'regenerated' : 'created'} the ${options.kind} feed of ${owner.name}` +
            `${existed ? ' (the previous URL no longer works)' : ''}\n`,
        );
        io.stdout.write(`${created.url}\n`);
      }),
    );

  feed
    .command('delete')
    .description('delete the feed of a kind: its URL stops working')
    .addOption(mandatory('--user <name>', 'the user'))
    .addOption(kindOption())
    .action((options: { user: string; kind: FeedKind }) =>
      withDatabase(io, async ({ users, feeds }) => {
        const owner = await requireUser(users, options.user);
        if (!(await feeds.remove(owner.id, options.kind))) {
          throw new CommandError(`${owner.name} has no ${options.kind} feed`);
        }
        io.stderr.write(`deleted the ${options.kind} feed of ${owner.name}\n`);
        io.stdout.write(`${options.kind}\n`);
      }),
    );

  feed
    .command('list')
    .description("list a user's feeds with their URLs")
    .addOption(mandatory('--user <name>', 'the user'))
    .action((options: { user: string }) =>
      withDatabase(io, async ({ users, feeds }) => {
        const owner = await requireUser(users, options.user);
        const list = await feeds.list(owner.id);
        for (const f of list) io.stdout.write(`${f.kind}\t${f.url}\n`);
        io.stderr.write(`${plural(list.length, 'feed')} of ${owner.name}\n`);
      }),
    );
}
