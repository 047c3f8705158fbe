import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/** Each source file (migrations too) and the files it imports, `import type` included. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  );
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const path = join(SRC, file);
    const text = readFileSync(path, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((match) =>
      relative(ROOT, resolve(dirname(path), match[1]!.replace(/\.js$/, '.ts'))),
    );
    graph.set(relative(ROOT, path), targets);
  }
  return graph;
}

/** The files of each circle of the graph (its strongly connected parts of two files or more), sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, next);
    low.set(file, next++);
    stack.push(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!order.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, order.get(to)!));
    }
    if (low.get(file) === order.get(file)) {
      const part: string[] = [];
      let top: string;
      do {
        top = stack.pop()!;
        part.push(top);
      } while (top !== file);
      if (part.length > 1) found.push(part.sort());
    }
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

/**
 * The floor of a source file, from the bottom: the shared helpers and the configuration (0); the
 * database, the outside services and the job queue (1); the domain modules (2); the web module (3);
 * the composition that builds and starts them: src/services.ts, src/app.ts, src/main.ts, src/cli/ (4).
 */
function floorOf(path: string): number {
  const file = relative('src', path).split(sep).join('/');
  if (file.startsWith('shared/') || file === 'config.ts') return 0;
  if (file.startsWith('db/') || file.startsWith('integrations/') || file.startsWith('jobs/')) return 1;
  if (file.startsWith('modules/web/')) return 3;
  if (file.startsWith('modules/')) return 2;
  return 4;
}

