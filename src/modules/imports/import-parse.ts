import { Worker } from 'node:worker_threads';
import { createLimiter } from '../../shared/limiter.js';
import { commentProblem, positionProblem } from '../library/library.rules.js';
import {
  type ImportedList,
  type ImportedSettings,
  ImportFileError,
  type ImportFormat,
  type ImportOutput,
  type ImportRow,
  type MovieRef,
  type ParseContext,
  type ParsedImport,
  type SkippedCount,
  type UnreadableRow,
} from './import.types.js';
import { MAX_IMPORT_ROWS, openImportFiles } from './import-files.js';
import { refKey } from './movie-matcher.js';
import { PARSERS } from './parsers.js';

/** What to read: the export at `path` as `format`; `rowsWanted` false only counts (an upload's check). */
export interface ParseRequest {
  format: ImportFormat;
  path: string;
  context: ParseContext;
  rowsWanted: boolean;
}

/**
 * A parse's result: the rows (when wanted) and how many; the first unreadable rows (at most
 * UNREADABLE_LISTED, in file order) and how many.
 */
export interface ParseResult extends ParsedImport {
  rowCount: number;
  unreadableCount: number;
}

/** Unreadable rows kept by name (a summary lists as many); the rest are counted. */
const UNREADABLE_LISTED = 500;

/** What the worker sends back. */
export type WorkerMessage =
  | { type: 'rows'; rows: ImportRow[] }
  | {
      type: 'done';
      rowCount: number;
      unreadable: UnreadableRow[];
      unreadableCount: number;
      skipped: SkippedCount[];
      settings: ImportedSettings | undefined;
      lists: ImportedList[];
    }
  | { type: 'error'; fileError: boolean; message: string };

/**
 * The heap a worker may use. A parse holds its rows (at most MAX_IMPORT_ROWS, about 100 bytes each)
 * and a batch of a file's text; a file that needs more is refused, and the server goes on.
 */
const WORKER_HEAP_MB = 256;

/** Parses, one at a time in this process: two large uploads never hold memory at once. */
const oneAtATime = createLimiter(1);

/**
 * Reads the export at `request.path` in a worker thread: the CSV and JSON parsing (seconds of CPU for
 * the largest files) runs off the event loop, in a heap of its own, and one parse at a time per
 * process. A file that cannot be imported as it is rejects with an ImportFileError.
 */
export function parseImport(request: ParseRequest): Promise<ParseResult> {
  return oneAtATime(() => reader.parse(request));
}

/** A reader idle this long is stopped (its heap given back); the next parse starts another. */
const IDLE_MS = 10_000;

/**
 * The worker thread, started at the first parse and kept while parses follow (starting one costs
 * tens of milliseconds built, most of a second from the TypeScript sources); one parse at a time.
 */
const reader = {
  worker: null as Worker | null,
  idle: null as NodeJS.Timeout | null,

  parse(request: ParseRequest): Promise<ParseResult> {
    if (this.idle) clearTimeout(this.idle);
    this.worker ??= startWorker();
    const worker = this.worker;
    return new Promise<ParseResult>((resolve, reject) => {
      const rows: ImportRow[] = [];
      const finish = (outcome: () => void) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        outcome();
        this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
      };
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'rows') {
          for (const row of message.rows) rows.push(row);
        } else if (message.type === 'done') {
          const { type: _type, ...result } = message;
          finish(() => resolve({ ...result, rows }));
        } else {
          finish(() =>
            reject(message.fileError ? new ImportFileError(message.message) : new Error(message.message)),
          );
        }
      };
      const onError = (error: Error & { code?: string }) => {
        this.worker = null;
        finish(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new ImportFileError(
                  `the export needs more memory to read than an import may use (${WORKER_HEAP_MB} MB): split it into smaller files`,
                )
              : error,
          ),
        );
      };
      const onExit = (code: number) => {
        this.worker = null;
        finish(() => reject(new Error(`the import's reader stopped (exit code ${code})`)));
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(request);
    });
  },

  stop() {
    void this.worker?.terminate();
    this.worker = null;
  },
};

