/**
 * Values kept by key up to a total size in bytes, the least recently used going first: the list page
 * cache (library/page-cache.ts) and the whole-page cache of the web app (web/page-parts.ts). A value
 * larger than `maxEntryBytes` is not kept.
 */
export class ByteLru<V> {
  readonly #values = new Map<string, { value: V; size: number }>();
  #bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  /** The value, now the most recently used; undefined when not kept. */
  get(key: string): V | undefined {
    const entry = this.#values.get(key);
    if (entry === undefined) return undefined;
    this.#values.delete(key);
    this.#values.set(key, entry);
    return entry.value;
  }

  /** Keeps the value (`size` bytes), dropping the least recently used past `maxBytes`. */
  set(key: string, value: V, size: number): void {
    if (size > this.maxEntryBytes) return;
    const old = this.#values.get(key);
    if (old !== undefined) {
      this.#values.delete(key);
      this.#bytes -= old.size;
    }
    this.#values.set(key, { value, size });
    this.#bytes += size;
    for (const [oldKey, entry] of this.#values) {
      if (this.#bytes <= this.maxBytes) break;
      this.#values.delete(oldKey);
      this.#bytes -= entry.size;
    }
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }
}
