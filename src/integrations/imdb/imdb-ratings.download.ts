/** A download of the ratings dataset that failed: the server's answer, a network error or a timeout. */
export class ImdbDownloadError extends Error {
  override name = 'ImdbDownloadError';
}

export interface ImdbDownloadOptions {
  /**
   * How long to wait for the answer's headers, and then for each next piece of its body; not a limit
   * on the whole download, which may take minutes on a slow line. Default 60 s.
   */
  timeoutMs?: number;
  /** Aborts the download (shutdown, a cancelled job). */
  signal?: AbortSignal;
}

export interface ImdbDownload {
  /**
   * The body as it arrives, never buffered whole. Iterate it once; stopping early, or `return()`
   * without iterating, closes the connection.
   */
  body: AsyncIterableIterator<Uint8Array>;
  /** Content-Length, when the server sent one. */
  totalBytes: number | null;
}

export const IMDB_DOWNLOAD_TIMEOUT_MS = 60_000;

/** Starts a GET of `url`; resolves once a 200 answer's headers are in, with its body still to read. */
export async function openImdbDownload(
  url: string,
  options: ImdbDownloadOptions = {},
): Promise<ImdbDownload> {
  const timeoutMs = options.timeoutMs ?? IMDB_DOWNLOAD_TIMEOUT_MS;
  const idle = new AbortController();
  const signal = options.signal ? AbortSignal.any([idle.signal, options.signal]) : idle.signal;
  let timer: NodeJS.Timeout | undefined;
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), timeoutMs);
  };
  const failure = (error: unknown): ImdbDownloadError => {
    clearTimeout(timer);
    if (error instanceof ImdbDownloadError) return error;
    if (idle.signal.aborted) {
      return new ImdbDownloadError(
        `the IMDb ratings download from ${url} timed out: nothing arrived for ${seconds(timeoutMs)}`,
      );
    }
    if (options.signal?.aborted)
      return new ImdbDownloadError(`the IMDb ratings download from ${url} was aborted`);
    return new ImdbDownloadError(`the IMDb ratings download from ${url} failed: ${networkReason(error)}`);
  };

  wait();
  let response: Response;
  try {
    // Looked up per call, so a test's fetch guard sees every request.
    response = await globalThis.fetch(url, { signal, headers: { accept: 'application/gzip, */*' } });
  } catch (error) {
    throw failure(error);
  }
  if (response.status !== 200 || response.body === null) {
    clearTimeout(timer);
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new ImdbDownloadError(
      `the IMDb ratings download from ${url} failed: the server answered ${status}`,
    );
  }
  clearTimeout(timer);
  const length = Number(response.headers.get('content-length'));
  const reader = response.body.getReader();
  // An iterator of its own, not a generator: a generator's return() waits for a read under way, so
  // a consumer that stops early would wait for the next piece (or the timeout) before the close.
  const body: AsyncIterableIterator<Uint8Array> = {
    async next() {
      wait();
      try {
        const { done, value } = await reader.read();
        return done ? { done: true, value: undefined } : { done: false, value };
      } catch (error) {
        throw failure(error);
      } finally {
        // Only the network's time counts, not the time the consumer takes with a piece.
        clearTimeout(timer);
      }
    },
    async return() {
      clearTimeout(timer);
      await reader.cancel().catch(() => undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { body, totalBytes: Number.isSafeInteger(length) && length > 0 ? length : null };
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** undici's "fetch failed" hides the reason in its cause: ECONNREFUSED, ENOTFOUND, a TLS error... */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
