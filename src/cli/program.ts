import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { registerBackfillCommands } from './backfill.commands.js';
import { registerBackupCommands } from './backup.commands.js';
import { type CliIo, UsageError } from './context.js';
import { registerDbCommands } from './db.commands.js';
import { registerFeedCommands } from './feed.commands.js';
import { registerImdbCommands } from './imdb.commands.js';
import { registerImportExportCommands } from './import.commands.js';
import { registerJobCommands } from './jobs.commands.js';
import { registerMigrateCommand } from './migrate.command.js';
import { registerMovieCommands } from './movies.commands.js';
import { checkRequiredOptions } from './options.js';
import { registerTokenCommands } from './token.commands.js';
import { registerUserCommands } from './user.commands.js';
import { registerWebhookCommands } from './webhook.commands.js';

export type { CliIo } from './context.js';

/** Exit codes: 0 success, 1 the command failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/**
 * Runs one `cinelog` command line (the arguments after the program name) and returns its exit code.
 * Never throws: a failure is reported as one `cinelog: <reason>` line on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    const { code, message } = describeFailure(error, program, argv);
    if (code !== EXIT_OK) io.stderr.write(`cinelog: ${oneLine(message)}\n`);
    return code;
  }
}

function buildProgram(io: CliIo): Command {
  const program = new Command('cinelog')
    .description(
      'Administer a cinelog installation: users, personal API tokens, webhooks, feeds, database migrations, copies and backups, IMDb ratings.',
    )
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // Errors are reported by runCli as one line; the help commander would add to them is dropped.
      writeErr: () => undefined,
      outputError: () => undefined,
    })
    .addHelpText(
      'after',
      '\nConfiguration comes from the environment (DATABASE_URL, TIMEZONE, ...), as for the server.\n' +
        'Results go to stdout, the key value alone on the last line; notes and errors go to stderr.',
    )
    .hook('preAction', checkRequiredOptions);
  registerUserCommands(program, io);
  registerTokenCommands(program, io);
  registerWebhookCommands(program, io);
  registerFeedCommands(program, io);
  registerMigrateCommand(program, io);
  registerDbCommands(program, io);
  registerBackupCommands(program, io);
  registerJobCommands(program, io);
  registerMovieCommands(program, io);
  registerImdbCommands(program, io);
  registerImportExportCommands(program, io);
  registerBackfillCommands(program, io);
  return program;
}

function describeFailure(
  error: unknown,
  program: Command,
  argv: readonly string[],
): { code: number; message: string } {
  if (error instanceof CommanderError) {
    // --help and --version end parsing with exit code 0.
    if (error.exitCode === 0) return { code: EXIT_OK, message: '' };
    if (error.code === 'commander.help') return { code: EXIT_USAGE, message: missingCommand(program, argv) };
    return { code: EXIT_USAGE, message: error.message.replace(/^error: /, '') };
  }
  if (error instanceof UsageError) return { code: EXIT_USAGE, message: error.message };
  if (error instanceof ConfigError)
    return { code: EXIT_FAILED, message: `configuration error: ${error.message}` };
  if (error instanceof Error) return { code: EXIT_FAILED, message: error.message };
  return { code: EXIT_FAILED, message: String(error) };
}

/** For `cinelog` or `cinelog user` alone: name the commands that may follow. */
function missingCommand(program: Command, argv: readonly string[]): string {
  let command = program;
  const path = ['cinelog'];
  for (const word of argv) {
    const sub = command.commands.find((c) => c.name() === word);
    if (!sub) break;
    command = sub;
    path.push(word);
  }
  const usage = path.join(' ');
  const names = command.commands.map((c) => c.name()).join('|');
  return `missing command: ${usage} <${names}> (see ${usage} --help)`;
}

const oneLine = (message: string) => message.replace(/\s*\n\s*/g, ' ').trim();

function packageVersion(): string {
  // src/cli and dist/cli both sit two levels below the package root.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return String(pkg.version);
}
