// The IMDb ratings import at full size (issue 18, point 5): a generated title.ratings.tsv.gz shaped like
// IMDb's (1.6 million lines, sorted tconsts, one-decimal averages, long-tailed vote counts: about 8 MB
// gzipped), imported with `cinelog imdb import` into a SQLite database of 3,000 movies, under
// /usr/bin/time -v for the wall time and the peak RSS. The same import of a 1,000-line file gives the
// process's floor, so the difference is what the big file costs. Results: docs/imdb.md.
//
//   npm run build && node bench/imdb-ratings.js
//   node bench/imdb-ratings.js --lines 1600000 --movies 3000 --keep   (keep the folder to look at)
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/imdb-ratings.js --engine postgres
//
// The generated files live in a temporary folder, deleted at the end unless --keep: never commit them.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { createDatabase } from './databases.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '1600000' },
    movies: { type: 'string', default: '3000' },
    engine: { type: 'string', default: 'sqlite' },
    keep: { type: 'boolean', default: false },
  },
});
const LINES = Number(args.lines);
const MOVIES = Number(args.movies);

/** A small deterministic PRNG (mulberry32): the same file on every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes the dataset; returns the IMDb ids of every `every`-th line (the movies cinelog will know). */
async function writeDataset(path, lines, every) {
  const next = random(18);
  const gzip = createGzip();
  const out = createWriteStream(path);
  gzip.pipe(out);
  const known = [];
  let id = 0;
  let buffer = 'tconst\taverageRating\tnumVotes\n';
  for (let i = 0; i < lines; i++) {
    // Real tconsts run to about tt35000000 with 1.6 million rated: an average gap of about 22.
    id += 1 + Math.floor(next() * 42);
    const tconst = `tt${String(id).padStart(7, '0')}`;
    const average = Math.min(10, Math.max(1, 6.2 + (next() + next() + next() - 1.5) * 3)).toFixed(1);
    const votes = Math.min(3_000_000, Math.floor(5 * next() ** -1.6));
    buffer += `${tconst}\t${average}\t${votes}\n`;
    if (i % every === every - 1) known.push(tconst);
    if (buffer.length > 1 << 16) {
      if (!gzip.write(buffer)) await once(gzip, 'drain');
      buffer = '';
    }
  }
  gzip.end(buffer);
  await once(out, 'finish');
  return known;
}

async function seedMovies(db, imdbIds) {
  const now = new Date().toISOString();
  const rows = imdbIds.map((imdbId, i) => ({
    title: `Movie ${i}`,
    tmdb_id: 100_000 + i,
    imdb_id: imdbId,
    created_at: now,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('movies')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** One `cinelog imdb import` under /usr/bin/time -v: wall seconds, peak RSS in MiB, its JSON summary. */
function timedImport(databaseUrl, file) {
  const run = spawnSync(
    '/usr/bin/time',
    ['-v', process.execPath, join(ROOT, 'bin', 'cinelog.js'), 'imdb', 'import', file],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`the import failed (${run.status}):\n${run.stderr}`);
  const field = (name) => run.stderr.match(new RegExp(`${name}: (.+)`))?.[1]?.trim();
  const [minutes, seconds] = field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)')
    .split(':')
    .map(Number);
  return {
    wallSeconds: Number((minutes * 60 + seconds).toFixed(2)),
    peakRssMiB: Math.round(Number(field('Maximum resident set size \\(kbytes\\)')) / 1024),
    summary: JSON.parse(run.stdout.trimEnd().split('\n').at(-1)),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'cinelog-imdb-bench-'));
let database;
try {
  const big = join(dir, 'title.ratings.tsv.gz');
  const small = join(dir, 'small.title.ratings.tsv.gz');
  const every = Math.max(1, Math.floor(LINES / MOVIES));
  const started = Date.now();
  const known = (await writeDataset(big, LINES, every)).slice(0, MOVIES);
  console.log(
    `generated ${big}: ${LINES} lines, ${(statSync(big).size / 1024 / 1024).toFixed(1)} MiB gzipped (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  await writeDataset(small, 1000, 1000);

  database = await createDatabase(args.engine, {
    dir,
    name: 'imdb',
    serverUrl: process.env.TEST_DATABASE_URL,
  });
  await seedMovies(database.db, known);
  console.log(`seeded ${known.length} movies with IMDb ids into ${args.engine}`);

  const results = {
    'full file, first import': timedImport(database.url, big),
    'full file again (nothing changed)': timedImport(database.url, big),
    'small file (1,000 lines): the floor': timedImport(database.url, small),
  };
  for (const [name, result] of Object.entries(results)) {
    console.log(
      `${name}: ${result.wallSeconds} s, peak RSS ${result.peakRssMiB} MiB, ${JSON.stringify(result.summary)}`,
    );
  }
} finally {
  await database?.drop();
  if (args.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
