import { type Parser, parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { ImportFileError, type ImportOutput, RowError } from './import.types.js';
import type { ImportFile } from './import-files.js';
import { firstLineOf, textOf } from './import-text.js';

/** A CSV file with its header: the columns as written (trimmed), and the separator found. */
export interface CsvTable {
  file: ImportFile;
  header: string[];
  delimiter: Delimiter;
}

/** One record, cells looked up by column name (any case). */
export interface CsvRecord {
  /** The line it starts on (the header is line 1). */
  line: number;
  /**
   * Why the record cannot be read as a row of the table (a different number of cells than the header,
   * which a broken quote or a stray separator makes); null when it can.
   */
  problem: string | null;
  /** The cell, trimmed; '' when the table has no such column. Our exports' formula guard (`'=…`) is removed. */
  get(column: string): string;
  /** The cell as written (a comment keeps its leading newline), without the formula guard. */
  raw(column: string): string;
}

type Delimiter = ',' | ';' | '\t';
const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

/** The longest record read; a longer one is a broken file (an unclosed quote swallowing the rest). */
const MAX_RECORD_CHARS = 1_000_000;

/**
 * The file as a CSV table, its separator found from its first line: a comma, or a semicolon or a tab
 * (a spreadsheet's round trip in many locales), whichever splits the header into most of `known` (the
 * columns the caller recognises), then into most cells. Null when the first line is no header of two
 * or more cells.
 */
export async function csvTable(file: ImportFile, known: readonly string[] = []): Promise<CsvTable | null> {
  const line = await firstLineOf(file);
  if (line.trim() === '') return null;
  const wanted = new Set(known.map((column) => column.toLowerCase()));
  let best: { header: string[]; delimiter: Delimiter; score: [number, number] } | null = null;
  for (const delimiter of DELIMITERS) {
    let header: string[];
    try {
      header = ((parseSync(line, { delimiter, bom: true, to_line: 1 }) as string[][])[0] ?? []).map((cell) =>
        cell.trim(),
      );
    } catch {
      continue;
    }
    const score: [number, number] = [
      header.filter((cell) => wanted.has(cell.toLowerCase())).length,
      header.length,
    ];
    if (!best || score[0] > best.score[0] || (score[0] === best.score[0] && score[1] > best.score[1])) {
      best = { header, delimiter, score };
    }
  }
  if (!best || best.header.length < 2) return null;
  return { file, header: best.header, delimiter: best.delimiter };
}

/** The table's records after its header, one at a time. A broken file (an unclosed quote) is refused. */
export async function* csvRecords(table: CsvTable): AsyncIterable<CsvRecord> {
  const columns = new Columns(table.header);
  let header = true;
  for await (const { cells, line } of csvCells(table.file, table.delimiter)) {
    if (header) {
      header = false;
      continue;
    }
    yield new Record(columns, cells, line);
  }
}

/** A header's columns by name, any case. */
class Columns {
  readonly #index = new Map<string, number>();
  constructor(readonly header: readonly string[]) {
    header.forEach((column, i) => {
      const key = column.toLowerCase();
      if (!this.#index.has(key)) this.#index.set(key, i);
    });
  }
  indexOf(column: string): number {
    let index = this.#index.get(column);
    if (index === undefined) {
      index = this.#index.get(column.toLowerCase()) ?? -1;
      this.#index.set(column, index);
    }
    return index;
  }
}

class Record implements CsvRecord {
  constructor(
    private readonly columns: Columns,
    private readonly cells: readonly string[],
    readonly line: number,
  ) {}
  get problem(): string | null {
    const width = this.columns.header.length;
    const count = this.cells.length;
    return count === width
      ? null
      : `it has ${count} cell${count === 1 ? '' : 's'} where the header has ${width}`;
  }
  raw(column: string): string {
    return unguarded(this.cells[this.columns.indexOf(column)] ?? '');
  }
  get(column: string): string {
    return this.raw(column).trim();
  }
}

/** Every record of a CSV file, header included, with the line it starts on. */
export async function* csvCells(
  file: ImportFile,
  delimiter: Delimiter,
): AsyncIterable<{ cells: string[]; line: number }> {
  const parser: Parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  // Fed by hand and read as it pushes (synchronously, chunk by chunk): a stream's async iterator
  // costs more than the parsing itself, one promise per record.
  let batch: { cells: string[]; line: number }[] = [];
  let failure: Error | null = null;
  // A record starts on the line after the previous one's end and the empty lines skipped since (the
  // parser's running count, not `info: true`, which copies the counts for every record at twice the
  // cost), and ends as many lines further as its quoted cells hold line breaks, each of \r\n, \n or
  // \r one line. (The parser's own line count takes a \r\n inside a quoted cell for two.)
  let endOfLast = 0;
  let emptySoFar = 0;
  parser.on('data', (record: string[]) => {
    const empty = parser.info.empty_lines;
    const line = endOfLast + 1 + (empty - emptySoFar);
    batch.push({ cells: record, line });
    endOfLast = line + lineBreaksIn(record);
    emptySoFar = empty;
  });
  parser.on('error', (error: Error) => {
    failure ??= error;
  });
  const ended = new Promise<void>((resolve) => parser.on('end', resolve).on('error', () => resolve()));
  const broken = (error: Error) => {
    if (error instanceof ImportFileError) return error;
    const message = error.message.replace(/^Invalid Record Length: /, '');
    return new ImportFileError(`${file.name} is not a readable CSV file: ${message}`);
  };
  const drain = function* () {
    if (failure) throw broken(failure);
    const records = batch;
    batch = [];
    yield* records;
  };
  for await (const chunk of textOf(file)) {
    parser.write(chunk);
    yield* drain();
  }
  parser.end();
  await ended;
  yield* drain();
}

/**
 * Reads one row; a row that cannot be read (a RowError from `read`, or a different number of cells
 * than the header) is reported with why, and the file goes on.
 */
export function readRow(
  out: ImportOutput,
  at: { file: string; line: number },
  record: CsvRecord,
  read: () => void,
  titleColumn = 'title',
  yearColumn = 'year',
) {
  try {
    if (record.problem) throw new RowError(record.problem);
    read();
  } catch (error) {
    if (!(error instanceof RowError)) throw error;
    const year = Number(record.get(yearColumn));
    out.unreadable(at, error.message, {
      title: record.get(titleColumn) || undefined,
      year: Number.isInteger(year) && year > 0 ? year : undefined,
    });
  }
}

const GUARDED = /^'[=+\-@\t\r]/;
/** A cell without our exports' formula guard (`'=…`). */
export const unguarded = (cell: string) =>
  cell.charCodeAt(0) === 39 && GUARDED.test(cell) ? cell.slice(1) : cell;

/**
 * The line breaks the cells hold (`\r\n`, `\n` or `\r`, each one). A `\r` that ends the record is
 * the first half of its own line ending (a CRLF line in a file of LF lines), no break in a cell.
 */
function lineBreaksIn(cells: readonly string[]): number {
  let count = 0;
  const last = cells.length - 1;
  cells.forEach((cell, index) => {
    if (cell.indexOf('\n') === -1 && cell.indexOf('\r') === -1) return;
    const text = index === last && cell.endsWith('\r') ? cell.slice(0, -1) : cell;
    count += text.match(/\r\n|\r|\n/g)?.length ?? 0;
  });
  return count;
}