function startWorker(): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } };
  // Built (dist/), the worker is JavaScript. From the TypeScript sources (the tests), tsx compiles it.
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./parse.worker.ts', import.meta.url).href)}); })`,
        { ...options, eval: true },
      )
    : new Worker(new URL('./parse.worker.js', import.meta.url), options);
  // An idle reader never keeps the process alive.
  worker.unref();
  return worker;
}

/**
 * Reads the export in this thread (the worker's work; tests of a parser call it directly). With
 * `onRows`, the rows go there in batches as they are read and are not kept; with `rowsWanted` false,
 * they are only counted.
 */
export async function parseHere(
  request: Omit<ParseRequest, 'rowsWanted'> & { rowsWanted?: boolean },
  onRows?: (rows: ImportRow[]) => void,
): Promise<ParseResult> {
  const { files, close } = await openImportFiles(request.path);
  try {
    const collected = collector({ keep: request.rowsWanted !== false, onRows });
    await PARSERS[request.format](files, request.context, collected.out);
    return collected.result();
  } finally {
    await close();
  }
}

/** Rows handed on at once when they are handed on as they are read. */
const ROWS_PER_BATCH = 5_000;

/**
 * Where a parser's output is gathered, the row limit enforced. `keep` false: rows are only counted (an
 * upload's check). `onRows`: rows are handed on in batches as they come, and not kept here (the worker
 * sends them to the server as it reads, so they are never held twice).
 */
export function collector(options: { keep?: boolean; onRows?: (rows: ImportRow[]) => void } = {}) {
  const keep = options.keep !== false;
  let rows: ImportRow[] = [];
  let rowCount = 0;
  // One object per distinct movie a file names (a history names each movie many times): less to keep.
  const refs = new Map<string, MovieRef>();
  const unreadable: UnreadableRow[] = [];
  let unreadableCount = 0;
  const skipped = new Map<string, number>();
  const lists: ImportedList[] = [];
  let settings: ImportedSettings | undefined;
  const counted = () => {
    if (rowCount + unreadableCount >= MAX_IMPORT_ROWS) {
      throw new ImportFileError(
        `the export has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows: an import takes at most that many (split it into several files)`,
      );
    }
  };
  const flush = () => {
    if (options.onRows && rows.length > 0) {
      options.onRows(rows);
      rows = [];
    }
  };
  const out: ImportOutput = {
    row(row) {
      // What no format's reader checks itself: a comment or a position the library would refuse.
      if (row.kind === 'play') {
        const problem =
          (row.comment === null ? null : commentProblem(row.comment)) ??
          (row.position === undefined ? null : positionProblem(row.position));
        if (problem) {
          out.unreadable(row, problem, row.movie);
          return;
        }
      }
      counted();
      rowCount += 1;
      if (!keep) return;
      const key = refKey(row.movie);
      const ref = refs.get(key);
      if (ref) row.movie = ref;
      else refs.set(key, row.movie);
      rows.push(row);
      if (rows.length >= ROWS_PER_BATCH) flush();
    },
    unreadable(at, reason, movie) {
      counted();
      unreadableCount += 1;
      if (unreadable.length >= UNREADABLE_LISTED) return;
      unreadable.push({
        file: at.file,
        line: at.line,
        title: movie?.title ?? null,
        year: movie?.year ?? null,
        reason,
      });
    },
    skip(what, count = 1) {
      if (count > 0) skipped.set(what, (skipped.get(what) ?? 0) + count);
    },
    settings(value) {
      settings = value;
    },
    list(list) {
      lists.push(list);
    },
  };
  return {
    out,
    result(): ParseResult {
      flush();
      return {
        rows,
        rowCount,
        unreadable,
        unreadableCount,
        skipped: [...skipped].map(([what, count]) => ({ what, count })),
        settings,
        lists,
      };
    },
  };
}
