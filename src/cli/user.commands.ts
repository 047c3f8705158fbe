import { type Command, Option } from 'commander';
import { describeOwned, type User } from '../modules/users/users.service.js';
import { type CliIo, plural, requireUser, UsageError, withDatabase } from './context.js';
import { mandatory } from './options.js';

interface CreateOptions {
  name: string;
  email: string;
  password: string;
  admin?: boolean;
  timezone?: string;
}

interface UpdateOptions {
  name: string;
  email?: string;
  timezone?: string;
  privacy?: string;
  watchlistAutoRemove?: 'on' | 'off';
  ratingScale?: 'stars' | 'points';
  publicProfile?: 'on' | 'off';
  twoFactor?: 'off';
  admin?: 'on' | 'off';
}

interface ListOptions {
  json: boolean;
}

interface DeleteOptions {
  name: string;
  yes?: boolean;
}

interface ResetPasswordOptions {
  name: string;
  password: string;
}

const describe = (user: User) =>
  `id ${user.id}, ${user.isAdmin ? 'admin' : 'not admin'}, e-mail ${user.email}, ` +
  `time zone ${user.timezone}, privacy ${user.privacy}, watchlist auto-remove ${user.watchlistAutoRemove ? 'on' : 'off'}, ` +
  `ratings as ${user.ratingScale}, public profile ${user.publicProfile ? 'on' : 'off'}`;

