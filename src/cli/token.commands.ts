import { type Command, Option } from 'commander';
import {
  TOKEN_EXPIRY_CHOICES,
  type TokenExpiry,
  type TokenView,
} from '../modules/auth/api-tokens.service.js';
import { type CliIo, CommandError, plural, requireUser, UsageError, withDatabase } from './context.js';
import { mandatory } from './options.js';

/** Without --expires a token lives 90 days: a leaked, forgotten token dies on its own. */
export const DEFAULT_TOKEN_EXPIRY: TokenExpiry = '90';

interface CreateOptions {
  user: string;
  name: string;
  expires: TokenExpiry;
}

interface ListOptions {
  user: string;
  json: boolean;
}

interface RevokeOptions {
  user: string;
  prefix?: string;
  all?: boolean;
}

/** `cinelog token ...`: personal API tokens. */
export function registerTokenCommands(program: Command, io: CliIo): void {
  const token = program.command('token').description("manage a user's personal API tokens");

  token
    .command('create')
    .description('create a personal API token; prints the token, shown only this once')
    .addOption(mandatory('--user <name>', 'the user the token acts as'))
    .addOption(mandatory('--name <label>', 'what the token is for, e.g. "home assistant"'))
    .addOption(
      new Option('--expires <days>', 'days until it expires, or never')
        .choices(TOKEN_EXPIRY_CHOICES)
        .default(DEFAULT_TOKEN_EXPIRY),
    )
    .action((options: CreateOptions) =>
      withDatabase(io, async ({ users, tokens }) => {
        const owner = await requireUser(users, options.user);
        const { value, token: created } = await tokens.create(owner.id, options.name, options.expires);
        const expiry = created.expiresAt ? `expires ${formatTime(created.expiresAt)}` : 'never expires';
        io.stderr.write(
          `created token "${created.name}" for ${owner.name} (prefix ${created.displayPrefix}, ${expiry}); ` +
            'it is shown only now: store it somewhere safe\n',
        );
        io.stdout.write(`${value}\n`);
      }),
    );

  token
    .command('list')
    .description("list a user's tokens with their state (token values are never stored)")
    .addOption(mandatory('--user <name>', 'the user'))
    .option('--json', 'print one JSON array instead of a table', false)
    .action((options: ListOptions) =>
      withDatabase(io, async ({ users, tokens }) => {
        const owner = await requireUser(users, options.user);
        const list = await tokens.list(owner.id);
        if (options.json) {
          io.stdout.write(`${JSON.stringify(list.map(toJson))}\n`);
        } else {
          io.stdout.write(formatTable(list));
        }
        io.stderr.write(`${plural(list.length, 'token')} of ${owner.name}\n`);
      }),
    );

  token
    .command('revoke')
    .description('revoke one token by its display prefix, or all tokens of the user; prints how many')
    .addOption(mandatory('--user <name>', 'the user'))
    .option('--prefix <display-prefix>', 'the prefix `token list` shows, e.g. cinelog_AbCd1234')
    .option('--all', 'revoke every token of the user')
    .action((options: RevokeOptions) => {
      if ((options.prefix === undefined) === (options.all === undefined)) {
        throw new UsageError('give exactly one of --prefix <display-prefix> or --all');
      }
      return withDatabase(io, async ({ users, tokens }) => {
        const owner = await requireUser(users, options.user);
        const prefix = options.prefix;
        if (prefix === undefined) {
          const revoked = await tokens.revokeAll(owner.id);
          io.stderr.write(`revoked ${plural(revoked, 'token')} of ${owner.name}\n`);
          io.stdout.write(`${revoked}\n`);
          return;
        }
        const revoked = await tokens.revoke(owner.id, prefix);
        if (revoked === 0) {
          const known = (await tokens.list(owner.id)).some((t) => t.displayPrefix === prefix);
          // Revoking a revoked token changes nothing and is no failure; an unknown prefix is most likely a typo.
          if (!known) throw new CommandError(`${owner.name} has no token with prefix "${prefix}"`);
          io.stderr.write(`the token ${prefix} of ${owner.name} was already revoked\n`);
        } else {
          io.stderr.write(`revoked token ${prefix} of ${owner.name}\n`);
        }
        io.stdout.write(`${revoked}\n`);
      });
    });
}

const toJson = (token: TokenView) => ({
  name: token.name,
  prefix: token.displayPrefix,
  createdAt: token.createdAt,
  lastUsedAt: token.lastUsedAt,
  expiresAt: token.expiresAt,
  state: token.state,
});

/** ISO 8601 in UTC to the second: unambiguous and still short enough for a table. */
const formatTime = (iso: string) => `${iso.slice(0, 19)}Z`;

function formatTable(list: TokenView[]): string {
  const rows = [
    ['NAME', 'PREFIX', 'CREATED', 'LAST USED', 'EXPIRES', 'STATE'],
    ...list.map((t) => [
      t.name.replace(/\p{Cc}/gu, ' '),
      t.displayPrefix,
      formatTime(t.createdAt),
      t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never',
      t.expiresAt ? formatTime(t.expiresAt) : 'never',
      t.state,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
