import { resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { BackupError, type BackupProgress, backupSqlite, restoreSqlite } from '../db/backup.js';
import { systemClock } from '../shared/clock.js';
import { type CliIo, CommandError } from './context.js';
import { maskUrl } from './db.commands.js';
import { mandatory } from './options.js';

/** `cinelog backup` and `cinelog restore`: the SQLite database as one file. */
export function registerBackupCommands(program: Command, io: CliIo): void {
  program
    .command('backup')
    .description(
      'copy the SQLite database to a new file while the server runs (SQLite online backup); prints the file path',
    )
    .addOption(mandatory('--out <file>', 'the backup file to write; it must not exist yet'))
    .action((options: { out: string }) => backup(io, options.out));

  program
    .command('restore')
    .description(
      'put a backup in place of the SQLite database; refused while a server (or anything else) has the database open; prints the database path',
    )
    .addOption(mandatory('--from <file>', 'the backup file, as written by cinelog backup'))
    .action((options: { from: string }) => restore(io, options.from));
}

async function backup(io: CliIo, out: string): Promise<void> {
  const file = sqliteFile(io, 'backup');
  const bar = progressBar(io);
  try {
    const result = await backupSqlite(file, out, { onProgress: bar.update }).finally(bar.stop);
    const restarts =
      result.restarts > 0
        ? `; started again ${result.restarts} ${result.restarts === 1 ? 'time' : 'times'} by writes`
        : '';
    io.stderr.write(`backed up ${file} (${result.pages} pages, ${mebibytes(result.bytes)})${restarts}\n`);
    io.stdout.write(`${result.path}\n`);
  } catch (error) {
    if (error instanceof BackupError) throw new CommandError(error.message);
    throw error;
  }
}

async function restore(io: CliIo, from: string): Promise<void> {
  const file = sqliteFile(io, 'restore');
  try {
    const result = await restoreSqlite(from, file, (io.clock ?? systemClock).now());
    const kept = result.previous ? `; the database it replaced is kept as ${result.previous}` : '';
    io.stderr.write(
      `restored ${resolve(from)} (${result.info.users} ${result.info.users === 1 ? 'user' : 'users'}) to ${result.path}${kept}\n`,
    );
    io.stdout.write(`${result.path}\n`);
  } catch (error) {
    if (error instanceof BackupError) throw new CommandError(error.message);
    throw error;
  }
}

/** The SQLite file of DATABASE_URL; for PostgreSQL, the tools that do the job instead. */
function sqliteFile(io: CliIo, command: 'backup' | 'restore'): string {
  const { databaseUrl } = loadConfig(io.env);
  if (!databaseUrl.startsWith('sqlite:')) {
    const url = maskUrl(databaseUrl);
    throw new CommandError(
      command === 'backup'
        ? `cinelog backup copies SQLite databases; back up PostgreSQL with pg_dump: pg_dump --format=custom --file=cinelog.dump '${url}' (see docs/deployment.md#backups)`
        : `cinelog restore restores SQLite databases; restore a PostgreSQL dump with pg_restore: pg_restore --clean --if-exists --dbname='${url}' cinelog.dump (see docs/deployment.md#backups)`,
    );
  }
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === ':memory:') throw new CommandError(`cinelog ${command}: an in-memory database has no file`);
  return resolve(path);
}

/** On a terminal, a bar of the pages copied; nothing in a log, where the summary line says it all. */
function progressBar(io: CliIo) {
  const tty = io.stderr === process.stderr && process.stderr.isTTY === true;
  let bar: SingleBar | null = null;
  return {
    update({ totalPages, copiedPages }: BackupProgress): void {
      if (!tty) return;
      if (!bar) {
        bar = new SingleBar({
          format: 'backing up [{bar}] {percentage}% {value}/{total} pages',
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(totalPages, 0);
      }
      bar.setTotal(totalPages);
      bar.update(copiedPages);
    },
    stop(): void {
      bar?.stop();
      bar = null;
    },
  };
}

const mebibytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MiB`;
