export interface PageRequest {
  page: number;
  limit: number;
}

export interface Page<T> {
  items: T[];
  currentPage: number;
  maxPage: number;
}

export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 24;
export const MAX_LIMIT = 1000;
// Far beyond any real list; keeps the SQL offset a safe integer.
export const MAX_PAGE = 1_000_000;

export const offsetOf = ({ page, limit }: PageRequest) => (page - 1) * limit;

/** `maxPage` is ceil(total / limit): 0 for an empty list. `currentPage` echoes the page asked for. */
export function pageOf<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return { items, currentPage: request.page, maxPage: Math.ceil(total / request.limit) };
}
