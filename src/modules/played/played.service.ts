// Skeleton: to be completed.
export interface PlayedService {
  placeholder?: never;
}
export function createPlayedService(_deps: unknown): PlayedService {
  return {};
}
