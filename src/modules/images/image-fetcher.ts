import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfter } from '../../integrations/tmdb/tmdb.client.js';
import { imageTypeOf } from './image-store.js';

export interface FetchImageOptions {
  timeoutMs?: number;
  /** Larger images are refused (TMDB's largest posters are a few hundred KB). */
  maxBytes?: number;
  /** Longest wait for a 429's Retry-After before trying once more (longer: the job is retried later). */
  maxRetryAfterMs?: number;
}

const DEFAULTS = { timeoutMs: 15_000, maxBytes: 10 * 1024 * 1024, maxRetryAfterMs: 10_000 };

/** An image TMDB cannot give: missing there, or not an image. Trying again would not help. */
export class ImageUnavailable extends Error {}

/**
 * Downloads one image: its bytes, checked to be a JPEG, PNG or WebP within the size limit. Throws
 * `ImageUnavailable` for what retrying cannot mend (404, not an image, too large) and a plain Error for
 * what may pass (5xx, network, timeout, a 429 still refused after its Retry-After): the job is retried.
 */
export async function fetchImage(url: string, options: FetchImageOptions = {}): Promise<Uint8Array> {
  const settings = { ...DEFAULTS, ...options };
  for (let attempt = 1; ; attempt++) {
    const response = await globalThis.fetch(url, { signal: AbortSignal.timeout(settings.timeoutMs) });
    if (response.status === 429 && attempt === 1) {
      await response.body?.cancel();
      await sleep(
        Math.min(parseRetryAfter(response.headers.get('retry-after')) ?? 1000, settings.maxRetryAfterMs),
      );
      continue;
    }
    if (response.status === 404 || response.status === 403 || response.status === 410) {
      await response.body?.cancel();
      throw new ImageUnavailable(`the image server answered ${response.status}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the image server answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > settings.maxBytes) {
      await response.body?.cancel();
      throw new ImageUnavailable(`the image is larger than ${settings.maxBytes} bytes`);
    }
    const bytes = await readAtMost(response, settings.maxBytes);
    if (imageTypeOf(bytes) === null)
      throw new ImageUnavailable('the answer is not a JPEG, PNG or WebP image');
    return bytes;
  }
}

async function readAtMost(response: Response, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of response.body ?? []) {
    length += chunk.length;
    if (length > maxBytes) throw new ImageUnavailable(`the image is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
