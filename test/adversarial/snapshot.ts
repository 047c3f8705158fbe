import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * What a rejected request may still change, by design:
 * - `rate_limits`: the attempt counters of the sign-in, forgot-password and webhook limits count
 *   refused attempts too (that is their point);
 * - `webhook_events`: the webhook inbox records every report, a rejected one included, so that its
 *   owner can see why it was refused (scrobble.service.ts, `ignore(base, 'rejected', ...)`);
 * - `api_tokens.last_used_at`: written when a token authenticates a request, whatever its outcome
 *   (at most once a minute);
 * - the statistics' aggregates (`statistics_movies`, `_groups`, `_days`, `_pending`, `_counting`): derived from the
 *   plays and brought up to date by the next read of the statistics,
 *   whenever that falls; the plays they count are compared, and the statistics suite checks them
 *   against a computation from scratch;
 * - the migrator's own tables.
 * Everything else is the users' data, and a 4xx must leave every row of it as it was.
 */
const IGNORED_TABLES = new Set([
  'rate_limits',
  'webhook_events',
  'statistics_movies',
  'statistics_groups',
  'statistics_days',
  'statistics_pending',
  'statistics_counting',
  'kysely_migration',
  'kysely_migration_lock',
]);
const IGNORED_COLUMNS: Record<string, readonly string[]> = { api_tokens: ['last_used_at'] };

/** Every row of every user-data table: table -> its rows as JSON, sorted. */
export type Snapshot = Map<string, string[]>;

/**
 * Snapshots of the user-data tables. The tables are read from the database itself, so a table added
 * by a migration is covered without a change here.
 */
export async function snapshotter(db: Kysely<Database>) {
  const tables = (await db.introspection.getTables())
    .map((table) => table.name)
    .filter((name) => !IGNORED_TABLES.has(name))
    .sort();
  if (!tables.includes('watch_dates') || !tables.includes('users')) {
    throw new Error(`the snapshot found no user-data tables: ${tables.join(', ')}`);
  }
  const anyDb = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return async function snapshot(): Promise<Snapshot> {
    const contents = await Promise.all(
      tables.map(async (table) => {
        const rows = await anyDb.selectFrom(table).selectAll().execute();
        const ignored = IGNORED_COLUMNS[table] ?? [];
        const lines = rows.map((row) => {
          for (const column of ignored) delete row[column];
          return JSON.stringify(row);
        });
        return [table, lines.sort()] as const;
      }),
    );
    return new Map(contents);
  };
}

/** How `after` differs from `before`, or null when they are equal: the changed tables and a few rows. */
export function differences(before: Snapshot, after: Snapshot): string | null {
  const lines: string[] = [];
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const was = new Set(before.get(table) ?? []);
    const is = new Set(after.get(table) ?? []);
    const removed = [...was].filter((row) => !is.has(row));
    const added = [...is].filter((row) => !was.has(row));
    if (removed.length === 0 && added.length === 0) continue;
    lines.push(`${table}: ${removed.length} row(s) gone, ${added.length} new or changed`);
    for (const row of removed.slice(0, 3)) lines.push(`  - ${row.slice(0, 400)}`);
    for (const row of added.slice(0, 3)) lines.push(`  + ${row.slice(0, 400)}`);
  }
  return lines.length === 0 ? null : lines.join('\n');
}
