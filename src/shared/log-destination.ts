import pino from 'pino';

/** Where log lines go in the end: pino's SonicBoom, or any stream with a `write`. */
export interface LogSink {
  write(chunk: string): unknown;
  flush?(callback?: (error?: Error | null) => void): void;
  flushSync?(): void;
}

/**
 * A log destination that hands the lines of one turn of the event loop to `sink` as one write, in the
 * check phase of that turn. Under load a turn answers many requests, each with its line, and a write
 * per line (a `write(2)`, or in SonicBoom's background mode a thread-pool write, after it measured the
 * chunk) cost more than a cached list page's own work. Lines keep their order and wait one turn at
 * most; `flush` and `flushSync` (pino's, and at exit) hand over what waits first.
 */
export class TurnBatchedDestination {
  #pending = '';
  #scheduled = false;

  constructor(private readonly sink: LogSink) {}

  write(line: string): void {
    this.#pending += line;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#handOver);
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
    this.#scheduled = false;
    if (this.#pending === '') return;
    const chunk = this.#pending;
    this.#pending = '';
    this.sink.write(chunk);
  };
}

/**
 * The server's log destination: standard output, written synchronously (pino's own default) once per
 * turn of the event loop. A synchronous write cannot be lost at exit, and one write per turn costs
 * what the background writes did without their thread hand-overs (measured with the bench). What waits
 * when the process exits, a crash included, is written out then.
 */
export function standardOutput(): TurnBatchedDestination {
  const destination = new TurnBatchedDestination(pino.destination({ dest: 1, sync: true }));
  process.once('exit', () => destination.flushSync());
  return destination;
}
