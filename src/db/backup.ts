import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { migrations } from './migrations/index.js';

/** Pages copied per step at first; doubled whenever the source changed under the copy (see backupSqlite). */
export const PAGES_PER_STEP = 256;
/** After this many restarts the rest is copied in one step, which a writer cannot interrupt. */
const MAX_RESTARTS = 8;

/** A backup or restore that cannot be done; the message is one line, and nothing was left half-written. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** The target of a restore is open in another connection (a running server, another command). */
export class DatabaseInUseError extends BackupError {
  override name = 'DatabaseInUseError';
}

export interface BackupProgress {
  totalPages: number;
  /** Pages copied of the current pass (a pass starts again when the source changed under it). */
  copiedPages: number;
  restarts: number;
}

export interface BackupResult {
  /** Absolute path of the finished backup. */
  path: string;
  pages: number;
  bytes: number;
  /** How often a write to the source made SQLite start the copy again. */
  restarts: number;
}

/**
 * Copies the SQLite database at `sourceFile` to the new file `outFile` through SQLite's online backup
 * API, while a server may go on reading and writing it. The copy is one consistent state of the
 * database: SQLite starts it again whenever another connection writes between two steps, so it holds
 * every write committed before the last (re)start, and nothing half-done. Each restart doubles the pages
 * per step, and after a few the rest goes in one step (a read transaction, which writers in WAL mode do
 * not wait for): the copy ends under any write load. It is written beside `outFile` and renamed into
 * place only once complete and checked, as a single file (no `-wal`) that can be copied as it is.
 */
export async function backupSqlite(
  sourceFile: string,
  outFile: string,
  options: {
    onProgress?: (progress: BackupProgress) => void;
    pagesPerStep?: number;
    signal?: AbortSignal;
  } = {},
): Promise<BackupResult> {
  const out = resolve(outFile);
  if (existsSync(out)) throw new BackupError(`${out} already exists: give the backup a new file name`);
  if (!existsSync(sourceFile)) throw new BackupError(`no SQLite database at ${resolve(sourceFile)}`);
  mkdirSync(dirname(out), { recursive: true });
  const partial = `${out}.partial-${randomBytes(4).toString('hex')}`;
  const source = new SqliteDatabase(sourceFile, { readonly: true, fileMustExist: true });
  let restarts = 0;
  try {
    source.pragma('busy_timeout = 10000');
    let step = options.pagesPerStep ?? PAGES_PER_STEP;
    let lastRemaining = Number.POSITIVE_INFINITY;
    const { totalPages } = await source.backup(partial, {
      progress({ totalPages, remainingPages }) {
        if (options.signal?.aborted) throw new BackupError('the backup was stopped');
        if (remainingPages > lastRemaining) {
          restarts += 1;
          step = restarts >= MAX_RESTARTS ? totalPages : Math.min(totalPages, step * 2);
        }
        lastRemaining = remainingPages;
        options.onProgress?.({ totalPages, copiedPages: totalPages - remainingPages, restarts });
        return step;
      },
    });
    options.onProgress?.({ totalPages, copiedPages: totalPages, restarts });
    const copy = new SqliteDatabase(partial);
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy failed its integrity check: ${String(check)}`);
      // A rollback-journal file: the backup is whole in itself, without a -wal beside it.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    renameSync(partial, out);
    return { path: out, pages: totalPages, bytes: statSync(out).size, restarts };
  } catch (error) {
    removeQuietly(partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup failed: ${oneLine(error)}`);
  } finally {
    source.close();
  }
}

export interface BackupFileInfo {
  users: number;
  /** The migrations it has; fewer than this version knows is fine (the server applies the rest at start). */
  migrations: number;
}

/**
 * Checks that `file` is a whole cinelog SQLite database this version can run on: a SQLite file that
 * passes SQLite's quick check, with cinelog's tables and no migration this version does not know.
 */
