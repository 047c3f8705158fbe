import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The house rules that hold across files (docs/architecture.md is to draw the whole house: issue 29).
// Each check reads the sources as text: it fails when a file breaks the rule, naming the file and line.
const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** The application's own sources: no tests, no migrations (they build the tables). */
function sources(): { path: string; text: string }[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => join(SRC, file))
    .filter((path) => !path.includes(`${join('src', 'db', 'migrations')}`))
    .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
}

/** `file:line: the line` for each line of the sources that matches. */
function offences(files: { path: string; text: string }[], pattern: RegExp): string[] {
  return files.flatMap(({ path, text }) =>
    text
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [])),
  );
}

/** What the library keeps: only src/modules/library/ writes these (its one write path, `Library.write`). */
const LIBRARY_TABLES = [
  'watch_dates',
  'watchlist',
  'ratings',
  'user_external_ids',
  'statistics_movies',
  'statistics_days',
  'statistics_groups',
  'statistics_pending',
  'statistics_counting',
];

describe('the house rules', () => {
  it('no code outside the library writes its tables', () => {
    const outside = sources().filter(({ path }) => !path.startsWith(join('src', 'modules', 'library')));
    const tables = LIBRARY_TABLES.join('|');
    const kysely = new RegExp(
      `(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\\(\\s*'(${tables})'`,
    );
    const raw = new RegExp(`\\b(insert\\s+into|update|delete\\s+from)\\s+"?(${tables})\\b`, 'i');
    expect([...offences(outside, kysely), ...offences(outside, raw)]).toEqual([]);
  });

  it('no route file and no file of the web module holds SQL or a transaction', () => {
    const routes = sources().filter(
      ({ path }) => path.endsWith('.routes.ts') || path.startsWith(join('src', 'modules', 'web')),
    );
    expect(routes.length).toBeGreaterThan(20);
    const sql =
      /\b(selectFrom|insertInto|updateTable|deleteFrom|selectNoFrom)\(|\bsql`|\.trx\b|from 'kysely'/;
    expect(offences(routes, sql)).toEqual([]);
  });

  it('no web route file imports another route file (web.plugin.ts registers them)', () => {
    // The API's list and write routes share their builders from library.routes.ts (listRoute, writeRoute).
    const routes = sources().filter(
      ({ path }) => path.endsWith('.routes.ts') && !path.endsWith(join('library', 'library.routes.ts')),
    );
    const fromWeb = routes.filter(({ path }) => path.startsWith(join('src', 'modules', 'web')));
    expect(fromWeb.length).toBeGreaterThan(15);
    const web = offences(fromWeb, /from '[^']*\.routes\.js'/);
    const api = offences(
      routes.filter(({ path }) => !path.startsWith(join('src', 'modules', 'web'))),
      /from '(?![^']*library\/library\.routes\.js')[^']*\.routes\.js'/,
    );
    expect([...web, ...api]).toEqual([]);
  });

  it('the checks above would see an offence (they are not blind)', () => {
    const file = [{ path: 'x.routes.ts', text: "const a = 1;\nawait db.deleteFrom('watchlist').execute();" }];
    expect(offences(file, /deleteFrom\('watchlist'/)).toEqual([
      "x.routes.ts:2: await db.deleteFrom('watchlist').execute();",
    ]);
  });
});
