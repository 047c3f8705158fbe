// Skeleton: to be completed.
export interface WatchlistService {
  placeholder?: never;
}
export function createWatchlistService(_deps: unknown): WatchlistService {
  return {};
}