export function checkBackupFile(file: string): BackupFileInfo {
  const path = resolve(file);
  if (!existsSync(path)) throw new BackupError(`no file at ${path}`);
  if (!hasSqliteHeader(path)) throw new BackupError(`${path} is not a SQLite database`);
  let db: SqliteDatabase.Database;
  try {
    db = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${path} cannot be opened: ${oneLine(error)}`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${path} is damaged: ${String(check)}`);
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[]).map(
        String,
      ),
    );
    if (!tables.has('kysely_migration') || !tables.has('users')) {
      throw new BackupError(
        `${path} is a SQLite database, but not cinelog's (it has no users or migrations)`,
      );
    }
    const applied = db.prepare('select name from kysely_migration').pluck().all() as string[];
    const unknown = applied.filter((name) => !(name in migrations));
    if (unknown.length > 0) {
      throw new BackupError(
        `${path} was made by a newer cinelog (migrations ${unknown.join(', ')}): upgrade cinelog before restoring it`,
      );
    }
    const users = db.prepare('select count(*) from users').pluck().get() as number;
    return { users, migrations: applied.length };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} cannot be read as a cinelog database: ${oneLine(error)}`);
  } finally {
    db.close();
  }
}

export interface RestoreResult {
  path: string;
  /** Where the database that was replaced was kept; null when there was none. */
  previous: string | null;
  info: BackupFileInfo;
}

/**
 * Puts the backup `backupFile` in place of the SQLite database `targetFile`, which no process may have
 * open: a connection of a running server holds a shared lock on it, so the exclusive lock taken here
 * fails at once (DatabaseInUseError) and nothing changes. The backup is checked and copied beside the
 * target first; then, under that exclusive lock, the old database is made whole in its main file (its
 * write-ahead log checkpointed and removed, so no stale log is applied to the new file), kept as
 * `<target>.before-restore-<time>`, and the copy renamed into place in one step.
 */
export async function restoreSqlite(
  backupFile: string,
  targetFile: string,
  now: Date,
): Promise<RestoreResult> {
  const target = resolve(targetFile);
  const info = checkBackupFile(backupFile);
  if (resolve(backupFile) === target) throw new BackupError('the backup is the database itself');
  // Refused before copying anything when the target is open: the usual mistake, answered at once.
  if (existsSync(target)) lockExclusively(target).close();

  mkdirSync(dirname(target), { recursive: true });
  const incoming = `${target}.restoring-${randomBytes(4).toString('hex')}`;
  let lock: SqliteDatabase.Database | null = null;
  try {
    const source = new SqliteDatabase(resolve(backupFile), { readonly: true, fileMustExist: true });
    try {
      await source.backup(incoming);
    } finally {
      source.close();
    }
    let previous: string | null = null;
    if (existsSync(target)) {
      lock = lockExclusively(target);
      // Checkpoints the log into the main file and deletes it: the old file is whole in itself.
      lock.pragma('journal_mode = DELETE');
      previous = `${target}.before-restore-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '')}`;
      try {
        linkSync(target, previous);
      } catch {
        copyFileSync(target, previous);
      }
      removeQuietly(`${target}-wal`, `${target}-shm`);
    }
    renameSync(incoming, target);
    return { path: target, previous, info };
  } catch (error) {
    removeQuietly(incoming, `${incoming}-journal`);
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the restore failed, the database is unchanged: ${oneLine(error)}`);
  } finally {
    lock?.close();
  }
}

/** A connection holding the exclusive lock on `path` until closed; DatabaseInUseError when another has it open. */
function lockExclusively(path: string): SqliteDatabase.Database {
  const db = new SqliteDatabase(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = exclusive');
    db.exec('begin exclusive');
    // Exclusive locking mode keeps the lock after the transaction, until the connection closes.
    db.exec('commit');
    return db;
  } catch (error) {
    db.close();
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new DatabaseInUseError(
        `the database ${path} is in use (a running cinelog server or another program has it open): stop the server, then restore`,
      );
    }
    throw new BackupError(`cannot open ${path}: ${oneLine(error)}`);
  }
}

function hasSqliteHeader(path: string): boolean {
  if (statSync(path).size < 100) return false;
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.toString('latin1') === 'SQLite format 3\u0000';
}

function removeQuietly(...paths: string[]): void {
  for (const path of paths) rmSync(path, { force: true });
}

const oneLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ').trim();