/** `cinelog user ...`: each command prints the user's name alone on stdout. */
export function registerUserCommands(program: Command, io: CliIo): void {
  const user = program.command('user').description('create and change user accounts');

  user
    .command('create')
    .description('create a user; prints the user name')
    .addOption(
      mandatory('--name <name>', 'user name (1-64 letters, digits, ".", "_", "-"), used in API paths'),
    )
    .addOption(mandatory('--email <email>', 'e-mail address'))
    .addOption(mandatory('--password <password>', 'password, 8 to 512 characters'))
    .option('--admin', 'make the user an administrator')
    .option('--timezone <zone>', 'IANA time zone of the user (default: TIMEZONE)')
    .action((options: CreateOptions) =>
      withDatabase(io, async ({ users }) => {
        const created = await users.create({
          name: options.name,
          email: options.email,
          password: options.password,
          isAdmin: options.admin === true,
          ...(options.timezone !== undefined && { timezone: options.timezone }),
        });
        io.stderr.write(`created user "${created.name}" (${describe(created)})\n`);
        io.stdout.write(`${created.name}\n`);
      }),
    );

  user
    .command('update')
    .description("change a user's settings; prints the user name")
    .addOption(mandatory('--name <name>', 'the user to change'))
    .option('--timezone <zone>', 'IANA time zone such as Europe/Berlin (dates of scrobbles)')
    .addOption(
      new Option('--privacy <privacy>', 'who may read the data: the user alone, or every user').choices([
        'private',
        'users',
      ]),
    )
    .option('--email <email>', 'new e-mail address')
    .addOption(
      new Option(
        '--watchlist-auto-remove <on|off>',
        'take a movie off the watchlist when a play is recorded',
      ).choices(['on', 'off']),
    )
    .addOption(
      new Option(
        '--rating-scale <scale>',
        'how the web app shows ratings: half stars, or points of 10',
      ).choices(['stars', 'points']),
    )
    .addOption(
      new Option(
        '--public-profile <on|off>',
        'a read-only page of the history anyone with its link may open (while privacy is users)',
      ).choices(['on', 'off']),
    )
    .addOption(
      new Option(
        '--admin <on|off>',
        'make the user an administrator, or no longer one (never the last administrator)',
      ).choices(['on', 'off']),
    )
    .addOption(
      new Option(
        '--two-factor <off>',
        'turn two-factor sign-in off, for a user who lost their app and recovery codes (only the user turns it on)',
      ).choices(['off']),
    )
    .action((options: UpdateOptions) => {
      const changes = {
        ...(options.timezone !== undefined && { timezone: options.timezone }),
        ...(options.privacy !== undefined && { privacy: options.privacy }),
        ...(options.email !== undefined && { email: options.email }),
        ...(options.watchlistAutoRemove !== undefined && {
          watchlistAutoRemove: options.watchlistAutoRemove === 'on',
        }),
        ...(options.ratingScale !== undefined && { ratingScale: options.ratingScale }),
        ...(options.publicProfile !== undefined && { publicProfile: options.publicProfile === 'on' }),
        ...(options.admin !== undefined && { isAdmin: options.admin === 'on' }),
      };
      const settingsChange = Object.keys(changes).length > 0;
      if (!settingsChange && options.twoFactor === undefined) {
        throw new UsageError(
          'nothing to change: give --timezone, --privacy, --email, --watchlist-auto-remove, --rating-scale, --public-profile, --admin or --two-factor',
        );
      }
      return withDatabase(io, async ({ users, twoFactor }) => {
        const updated = settingsChange
          ? await users.update(options.name, changes)
          : await requireUser(users, options.name);
        if (settingsChange) io.stderr.write(`updated user "${updated.name}" (${describe(updated)})\n`);
        if (options.twoFactor === 'off') {
          io.stderr.write(
            (await twoFactor.turnOffFor(updated.id))
              ? `turned off two-factor sign-in of "${updated.name}": the password alone signs in now\n`
              : `two-factor sign-in of "${updated.name}" was already off\n`,
          );
        }
        io.stdout.write(`${updated.name}\n`);
      });
    });

  user
    .command('list')
    .description('list every user: name, e-mail, administrator or not, time zone, privacy, created')
    .option('--json', 'print one JSON array instead of a table', false)
    .action((options: ListOptions) =>
      withDatabase(io, async ({ users }) => {
        const list = await users.list();
        io.stdout.write(options.json ? `${JSON.stringify(list.map(toJson))}\n` : formatTable(list));
        io.stderr.write(`${plural(list.length, 'user')}\n`);
      }),
    );

  user
    .command('delete')
    .description(
      'delete a user and everything they own (plays, watchlist, ratings, tokens, webhooks, sessions); never the last administrator; prints the user name',
    )
    .addOption(mandatory('--name <name>', 'the user to delete'))
    .option('--yes', 'confirm: the deletion cannot be undone')
    .action((options: DeleteOptions) => {
      if (options.yes !== true) {
        throw new UsageError(
          `deleting "${options.name}" removes all of their data and cannot be undone: add --yes to confirm`,
        );
      }
      return withDatabase(io, async ({ users }) => {
        const deleted = await users.delete(options.name);
        io.stderr.write(`deleted user "${deleted.name}" with ${describeOwned(deleted.rows)}\n`);
        io.stdout.write(`${deleted.name}\n`);
      });
    });

  user
    .command('reset-password')
    .description(
      "set a new password, revoke all of the user's API tokens and turn two-factor sign-in off; prints the user name",
    )
    .addOption(mandatory('--name <name>', 'the user'))
    .addOption(mandatory('--password <password>', 'new password, 8 to 512 characters'))
    .action((options: ResetPasswordOptions) =>
      withDatabase(io, async ({ users }) => {
        const { revokedTokens, twoFactorTurnedOff } = await users.resetPassword(
          options.name,
          options.password,
        );
        const twoFactor = twoFactorTurnedOff ? '; turned off two-factor sign-in' : '';
        io.stderr.write(
          `password of "${options.name}" reset; revoked ${plural(revokedTokens, 'API token')}${twoFactor}\n`,
        );
        io.stdout.write(`${options.name}\n`);
      }),
    );
}

const toJson = (user: User) => ({
  name: user.name,
  email: user.email,
  isAdmin: user.isAdmin,
  timezone: user.timezone,
  privacy: user.privacy,
  createdAt: user.createdAt,
});

function formatTable(list: User[]): string {
  const rows = [
    ['NAME', 'E-MAIL', 'ADMIN', 'TIME ZONE', 'PRIVACY', 'CREATED'],
    ...list.map((user) => [
      user.name,
      user.email,
      user.isAdmin ? 'yes' : 'no',
      user.timezone,
      user.privacy,
      `${user.createdAt.slice(0, 19)}Z`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
