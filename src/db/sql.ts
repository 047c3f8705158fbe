import { type RawBuilder, sql } from 'kysely';

/** `%` and `_` typed by a user match themselves, not any characters. */
function escapedLower(term: string): string {
  return term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
}

function likePattern(term: string): string {
  return `%${escapedLower(term)}%`;
}

/**
 * Case-insensitive substring match of a text column, portable across SQLite and PostgreSQL
 * (both lower-case ASCII alike; neither has a default LIKE escape character in common).
 */
export function containsText(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${likePattern(term)} escape '\\'`;
}

/** Case-insensitive prefix match of a text column (as `containsText`). */
export function startsWithText(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${`${escapedLower(term)}%`} escape '\\'`;
}
