import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { unzipSync } from 'fflate';
import { ImportFileError } from './import.types.js';

/** One file of an import: a file given alone, one of a directory, or one inside a .zip. */
export interface ImportFile {
  name: string;
  bytes: Uint8Array;
}

/** The most an import reads, all files (and a zip's unpacked contents) together. */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
/** The most rows one import takes. */
export const MAX_IMPORT_ROWS = 500_000;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const tooLarge = (what: string, bytes: number) =>
  new ImportFileError(
    `${what} is ${megabytes(bytes)}: an import reads at most ${megabytes(MAX_IMPORT_BYTES)}`,
  );

/**
 * The files at `path`: the file itself, the files of a directory (and its sub-directories), or the
 * files inside a .zip (recognised by content, whatever its name). Refused before reading when too large.
 */
export async function readImportFiles(path: string): Promise<ImportFile[]> {
  const info = await stat(path).catch(() => {
    throw new ImportFileError(`cannot read ${path}: no such file or directory`);
  });
  if (info.isDirectory()) {
    const files: { name: string; path: string; size: number }[] = [];
    await collect(path, '', files, 0);
    const total = files.reduce((sum, file) => sum + file.size, 0);
    if (total > MAX_IMPORT_BYTES) throw tooLarge(`the directory ${path}`, total);
    const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: await readFile(f.path) })));
    return read.flatMap((file) => (isZip(file.bytes) ? unzip(file) : [file]));
  }
  if (!info.isFile()) throw new ImportFileError(`${path} is not a file`);
  if (info.size > MAX_IMPORT_BYTES) throw tooLarge(path, info.size);
  const file = { name: basename(path), bytes: await readFile(path) };
  return isZip(file.bytes) ? unzip(file) : [file];
}

/** The files of one uploaded file: itself, or what is inside it when it is a .zip. */
export function filesOfUpload(name: string, bytes: Uint8Array): ImportFile[] {
  if (bytes.length > MAX_IMPORT_BYTES) throw tooLarge(name, bytes.length);
  const file = { name, bytes };
  return isZip(bytes) ? unzip(file) : [file];
}

async function collect(
  dir: string,
  prefix: string,
  into: { name: string; path: string; size: number }[],
  depth: number,
) {
  if (depth > 3) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await collect(path, `${prefix}${entry.name}/`, into, depth + 1);
    else if (entry.isFile()) into.push({ name: prefix + entry.name, path, size: (await stat(path)).size });
  }
}

const isZip = (bytes: Uint8Array) =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** The files of a zip; refused when unpacked they would pass the limit (a zip bomb) or it is broken. */
function unzip(file: ImportFile): ImportFile[] {
  let declared = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(file.bytes, {
      filter: (entry) => {
        if (entry.name.endsWith('/') || entry.name.startsWith('__MACOSX/')) return false;
        declared += entry.originalSize;
        if (declared > MAX_IMPORT_BYTES) throw tooLarge(`unpacked, ${file.name}`, declared);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`${file.name} is not a readable zip file (${(error as Error).message})`);
  }
  const files = Object.entries(entries).map(([name, bytes]) => ({ name, bytes }));
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > MAX_IMPORT_BYTES) throw tooLarge(`unpacked, ${file.name}`, total);
  return files;
}

/** The file's text: UTF-8 (a byte-order mark is dropped); anything else is refused, naming the file. */
export function textOf(file: ImportFile): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(file.bytes);
  } catch {
    throw new ImportFileError(`${file.name} is not valid UTF-8 text: save it as UTF-8 and try again`);
  }
  if (text.includes('\u0000')) throw new ImportFileError(`${file.name} is binary, not a text file`);
  return text;
}

/** One CSV record by column name, with the line it starts on. */
export interface CsvRecord {
  line: number;
  get(column: string): string;
}

/** The header of a CSV file (its first line), for recognising it; null when it is no CSV with a header. */
export function csvHeader(file: ImportFile): string[] | null {
  const text = textOf(file);
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  try {
    const [header] = parse(firstLine, { to_line: 1 }) as string[][];
    return header && header.length > 1 ? header.map((cell) => cell.trim()) : null;
  } catch {
    return null;
  }
}

/**
 * The records of a CSV file with a header line that has every column of `required`. A broken line (an
 * unclosed quote, a wrong number of cells) fails the whole file, naming the line. A cell our exports
 * guarded against spreadsheet formulas (`'=…`) is read back without the guard.
 */
export function csvRecords(file: ImportFile, required: readonly string[]): CsvRecord[] {
  const text = textOf(file);
  let header: string[] = [];
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      bom: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: 1_000_000,
      to_line: MAX_IMPORT_ROWS + 2,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const message = (error as Error).message.replace(/^Invalid Record Length: /, '');
    throw new ImportFileError(`${file.name} is not a readable CSV file: ${message}`);
  }
  const first = rows.shift();
  header = (first?.record ?? []).map((cell) => cell.trim());
  const missing = required.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new ImportFileError(
      `${file.name} lacks the column${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (its header: ${header.join(',') || 'none'})`,
    );
  }
  if (rows.length > MAX_IMPORT_ROWS) {
    throw new ImportFileError(`${file.name} has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows`);
  }
  const index = new Map(header.map((column, i) => [column, i]));
  return rows.map(({ record, info }) => ({
    line: info.lines,
    get: (column: string) => unguarded((record[index.get(column) ?? -1] ?? '').trim()),
  }));
}

const unguarded = (cell: string) => (/^'[=+\-@]/.test(cell) ? cell.slice(1) : cell);

/** The file's base name, for recognising it (`letterboxd/diary.csv` → `diary.csv`). */
export const baseName = (file: ImportFile) => file.name.split('/').at(-1)!.toLowerCase();
