import type { TmdbClient } from './tmdb.types.js';

// Skeleton: to be completed (timeouts, retries, concurrency limit).
export function createTmdbClient(_options: { apiKey: string; baseUrl: string }): TmdbClient {
  throw new Error('not implemented');
}
