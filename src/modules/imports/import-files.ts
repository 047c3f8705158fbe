import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { type ImportFile, ImportFileError } from './import.types.js';

export type { ImportFile };

/** The files of an import, open until `close()` (a zip's file handle). */
export interface ImportFiles {
  files: ImportFile[];
  close(): Promise<void>;
}

/** The names of an upload sent without one (a parser may take such a file for what it holds). */
export const UNNAMED_JSON = 'upload.json';
export const UNNAMED_CSV = 'upload.csv';

/** The most an import reads, all files (and a zip's unpacked contents) together. */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
/** The most rows one import takes, all files together. */
export const MAX_IMPORT_ROWS = 500_000;
/** The most files a directory or a zip of an import may hold. */
const MAX_FILES = 10_000;
/** How deep a directory is looked into. */
const MAX_DEPTH = 4;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const tooLarge = (what: string, bytes: number) =>
  new ImportFileError(
    `${what} is ${megabytes(bytes)}: an import reads at most ${megabytes(MAX_IMPORT_BYTES)}`,
  );

/**
 * The files at `path`: the file itself, the files of a directory (and its sub-directories), or the
 * files inside a .zip (recognised by content, whatever its name; a zip inside a directory too).
 * Refused before reading when the sizes given (or a zip's directory) pass the limit.
 */
export async function openImportFiles(path: string): Promise<ImportFiles> {
  const info = await stat(path).catch(() => {
    throw new ImportFileError(`cannot read ${path}: no such file or directory`);
  });
  const zips: yauzl.ZipFile[] = [];
  const close = async () => {
    for (const zip of zips.splice(0)) zip.close();
  };
  try {
    let files: ImportFile[];
    if (info.isDirectory()) {
      const found: { name: string; path: string; size: number }[] = [];
      await collect(path, '', found, 0);
      files = [];
      for (const file of found) {
        if (await isZipFile(file.path)) files.push(...(await zipEntries(file.path, file.name, zips)));
        else files.push(diskFile(file.name, file.path, file.size));
      }
    } else if (info.isFile()) {
      if (info.size > MAX_IMPORT_BYTES) throw tooLarge(path, info.size);
      files = (await isZipFile(path))
        ? await zipEntries(path, basename(path), zips)
        : [diskFile(basename(path), path, info.size)];
    } else {
      throw new ImportFileError(`${path} is not a file`);
    }
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total > MAX_IMPORT_BYTES) throw tooLarge(info.isDirectory() ? `the directory ${path}` : path, total);
    return { files: metered(files), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * No read of a file goes past the import's limit, whatever its size said (a zip entry's size is also
 * checked by the unzip itself: one that inflates to more than it declares fails at once).
 */
function metered(files: ImportFile[]): ImportFile[] {
  return files.map((file) => ({
    ...file,
    async *open() {
      let read = 0;
      for await (const chunk of file.open()) {
        read += chunk.length;
        if (read > MAX_IMPORT_BYTES) throw tooLarge(`unpacked, ${file.name}`, read);
        yield chunk;
      }
    },
  }));
}

function diskFile(name: string, path: string, size: number): ImportFile {
  return { name, size, open: () => createReadStream(path, { highWaterMark: 256 * 1024 }) };
}

async function collect(
  dir: string,
  prefix: string,
  into: { name: string; path: string; size: number }[],
  depth: number,
) {
  if (depth > MAX_DEPTH) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === '__MACOSX') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await collect(path, `${prefix}${entry.name}/`, into, depth + 1);
    else if (entry.isFile()) {
      if (into.length >= MAX_FILES) throw new ImportFileError(`${dir} holds more than ${MAX_FILES} files`);
      into.push({ name: prefix + entry.name, path, size: (await stat(path)).size });
    }
  }
}

async function isZipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

/**
 * The files inside a zip, from its central directory (never trusted: each entry is inflated with its
 * declared size checked, so an entry that unpacks to more than it says stops at once).
 */
async function zipEntries(path: string, zipName: string, open: yauzl.ZipFile[]): Promise<ImportFile[]> {
  const unreadable = (error: unknown) =>
    new ImportFileError(`${zipName} is not a readable zip file (${(error as Error).message})`);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true },
      (error, opened) => (error ? reject(unreadable(error)) : resolve(opened)),
    ),
  );
  open.push(zip);
  const entries: yauzl.Entry[] = [];
  let declared = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName.replace(/\\/g, '/');
      const skip = name.endsWith('/') || name.startsWith('__MACOSX/') || basename(name).startsWith('.');
      if (!skip) {
        declared += entry.uncompressedSize;
        if (declared > MAX_IMPORT_BYTES) return reject(tooLarge(`unpacked, ${zipName}`, declared));
        if (entries.length >= MAX_FILES)
          return reject(new ImportFileError(`${zipName} holds more than ${MAX_FILES} files`));
        entries.push(entry);
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (error: Error) => reject(unreadable(error)));
    zip.readEntry();
  });
  return entries.map((entry) => ({
    name: entry.fileName.replace(/\\/g, '/'),
    size: entry.uncompressedSize,
    async *open() {
      const stream = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (error, opened) => (error ? reject(unreadable(error)) : resolve(opened))),
      );
      try {
        for await (const chunk of stream) yield chunk as Uint8Array;
      } catch (error) {
        throw error instanceof ImportFileError ? error : unreadable(error);
      } finally {
        stream.destroy();
      }
    },
  }));
}

/** The file's base name, for recognising it (`letterboxd/diary.csv` → `diary.csv`). */
export const baseName = (file: { name: string }) => file.name.split('/').at(-1)!.toLowerCase();

/** The folders a file is in, lower case (`export/Lists/films.csv` → `['export', 'lists']`). */
export const foldersOf = (file: { name: string }) => file.name.toLowerCase().split('/').slice(0, -1);
