// The statistics endpoint on a long history (issue 20): a user with 100,000 plays over ten years, on
// 10,000 movies with genres, countries, languages and credits (about 115,000 cast places), 1,500
// ratings. Measures, in this process, on the built app:
//   - computing the statistics (every query, uncached), all time and for one year: each `--runs` times
//     on a service with an empty cache, median and max wall time, and the median CPU time this process
//     used (SQLite runs in it: on a busy machine that is the figure that holds);
//   - GET /api/users/stats/statistics through the app (app.inject): the first answer (computed) and
//     the next ones (from the cache), median.
// A measurement, not a test: it prints the figures (docs/performance.md, "Statistics") and exits 0.
//
//   npm run build && node bench/statistics.js
//   node bench/statistics.js --entries 20000 --runs 20
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/statistics.js --engine postgres
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { createStatisticsService } from '../dist/modules/statistics/statistics.service.js';
import { createUsersService } from '../dist/modules/users/users.service.js';
import { systemClock } from '../dist/shared/clock.js';
import { createDatabase } from './databases.js';
import { seedStatistics } from './seed.js';

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '10' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const runs = Number(args.runs);
const log = (line) => process.stderr.write(`${line}\n`);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ms = (n) => `${n.toFixed(1)} ms`;

const dir = mkdtempSync(join(os.tmpdir(), 'cinelog-stats-'));
const database = await createDatabase(args.engine, {
  dir,
  name: 'statistics',
  serverUrl: process.env.TEST_DATABASE_URL,
});
try {
  log(`[${args.engine}] seeding ${args.entries} entries...`);
  const seeded = performance.now();
  const { user, counts } = await seedStatistics(database.db, { entries: Number(args.entries) });
  await database.prepareForReads();
  log(`seeded in ${Math.round(performance.now() - seeded)} ms: ${JSON.stringify(counts)}`);
  const owner = await createUsersService({
    db: database.db,
    clock: systemClock,
    defaultTimezone: 'UTC',
  }).findByName('stats');

  const timeUncached = async (options) => {
    const times = [];
    const cpu = [];
    let bytes = 0;
    for (let i = 0; i <= runs; i++) {
      // A new service: an empty cache, so every run computes.
      const service = createStatisticsService({
        db: database.db,
        clock: systemClock,
        imageBaseUrl: 'http://i',
      });
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const body = await service.json(owner, options);
      const used = process.cpuUsage(cpuBefore);
      if (i > 0) {
        times.push(performance.now() - started);
        cpu.push((used.user + used.system) / 1000);
      }
      bytes = body.length;
    }
    return { median: median(times), max: Math.max(...times), cpuMedian: median(cpu), bytes };
  };
  const allTime = await timeUncached({});
  const oneYear = await timeUncached({ year: 2020 });

  const config = loadConfig({ DATABASE_URL: database.url, APP_URL: 'http://bench', LOG_LEVEL: 'silent' });
  const app = await buildApp({ config, db: database.db, tmdb: null, logger: false });
  await app.ready();
  const get = async () => {
    const started = performance.now();
    const res = await app.inject({
      method: 'GET',
      url: '/api/users/stats/statistics',
      headers: { authorization: `Bearer ${user.token}` },
    });
    if (res.statusCode !== 200) throw new Error(`GET statistics: ${res.statusCode} ${res.body}`);
    return performance.now() - started;
  };
  const first = await get();
  const cached = [];
  for (let i = 0; i < 200; i++) cached.push(await get());
  await app.close();

  const out = {
    engine: args.engine,
    dataset: counts,
    uncachedAllTime: allTime,
    uncachedOneYear: oneYear,
    httpFirst: first,
    httpCachedMedian: median(cached),
  };
  process.stdout.write(
    `statistics of ${counts.plays} plays (${counts.entries} entries, ${counts.movies} movies, ${counts.castRows} cast places), ${args.engine}, ${os.cpus().length} × ${os.cpus()[0]?.model}:\n` +
      `  computed, all time: median ${ms(allTime.median)}, max ${ms(allTime.max)}, CPU of this process ${ms(allTime.cpuMedian)} (${runs} runs, ${allTime.bytes} bytes)\n` +
      `  computed, one year: median ${ms(oneYear.median)}, max ${ms(oneYear.max)}, CPU ${ms(oneYear.cpuMedian)}\n` +
      `  GET through the app: first ${ms(first)}, then from the cache: median ${ms(median(cached))}\n` +
      `${JSON.stringify(out)}\n`,
  );
} finally {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
