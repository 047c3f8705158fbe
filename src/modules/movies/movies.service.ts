// Skeleton: to be completed (search and add through the provider).
export interface MoviesService {
  placeholder?: never;
}
export function createMoviesService(_deps: unknown): MoviesService {
  return {};
}
