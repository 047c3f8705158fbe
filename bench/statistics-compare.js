// The statistics' first answer after a play, two builds on one database (issue 28): this checkout's
// dist/ and another checkout's (a commit built in a git worktree, with the same migrations). One
// database is seeded as bench/statistics.js seeds it (100,000 plays of 4,000 movies); then, in
// alternating runs (other, this, other, this...), each in a new process of its build: one play is
// logged (POST history) and the statistics asked for at once, `--changes` times. Prints each run's
// median and the median of the runs' ratios this / other. A measurement, not a test.
//
//   git worktree add --detach /tmp/cinelog-base <commit> && ln -s "$PWD/node_modules" /tmp/cinelog-base/
//   (cd /tmp/cinelog-base && npm run build) && npm run build
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     node bench/statistics-compare.js --other /tmp/cinelog-base --engine postgres --rounds 6
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '6' },
    changes: { type: 'string', default: '30' },
    entries: { type: 'string', default: '100000' },
    movies: { type: 'string', default: '4000' },
    // Internal: one run of one build on the seeded database.
    run: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
const HERE = resolve(fileURLToPath(import.meta.url), '../..');
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

if (args.run) {
  // One run, in this process, of the build at `args.run`.
  const load = (path) => import(pathToFileURL(join(args.run, path)).href);
  const { buildApp } = await load('dist/app.js');
  const { loadConfig } = await load('dist/config.js');
  const { openDatabase } = await load('dist/db/database.js');
  const { dayString, seededRandom } = await import(pathToFileURL(join(HERE, 'bench/seed.js')).href);
  const handle = openDatabase(args.url, { poolSize: 4 });
  const config = loadConfig({ DATABASE_URL: args.url, APP_URL: 'http://bench', LOG_LEVEL: 'silent' });
  const app = await buildApp({ config, db: handle.db, tmdb: null, logger: false });
  await app.ready();
  const headers = { authorization: `Bearer ${args.token}` };
  const movieIds = (await handle.db.selectFrom('movies').select('id').execute()).map((m) => m.id);
  const rand = seededRandom(Number(args.seed));
  const logPlay = async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/users/stats/history/movies',
      headers,
      payload: [
        {
          serviceId: movieIds[Math.floor(rand() * movieIds.length)],
          watchedAt: dayString(Math.floor(rand() * 3653)),
          plays: 1,
        },
      ],
    });
    if (res.statusCode !== 204) throw new Error(`POST history: ${res.statusCode} ${res.body}`);
  };
  const get = async () => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: '/api/users/stats/statistics', headers });
    if (res.statusCode !== 200) throw new Error(`GET statistics: ${res.statusCode} ${res.body}`);
    return performance.now() - started;
  };
  // Warm: the first answer compiles the statements; three more plays and answers.
  await get();
  for (let i = 0; i < 3; i++) {
    await logPlay();
    await get();
  }
  const times = [];
  for (let i = 0; i < Number(args.changes); i++) {
    await logPlay();
    times.push(await get());
  }
  await app.close();
  await handle.close();
  process.stdout.write(JSON.stringify({ median: median(times), max: Math.max(...times) }));
  process.exit(0);
}

if (!args.other) {
  process.stderr.write(
    'node bench/statistics-compare.js --other <checkout with dist/ built> [--engine postgres]\n',
  );
  process.exit(2);
}
const { createDatabase } = await import('./databases.js');
const { seedStatisticsHistory } = await import('./seed.js');
const log = (line) => process.stderr.write(`${line}\n`);
const dir = mkdtempSync(join(os.tmpdir(), 'cinelog-stats-compare-'));
const database = await createDatabase(args.engine, {
  dir,
  name: 'statistics',
  serverUrl: process.env.TEST_DATABASE_URL,
});
try {
  log(`[${args.engine}] seeding ${args.entries} entries on ${args.movies} movies...`);
  const { user } = await seedStatisticsHistory(database, {
    entries: Number(args.entries),
    movies: Number(args.movies),
  });
  const builds = [
    { name: 'other', root: resolve(args.other) },
    { name: 'this', root: HERE },
  ];
  const medians = { other: [], this: [] };
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const [index, build] of builds.entries()) {
      const out = execFileSync(
        process.execPath,
        [
          fileURLToPath(import.meta.url),
          ...['--run', build.root, '--url', database.url, '--token', user.token],
          // Each run its own plays: new entries, as a user's, not the other build's again.
          ...['--changes', args.changes, '--seed', String(round * 2 + index)],
        ],
        { encoding: 'utf8' },
      );
      const { median: m, max } = JSON.parse(out);
      medians[build.name].push(m);
      log(`round ${round} ${build.name}: median ${m.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    }
  }
  const ratios = medians.this.map((m, i) => m / medians.other[i]);
  const summary = {
    engine: args.engine,
    changes: Number(args.changes),
    other: { root: resolve(args.other), medians: medians.other },
    this: { medians: medians.this },
    ratio: median(ratios),
  };
  log(
    `first answer after a play, median of ${args.rounds} runs: other ${median(medians.other).toFixed(1)} ms, this ${median(medians.this).toFixed(1)} ms, this / other ${summary.ratio.toFixed(3)}`,
  );
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
