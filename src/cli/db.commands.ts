import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { sql } from 'kysely';
import {
  type CopyProgress,
  copyDatabase,
  DatabaseCopyError,
  errorLine,
  findTableWithRows,
  targetNotEmpty,
} from '../db/copy.js';
import { type DatabaseHandle, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import { type CliIo, CommandError, type OutputStream, plural, UsageError } from './context.js';
import { mandatory } from './options.js';

interface CopyOptions {
  from: string;
  to: string;
}

const DATABASE_URL = /^(sqlite:.+|postgres(ql)?:\/\/.+)$/;

/** `cinelog db ...`: the database as a whole. */
export function registerDbCommands(program: Command, io: CliIo): void {
  const db = program.command('db').description('move an installation to another database');

  db.command('copy')
    .description(
      'copy everything from one database into another, empty one (SQLite to PostgreSQL or back); prints the number of rows copied',
    )
    .addOption(
      mandatory('--from <url>', 'the database to copy: sqlite:<path> or postgres://user:pass@host:port/db'),
    )
    .addOption(mandatory('--to <url>', 'the empty database to fill: sqlite:<path> or postgres://...'))
    .action((options: CopyOptions) => copy(io, options));
}

/** Reads no environment: the two URLs are the whole input, so a server's configuration cannot get in the way. */
async function copy(io: CliIo, { from, to }: CopyOptions): Promise<void> {
  for (const [option, url] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    if (!DATABASE_URL.test(url)) {
      throw new CommandError(
        `${option} must be sqlite:<path> or postgres://user:pass@host:port/db (got "${maskUrl(url)}")`,
      );
    }
  }
  if (databaseIdentity(from) === databaseIdentity(to)) {
    throw new UsageError('--from and --to name the same database: give two different databases');
  }
  // Opening a missing SQLite file would create it: a mistyped --from would "copy" an empty database.
  if (from.startsWith('sqlite:') && !existsSync(sqlitePath(from))) {
    throw new CommandError(`--from: no SQLite database at ${sqlitePath(from)}`);
  }

  const opened: DatabaseHandle[] = [];
  try {
    const source = await connect('--from', from, opened);
    const target = await connect('--to', to, opened);
    // Checked before migrating too, so a database that holds data is refused without being touched.
    const holding = await findTableWithRows(target.db);
    if (holding) throw targetNotEmpty(holding);
    await migrate(io, 'the source', source);
    await migrate(io, 'the target', target);

    const progress = progressBar(io.stderr);
    const copied = await copyDatabase(source, target, { onProgress: progress.update }).finally(progress.end);
    const total = copied.reduce((sum, { rows }) => sum + rows, 0);
    io.stderr.write(
      `copied ${plural(total, 'row')} in ${plural(copied.length, 'table')} from ${maskUrl(from)} to ${maskUrl(to)}\n`,
    );
    io.stdout.write(`${total}\n`);
  } catch (error) {
    if (error instanceof DatabaseCopyError) throw new CommandError(error.message);
    throw error;
  } finally {
    await Promise.allSettled(opened.map((handle) => handle.close()));
  }
}

async function connect(option: string, url: string, opened: DatabaseHandle[]): Promise<DatabaseHandle> {
  try {
    const handle = openDatabase(url, { poolSize: 2 });
    opened.push(handle);
    await sql`select 1`.execute(handle.db);
    return handle;
  } catch (error) {
    throw new CommandError(`cannot open ${option} ${maskUrl(url)}: ${errorLine(error)}`);
  }
}

async function migrate(io: CliIo, side: string, handle: DatabaseHandle): Promise<void> {
  const applied = await migrateToLatest(handle.db);
  if (applied.length > 0) {
    io.stderr.write(`applied ${plural(applied.length, 'migration')} to ${side}: ${applied.join(', ')}\n`);
  }
}

/** One line per table on stderr: redrawn in place on a terminal, a plain line per batch in a log. */
function progressBar(stderr: OutputStream) {
  const tty = (stderr as { isTTY?: unknown }).isTTY === true;
  const width = 30;
  let unfinished = false;
  return {
    update({ table, copied, total }: CopyProgress): void {
      if (!tty) {
        stderr.write(`copied ${table}: ${copied}/${total}\n`);
        return;
      }
      const done = copied >= total;
      const filled = total === 0 ? width : Math.floor((copied / total) * width);
      const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
      stderr.write(
        `\r${done ? 'copied ' : 'copying'} ${table.padEnd(16)} [${bar}] ${copied}/${total}${done ? '\n' : ''}`,
      );
      unfinished = !done;
    },
    /** A bar left half drawn by a failure gets its line end, so the error starts a line of its own. */
    end(): void {
      if (unfinished) stderr.write('\n');
      unfinished = false;
    },
  };
}

/** The URL with its password replaced by `***`, fit to be printed. */
export function maskUrl(url: string): string {
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      if (parsed.password) parsed.password = '***';
      if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
      return parsed.toString();
    } catch {
      // Not parseable: fall through to the pattern.
    }
  }
  return url.replace(/(\/\/[^/?#@:]*:)[^/?#]*@/, '$1***@');
}

const sqlitePath = (url: string) => resolve(url.slice('sqlite:'.length));

/** What makes two URLs the same database: the file, or the server and database name. */
function databaseIdentity(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    return `sqlite:${existsSync(path) ? realpathSync(path) : path}`;
  }
  try {
    const parsed = new URL(url);
    const host = parsed.searchParams.get('host') ?? parsed.hostname.toLowerCase();
    const name = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username);
    return `postgres:${host}:${parsed.port || '5432'}/${name}`;
  } catch {
    return url;
  }
}