/** What the library keeps: only src/modules/library/ writes these (its one write path, `Library.write`). */
const LIBRARY_TABLES = [
  'watch_dates',
  'watchlist',
  'ratings',
  'tags',
  'entry_tags',
  'user_external_ids',
  'statistics_movies',
  'statistics_days',
  'statistics_groups',
  'statistics_pending',
  'statistics_counting',
  'likes',
  'lists',
  'list_movies',
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

  it("only the database layer knows the engines' drivers (modules ask db/transaction.ts)", () => {
    const outside = sources().filter(({ path }) => !path.startsWith(join('src', 'db')));
    expect(offences(outside, /from '[^']*db\/sqlite-driver\.js'|from '(better-sqlite3|pg)'/)).toEqual([]);
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

  it('each area of the web module imports only itself, the shell and web.deps.ts (docs/architecture.md)', () => {
    // src/modules/web/<area>/: home, history, movies, lists, statistics, settings, imports, sign-in. The shell
    // imports no area; web.plugin.ts, which registers every area, is the one file that sees them all.
    const web = `${join('src', 'modules', 'web')}${sep}`;
    const areaOf = (path: string) => {
      const rest = path.slice(web.length).split(sep);
      return rest.length > 1 ? rest[0]! : null;
    };
    const files = [...importGraph()].filter(([from]) => from.startsWith(web) && areaOf(from) !== null);
    expect(new Set(files.map(([from]) => areaOf(from)))).toEqual(
      new Set([
        'shell',
        'home',
        'history',
        'movies',
        'lists',
        'statistics',
        'settings',
        'imports',
        'sign-in',
      ]),
    );
    const crossing = files.flatMap(([from, targets]) =>
      targets
        .filter((to) => to.startsWith(web))
        .filter((to) => {
          const area = areaOf(to);
          if (area === areaOf(from)) return false;
          if (area === null) return !to.endsWith('web.deps.ts');
          return area !== 'shell' || areaOf(from) === 'shell';
        })
        .map((to) => `${from} -> ${to}`),
    );
    expect(crossing).toEqual([]);
  });

  it("the web's page builders (*.page.ts) are pure: no HTTP, no database, no session", () => {
    const pages = sources().filter(
      ({ path }) => path.startsWith(join('src', 'modules', 'web')) && path.endsWith('.page.ts'),
    );
    expect(pages.length).toBeGreaterThan(10);
    const impure =
      /from '(fastify|@fastify\/[^']*|kysely|[^']*\/db\/[^']*|[^']*\.repository\.js|[^']*shell\/(render|session|guards|shell)\.js)'/;
    expect(offences(pages, impure)).toEqual([]);
  });

  it('the import graph has no circle, type imports included', () => {
    expect(circles(importGraph())).toEqual([]);
  });

  it('no circle between the domain folders either (auth and users, movies and library: issue 29)', () => {
    const folderOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file.split(sep).join('/'))?.[1];
    const folders = new Map<string, string[]>();
    for (const [from, targets] of importGraph()) {
      const folder = folderOf(from);
      if (folder === undefined) continue;
      const to = targets
        .map(folderOf)
        .filter((other): other is string => other !== undefined && other !== folder);
      folders.set(folder, [...new Set([...(folders.get(folder) ?? []), ...to])]);
    }
    expect(folders.size).toBeGreaterThan(10);
    expect(circles(folders)).toEqual([]);
  });

  it('no import goes from a lower floor up (docs/architecture.md, "Floors")', () => {
    const upward = [...importGraph()].flatMap(([from, targets]) =>
      targets.filter((to) => floorOf(to) > floorOf(from)).map((to) => `${from} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });

  it('a kept read is declared in a repository, beside its query, with the tables it reads', () => {
    const all = sources();
    const built = offences(
      all.filter(({ path }) => path !== join('src', 'db', 'generation.ts')),
      /new GenerationCache\b/,
    );
    const declared = offences(all, /=\s*keptBetweenWrites\b(<[^>]*>)?\(/);
    expect(declared.length).toBeGreaterThan(6);
    expect([
      ...built,
      ...declared.filter((line) => !/^src\/[^:]*\.repository\.ts:/.test(line.split(sep).join('/'))),
    ]).toEqual([]);
  });

  it('one place builds the services: src/services.ts (createServices)', () => {
    // Every constructor it calls (createUsersService, createLibrary, imagesServiceFor...) is called
    // nowhere else but in the file that defines it.
    const all = sources();
    const root = all.find(({ path }) => path === join('src', 'services.ts'))!;
    const imported = new Set(
      [...root.text.matchAll(/^import \{([^}]*)\} from '\.\/(?:modules|db|integrations|jobs)\//gm)].flatMap(
        (match) => match[1]!.split(',').map((name) => name.trim()),
      ),
    );
    const constructors = [
      ...new Set([...root.text.matchAll(/\b(\w+)\(\{?/g)].map((match) => match[1]!)),
    ].filter((name) => imported.has(name));
    expect(constructors.length).toBeGreaterThan(20);
    const others = all.filter(({ path }) => path !== root.path);
    const calls = new RegExp(`\\b(${constructors.join('|')})\\(`);
    const misplaced = others.flatMap(({ path, text }) =>
      offences([{ path, text }], calls).filter((line) => {
        const name = calls.exec(line)![1]!;
        return !new RegExp(`export (async )?function ${name}\\b`).test(text);
      }),
    );
    expect(misplaced).toEqual([]);
  });

  it('the graph checks would see a circle and an upward arrow', () => {
    const graph = new Map([
      ['src/shared/a.ts', ['src/modules/x/b.ts']],
      ['src/modules/x/b.ts', ['src/shared/a.ts']],
    ]);
    expect(circles(graph)).toEqual([['src/modules/x/b.ts', 'src/shared/a.ts']]);
    expect(floorOf('src/shared/a.ts')).toBeLessThan(floorOf('src/modules/x/b.ts'));
  });

  it('the checks above would see an offence (they are not blind)', () => {
    const file = [{ path: 'x.routes.ts', text: "const a = 1;\nawait db.deleteFrom('watchlist').execute();" }];
    expect(offences(file, /deleteFrom\('watchlist'/)).toEqual([
      "x.routes.ts:2: await db.deleteFrom('watchlist').execute();",
    ]);
  });
});
