import pino from 'pino';

/** Where log lines go in the end: pino's SonicBoom, or any stream with a `write`. */
export interface LogSink {
  write(chunk: string): unknown;
  flush?(callback?: (error?: Error | null) => void): void;
  flushSync?(): void;
}

/** How long a line may wait to be written with the next ones. */
export const LOG_BATCH_MS = 10;
/** What may wait at most: more is handed over at once. */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * A log destination that hands the lines of up to `delayMs` to `sink` as one write. Under load every
 * request logs its line, and a write per line (a `write(2)`, or in SonicBoom's background mode a
 * thread-pool write, after it measured the chunk) cost more than a cached list page's own work; one
 * write per turn of the event loop still cost about 4 % of a scrobble's CPU time (a turn handles the
 * parts of about two requests). Lines keep their order; 64 KB waiting are handed over at once; the
 * timer never keeps the process alive; `flush` and `flushSync` (pino's, and at exit) hand over what
 * waits first.
 */
export class BatchedDestination {
  #pending = '';
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sink: LogSink,
    private readonly delayMs = LOG_BATCH_MS,
  ) {}

  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= MAX_PENDING_CHARS) this.#handOver();
    else if (this.#timer === null) {
      this.#timer = setTimeout(this.#handOver, this.delayMs);
      this.#timer.unref();
    }
  }

  /** Hands what waits to the sink, then asks the sink to flush (pino's `logger.flush`). */
  flush(callback?: (error?: Error | null) => void): void {
    this.#handOver();
    if (this.sink.flush) this.sink.flush(callback);
    else callback?.();
  }

  /** Hands what waits to the sink and has it written before returning: at exit. */
  flushSync(): void {
    this.#handOver();
    this.sink.flushSync?.();
  }

  readonly #handOver = (): void => {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending === '') return;
    const chunk = this.#pending;
    this.#pending = '';
    this.sink.write(chunk);
  };
}

/**
 * The server's log destination: standard output, written synchronously (pino's own default) every
 * 10 ms at most. A synchronous write cannot be lost at exit, and one write per batch costs what the
 * background writes did without their thread hand-overs (measured with the bench). What waits when the
 * process exits, a crash included, is written out then.
 */
export function standardOutput(): BatchedDestination {
  const destination = new BatchedDestination(pino.destination({ dest: 1, sync: true }));
  process.once('exit', () => destination.flushSync());
  return destination;
}
