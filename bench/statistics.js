// The statistics endpoint on a long history (issues 20 and 28): a user with 100,000 plays over ten years
// of 4,000 movies with genres, countries, languages and credits (10-39 cast places each, so about 21
// billed actors), 1,500 ratings; the diary's own ratings, rewatch flags and tags on some entries
// (issue 30). Measures, in this process, on the built app (app.inject):
//   - computing the statistics with an empty cache, all time and for one year: each `--runs` times on a
//     new service, median and max wall time, and the median CPU time this process used;
//   - the first answer after a change: `--changes` times, one play is logged (POST history) and the
//     statistics are asked for at once, all time; then another play, and its year's statistics;
//   - the warm answer (from the cache), median of 200;
//   - a one-play write: `--writes` POSTs of one play (a new (movie, date) entry each, as the load
//     bench's), one after another: median wall time, and CPU per write of this process and, on
//     PostgreSQL, of the server's processes (read from /proc: the server must run on this machine);
//   - the first answer after those writes (a catch-up of every movie they touched, in steps), and the
//     longest the event loop waited meanwhile.
// A measurement, not a test: it prints the figures (docs/performance.md, "Statistics") and exits 0.
//
//   npm run build && node bench/statistics.js
//   node bench/statistics.js --entries 20000 --movies 2000 --runs 20
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/statistics.js --engine postgres
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { endSignInsOnChange } from '../dist/modules/auth/credentials.js';
import { createStatisticsService } from '../dist/modules/statistics/statistics.service.js';
import { createUsersService } from '../dist/modules/users/users.service.js';
import { systemClock } from '../dist/shared/clock.js';
import { createDatabase } from './databases.js';
import { dayString, seededRandom, seedStatisticsHistory } from './seed.js';

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '100000' },
    movies: { type: 'string', default: '4000' },
    runs: { type: 'string', default: '10' },
    changes: { type: 'string', default: '20' },
    writes: { type: 'string', default: '500' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const runs = Number(args.runs);
const log = (line) => process.stderr.write(`${line}\n`);
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ms = (n) => `${n.toFixed(1)} ms`;
const cpuMs = (used) => (used.user + used.system) / 1000;

/** CPU time (ms) used so far by the PostgreSQL server's processes on this machine; null when unreadable. */
function postgresCpuMs() {
  const tick = 1000 / 100; // USER_HZ
  let total = 0;
  let found = false;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
      const fields = stat.slice(close + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * tick;
      found = true;
    } catch {
      // The process ended meanwhile.
    }
  }
  return found ? total : null;
}

