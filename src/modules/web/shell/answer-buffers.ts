import type { EventEmitter } from 'node:events';

/** The smallest buffer handed out: smaller answers are not worth keeping (Node pools under 4 KB). */
const MIN_CAPACITY = 8 * 1024;

/**
 * Buffers for the bytes made anew for each answer (a kept page joined with the request's CSRF token,
 * page-parts.ts), each used again once its answer is done instead of a new one every answer. A buffer
 * goes back when its answer emits `'close'`: the response was written to the kernel, or its connection
 * was destroyed (then its pending writes were dropped first). Until then nobody else gets it, however
 * slowly the client reads. Buffers come in powers of two from 8 KB; at most `maxIdleBytes` wait unused,
 * and an answer larger than `maxSize` gets a buffer of its own.
 *
 * Why: on the cached history page (40 KB, 25 tokens) a new buffer per answer, filled and handed to the
 * kernel, cost about a fifth of the request's CPU; the same bytes in a buffer used again cost a few
 * microseconds (docs/performance.md, "The web pages").
 */
export class AnswerBuffers {
  readonly #idle = new Map<number, Buffer[]>();
  #idleBytes = 0;
  /** Buffers made so far (read by the tests): few, when they come back. */
  made = 0;

  constructor(
    private readonly maxIdleBytes = 4 * 1024 * 1024,
    private readonly maxSize = 1024 * 1024,
  ) {}

  /** `size` bytes (their contents left as they are), given back when `answer` emits `'close'`. */
  take(size: number, answer: EventEmitter): Buffer {
    if (size > this.maxSize) return Buffer.allocUnsafe(size);
    const capacity = capacityFor(size);
    let buffer = this.#idle.get(capacity)?.pop();
    if (buffer === undefined) {
      buffer = Buffer.allocUnsafeSlow(capacity);
      this.made++;
    } else {
      this.#idleBytes -= capacity;
    }
    const kept = buffer;
    answer.once('close', () => this.#giveBack(kept));
    return buffer.subarray(0, size);
  }

  /** Bytes waiting to be used again. */
  get idleBytes(): number {
    return this.#idleBytes;
  }

  #giveBack(buffer: Buffer): void {
    if (this.#idleBytes + buffer.length > this.maxIdleBytes) return;
    let idle = this.#idle.get(buffer.length);
    if (idle === undefined) {
      idle = [];
      this.#idle.set(buffer.length, idle);
    }
    idle.push(buffer);
    this.#idleBytes += buffer.length;
  }
}

function capacityFor(size: number): number {
  let capacity = MIN_CAPACITY;
  while (capacity < size) capacity *= 2;
  return capacity;
}
