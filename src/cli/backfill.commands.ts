import { Argument, type Command } from 'commander';
import { BACKFILL_SERVERS, type BackfillServer } from '../integrations/media-servers/media-server.types.js';
import { checkedUrl } from '../modules/backfill/backfill.service.js';
import { type CliIo, requireUser, withDatabase } from './context.js';
import { describe, progressBar } from './import.commands.js';
import { mandatory } from './options.js';

/**
 * `cinelog backfill plex|jellyfin|emby`: a user's past plays from a media server, run here and now (not
 * through the job queue), as `cinelog import` does. It saves no connection: the web app's Settings →
 * Integrations does, for the periodic sync. The token is a secret: never written anywhere.
 */
export function registerBackfillCommands(program: Command, io: CliIo): void {
  program
    .command('backfill')
    .description(
      "add a user's past plays from Plex, Jellyfin or Emby (each view on its day in the user's time zone); " +
        'running it again adds nothing; prints the counts as JSON on the last line',
    )
    .addArgument(new Argument('<server>', 'the media server').choices(BACKFILL_SERVERS))
    .addOption(mandatory('--user <name>', 'whose library'))
    .addOption(mandatory('--url <server url>', "the server's address, e.g. http://192.168.1.10:32400"))
    .addOption(mandatory('--token <token>', 'Plex: an X-Plex-Token; Jellyfin and Emby: an API key'))
    .option(
      '--server-user <name or id>',
      "whose plays on the server (Plex: the token's own account by default; Jellyfin and Emby: needed when the server has several users)",
    )
    .option('--dry-run', 'only report what would be added, already there or unmatched; change nothing', false)
    .action(
      (
        server: BackfillServer,
        options: { user: string; url: string; token: string; serverUser?: string; dryRun: boolean },
      ) =>
        withDatabase(io, async ({ users, backfill }) => {
          const user = await requireUser(users, options.user);
          const url = checkedUrl(options.url);
          const fetching = progressBar(io, 'reading the server');
          const matching = progressBar(io);
          let fetched = 0;
          const summary = await backfill
            .backfill(
              user,
              { server, url, token: options.token, serverUser: options.serverUser?.trim() || null },
              {
                dryRun: options.dryRun,
                onFetched: (done, total) => {
                  fetched = done;
                  if (total !== null) fetching.update(done, total);
                },
                onProgress: (done, total) => {
                  fetching.stop();
                  matching.update(done, total);
                },
              },
            )
            .finally(() => {
              fetching.stop();
              matching.stop();
            });
          io.stderr.write(`read ${fetched} played movies from ${url}\n`);
          io.stderr.write(describe(summary));
          const { added, existing, unmatched } = summary;
          io.stdout.write(`${JSON.stringify({ added, existing, unmatched })}\n`);
        }),
    );
}