const dir = mkdtempSync(join(os.tmpdir(), 'cinelog-stats-'));
const database = await createDatabase(args.engine, {
  dir,
  name: 'statistics',
  serverUrl: process.env.TEST_DATABASE_URL,
});
try {
  log(`[${args.engine}] seeding ${args.entries} entries on ${args.movies} movies...`);
  const seeded = performance.now();
  const { user, counts } = await seedStatisticsHistory(database, {
    entries: Number(args.entries),
    movies: Number(args.movies),
  });
  log(`seeded in ${Math.round(performance.now() - seeded)} ms: ${JSON.stringify(counts)}`);
  const owner = await createUsersService({
    credentials: endSignInsOnChange,
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
        cpu.push(cpuMs(used));
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
  const headers = { authorization: `Bearer ${user.token}` };
  const get = async (query = '') => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: `/api/users/stats/statistics${query}`, headers });
    if (res.statusCode !== 200) throw new Error(`GET statistics: ${res.statusCode} ${res.body}`);
    return performance.now() - started;
  };

  // One play of one of the user's movies on a day of the seeded ten years: a new entry but by chance.
  const movieIds = (await database.db.selectFrom('movies').select('id').execute()).map((m) => m.id);
  const rand = seededRandom(28);
  const logPlay = async () => {
    const watchedAt = dayString(Math.floor(rand() * 3653));
    const res = await app.inject({
      method: 'POST',
      url: '/api/users/stats/history/movies',
      headers,
      payload: [{ serviceId: movieIds[Math.floor(rand() * movieIds.length)], watchedAt, plays: 1 }],
    });
    if (res.statusCode !== 204) throw new Error(`POST history: ${res.statusCode} ${res.body}`);
    return Number(watchedAt.slice(0, 4));
  };

  const firstAnswer = await get();
  const cached = [];
  for (let i = 0; i < 200; i++) cached.push(await get());

  const afterChange = { allTime: [], oneYear: [] };
  for (let i = 0; i < Number(args.changes); i++) {
    await logPlay();
    afterChange.allTime.push(await get());
    const year = await logPlay();
    afterChange.oneYear.push(await get(`?year=${year}`));
  }

  const writes = Number(args.writes);
  for (let i = 0; i < 50; i++) await logPlay();
  const writeTimes = [];
  const cpuBefore = process.cpuUsage();
  const serverBefore = args.engine === 'postgres' ? postgresCpuMs() : null;
  for (let i = 0; i < writes; i++) {
    const started = performance.now();
    await logPlay();
    writeTimes.push(performance.now() - started);
  }
  const writeCpu = cpuMs(process.cpuUsage(cpuBefore)) / writes;
  const serverAfter = serverBefore === null ? null : postgresCpuMs();
  const serverCpu = serverAfter === null ? null : (serverAfter - serverBefore) / writes;

  // The first answer after those writes: the catch-up counts every movie they touched, a few per
  // transaction. The longest the event loop went without a turn meanwhile (a timer loop's longest gap)
  // is what another request could have waited.
  let longestStall = 0;
  let ticking = true;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    longestStall = Math.max(longestStall, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const catchUpCpuBefore = process.cpuUsage();
  const afterWrites = await get();
  const catchUpCpu = cpuMs(process.cpuUsage(catchUpCpuBefore));
  ticking = false;
  await app.close();

  const summary = (list) => ({ median: median(list), max: Math.max(...list) });
  const out = {
    engine: args.engine,
    dataset: counts,
    uncachedAllTime: allTime,
    uncachedOneYear: oneYear,
    httpFirst: firstAnswer,
    httpCachedMedian: median(cached),
    firstAfterChange: { allTime: summary(afterChange.allTime), oneYear: summary(afterChange.oneYear) },
    onePlayWrite: { median: median(writeTimes), cpuMs: writeCpu, serverCpuMs: serverCpu },
    afterWrites: { ms: afterWrites, cpuMs: catchUpCpu, longestStallMs: longestStall },
  };
  const us = (n) => `${Math.round(n * 1000)} µs`;
  process.stdout.write(
    `statistics of ${counts.plays} plays (${counts.entries} entries, ${counts.movies} movies, ${counts.castRows} cast places), ${args.engine}, ${os.cpus().length} × ${os.cpus()[0]?.model}:\n` +
      `  computed, all time: median ${ms(allTime.median)}, max ${ms(allTime.max)}, CPU of this process ${ms(allTime.cpuMedian)} (${runs} runs, ${allTime.bytes} bytes)\n` +
      `  computed, one year: median ${ms(oneYear.median)}, max ${ms(oneYear.max)}, CPU ${ms(oneYear.cpuMedian)}\n` +
      `  GET through the app: first ${ms(firstAnswer)}, then from the cache: median ${ms(median(cached))}\n` +
      `  first GET after logging a play (${args.changes} times): all time median ${ms(out.firstAfterChange.allTime.median)}, max ${ms(out.firstAfterChange.allTime.max)}; ` +
      `its year median ${ms(out.firstAfterChange.oneYear.median)}, max ${ms(out.firstAfterChange.oneYear.max)}\n` +
      `  one-play POST (${writes}, one at a time): median ${us(out.onePlayWrite.median)}, CPU ${us(writeCpu)} a write` +
      `${serverCpu === null ? '' : `, PostgreSQL's ${us(serverCpu)}`}\n` +
      `  first GET after those ${writes + 50} writes: ${ms(afterWrites)}, CPU of this process ${ms(catchUpCpu)}, the event loop's longest wait ${ms(longestStall)}\n` +
      `${JSON.stringify(out)}\n`,
  );
} finally {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
