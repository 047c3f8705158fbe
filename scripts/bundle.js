// The server as one file: `dist/main.js`, bundled by esbuild from src/main.ts after `tsc` has built
// (and type-checked) the rest of dist/; beside it `dist/parse.worker.js`, the import reader's worker
// thread (src/modules/imports/import-parse.ts starts `./parse.worker.js` next to itself). Node.js loads a few hundred small ES modules slowly (TypeBox
// alone is 373 files, Kysely 287): bundled, the server starts in about half the time (see
// docs/performance.md). The CLI and the tests keep using the modules tsc emits.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'src/main.ts', 'parse.worker': 'src/modules/imports/parse.worker.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  // Without comments and indentation: V8 keeps the whole source text in memory for as long as the
  // process runs. Names are kept as they are, for stack traces and profiles.
  minifyWhitespace: true,
  minifySyntax: true,
  // The bundled packages' license comments go to dist/main.js.LEGAL.txt (one of them is not ASCII,
  // which would make V8 keep the whole source as a two-byte string).
  legalComments: 'linked',
  // Stack traces need the mappings only; the sources' text would triple the map Node.js keeps in memory.
  sourcesContent: false,
  logLevel: 'warning',
  // Left to node_modules: native addons, what is loaded only when used (PostgreSQL, mail, argon2 at the
  // first password; prom-client with METRICS=true), and packages that read files of their own at run time.
  external: [
    'better-sqlite3',
    '@node-rs/argon2',
    'pg',
    'nodemailer',
    '@fastify/swagger-ui',
    'pino',
    'prom-client',
  ],
  // CommonJS packages inside an ES module bundle still call `require` (Node's built-in modules).
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
});

// V8 keeps the source text of the bundle in memory while the server runs: one byte a character if it is
// all ASCII, two if a single character is not (2 MB more at rest). esbuild escapes strings, but not
// every literal (a regular expression's characters are left as written): such a character fails here.
for (const file of ['dist/main.js', 'dist/parse.worker.js']) {
  const text = readFileSync(file, 'latin1');
  const at = [...text].findIndex((char) => char.charCodeAt(0) > 0x7f);
  if (at !== -1) {
    throw new Error(
      `${file} is not ASCII at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 20))}; escape the character in the source (\\uXXXX)`,
    );
  }
}
