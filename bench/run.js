// Load benchmark (issue 5): the built server on a seeded SQLite database (and PostgreSQL when
// TEST_DATABASE_URL is set), each scenario measured with autocannon against the app and, in the same
// run, against a bare node:http server answering the same bytes: the machine's limit for that payload.
// The two are measured in alternating rounds (bare, app, bare, app...). Method and figures:
// docs/performance.md.
//
//   npm run bench                      build, then the full run (10 s per server and scenario in 3
//                                      rounds each, 32 connections)
//   node bench/run.js --quick          3 s per measurement in 1 round, 1 s warm-up: a smoke run
//   node bench/run.js --rounds 5       5 alternating rounds instead of 3
//   node bench/run.js --seconds 20 --connections 64 --warmup 3
//   node bench/run.js --only post,scrobble     only the scenarios whose name contains one of these
//                                              (`scaling` names the scaling run, `held` the run
//                                              with 2,000 held connections)
//   BENCH_LOG_LEVEL=warn node bench/run.js      the server's LOG_LEVEL (default: info, as in production)
//   BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/run.js --only post
//                                               profile the server (node options added to its command)
//
// Exits 0 whatever the targets say (it is a measurement); non-zero only when it could not measure:
// a server that crashed, a response other than the expected 2xx, a connection error.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createDatabase } from './databases.js';
import { comparePaired, compareWithBare, sendOnce } from './load.js';
import { MAIN_DATASET, scrobbleWebhookPool, seedMain, seedScale } from './seed.js';
import { ROOT, ServerDied, sampleRss, startApp, startBare, startCommandArgs } from './servers.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string' },
    warmup: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'node bench/run.js [--seconds 10] [--connections 32] [--warmup 2] [--rounds 3] [--quick] [--only post,scrobble,scaling]\n' +
      'TEST_DATABASE_URL=postgres://... also runs on PostgreSQL; BENCH_LOG_LEVEL sets the server LOG_LEVEL.\n',
  );
  process.exit(0);
}
const settings = {
  seconds: Number(args.seconds ?? (args.quick ? 3 : 10)),
  warmupSeconds: Number(args.warmup ?? (args.quick ? 1 : 2)),
  connections: Number(args.connections),
  /** Alternating measured rounds of the bare server and the app per scenario (seconds split among them). */
  rounds: Number(args.rounds ?? (args.quick ? 1 : 3)),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  /** The server's command: the `node` command of `npm start`. */
  serverCommand: ['node', ...startCommandArgs()].join(' '),
  quick: args.quick,
  /** Lower-case name fragments: only the scenarios (and `scaling`) whose name contains one; null: all. */
  only: args.only
    ? args.only
        .toLowerCase()
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null,
};
const selected = (name) =>
  settings.only === null || settings.only.some((part) => name.toLowerCase().includes(part));
for (const [name, value] of Object.entries({
  seconds: settings.seconds,
  connections: settings.connections,
  rounds: settings.rounds,
})) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
}

/** A URL takes 120 webhook reports a minute; the scrobble scenario sends each at most this many. */
const SCROBBLES_PER_URL = 100;
/** Plex lastViewedAt of successive reports to one URL: further apart than the 6 h dedupe window. */
const SCROBBLE_STEP_SECONDS = 7 * 3600;
const SCROBBLE_FIRST_VIEW = Date.UTC(2024, 0, 1) / 1000;
/** Dates of the one-play POSTs: before the seeded history, a new (movie, date) row each time. */
const POST_FIRST_DAY = Date.UTC(2000, 0, 1);

const log = (line) => process.stderr.write(`${line}\n`);
/** The CSRF secret a browser keeps in its `cinelog_csrf` cookie (@fastify/csrf's format). */
const CSRF_SECRET = randomBytes(18).toString('base64url');
const cleanups = [];
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`cleanup: ${error.message}`);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers and dropping the databases...`);
    cleanUp().finally(() => process.exit(130));
  });
}

/** Could not measure: the run stops with a non-zero status, after the results so far are written. */
class RunFailure extends Error {}

function readScenarios({ bench }) {
  const headers = { authorization: `Bearer ${bench.token}` };
  const user = '/api/users/bench';
  return [
    { name: 'history page 1', path: `${user}/history/movies`, headers, expect: 200, items: 24 },
    { name: 'history page 400', path: `${user}/history/movies?page=400`, headers, expect: 200, items: 24 },
    { name: 'played page 1', path: `${user}/played/movies`, headers, expect: 200, items: 24 },
    { name: 'watchlist page 1', path: `${user}/watchlist/movies`, headers, expect: 200, items: 24 },
    { name: 'token check', path: '/api/authentication/token', headers, expect: 200 },
    // Issue 20: the first request computes them (firstRequestMs), the others are served from the cache.
    { name: 'statistics', path: `${user}/statistics`, headers, expect: 200 },
    { name: 'statistics, one year', path: `${user}/statistics?year=2020`, headers, expect: 200 },
    // The web app's history page: the same page of the same list, as HTML in the layout, for a session.
    {
      name: 'HTML history page 1',
      path: '/history',
      headers: { cookie: `cinelog_session=${bench.session}; cinelog_csrf=${CSRF_SECRET}` },
      expect: 200,
    },
  ];
}

function writeScenarios({ bench, watchedMovieIds, knownMovie }, pool, db) {
  const json = { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const movies = watchedMovieIds.length;
  return [
    {
      name: 'history POST (1 play)',
      expect: 204,
      // Request k: one play of one of bench's movies, on a date before its seeded history.
      request: (k) => ({
        method: 'POST',
        path: '/api/users/bench/history/movies',
        headers: json,
        body: JSON.stringify([
          {
            serviceId: watchedMovieIds[k % movies],
            watchedAt: new Date(POST_FIRST_DAY + Math.floor(k / movies) * 86_400_000)
              .toISOString()
              .slice(0, 10),
          },
        ]),
      }),
      async verify(sent) {
        const row = await db
          .selectFrom('watch_dates')
          .innerJoin('users', 'users.id', 'watch_dates.user_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('users.name', '=', 'bench')
          .where('watch_dates.watched_at', '<', '2015-01-01')
          .executeTakeFirstOrThrow();
        const rows = Number(row.n);
        return { rowsWritten: rows, ok: rows >= sent, note: `${rows} new watch dates for ${sent} 204s` };
      },
    },
    {
      name: 'Plex scrobble',
      expect: 200,
      // Request k: a finished watch of the known movie, to URL k/100 of the pool, 7 h after the
      // previous report to that URL, so that none falls in another's dedupe window: each one counts.
      request: (k) => ({
        method: 'POST',
        path: pool.pathFor(k),
        headers: form,
        body: `payload=${encodeURIComponent(
          JSON.stringify({
            event: 'media.scrobble',
            user: true,
            owner: true,
            Account: { id: 1, title: 'bench' },
            Server: { title: 'bench-server', uuid: 'a1b2c3' },
            Player: { local: true, title: 'Living Room', uuid: 'p1' },
            Metadata: {
              librarySectionType: 'movie',
              type: 'movie',
              title: 'The Known Movie',
              year: 2001,
              guid: 'plex://movie/5d776b59ad5437001f79c6f8',
              Guid: [
                { id: `imdb://tt${1_000_000 + knownMovie.tmdbId}` },
                { id: `tmdb://${knownMovie.tmdbId}` },
              ],
              lastViewedAt: SCROBBLE_FIRST_VIEW + (k % SCROBBLES_PER_URL) * SCROBBLE_STEP_SECONDS,
            },
          }),
        )}`,
      }),
      async beforeApp(bareRate) {
        // Enough URLs that none gets more than 100 reports even at the bare server's rate.
        const most = (bareRate * 1.2 + 50) * (settings.warmupSeconds + settings.seconds) + 1;
        await pool.ensure(Math.ceil(most / SCROBBLES_PER_URL) + 1);
      },
      async verify(sent) {
        const rows = await db
          .selectFrom('webhook_events')
          .select(['outcome', (eb) => eb.fn.countAll().as('n')])
          .groupBy('outcome')
          .execute();
        const outcomes = Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]));
        const counted = outcomes.counted ?? 0;
        return {
          outcomes,
          webhookUrls: pool.size,
          ok: counted >= sent && Object.keys(outcomes).every((o) => o === 'counted'),
          note: `${counted} counted of ${sent} 200s over ${pool.size} webhook URLs`,
        };
      },
    },
  ];
}

/** One scenario: a sample request, the bare server with its bytes, then the app, both warmed up. */
async function runScenario(app, scenario, engine) {
  const counter = { next: 0 };
  const sample = await sendOnce(app.base, scenario, counter.next++);
  if (sample.status !== scenario.expect) {
    throw new RunFailure(
      `${scenario.name} (${engine}): expected ${scenario.expect}, got ${sample.status}: ${sample.body.toString().slice(0, 300)}`,
    );
  }
  let items = null;
  if (scenario.items !== undefined) {
    const parsed = JSON.parse(sample.body.toString());
    items = Object.values(parsed).find(Array.isArray)?.length ?? 0;
    if (items !== scenario.items)
      log(`warning: ${scenario.name} (${engine}) lists ${items} items, not ${scenario.items}`);
  }
  log(
    `  ${scenario.name}: bare server (${sample.body.length} bytes, ${sample.status}) and app, ${settings.rounds} rounds each...`,
  );
  const bareServer = await startBare(sample);
  app.assertAlive();
  const rss = sampleRss(app.pid);
  let compared;
  try {
    compared = await compareWithBare(bareServer, app, scenario, settings, counter, scenario.beforeApp);
  } finally {
    await bareServer.stop();
  }
  const rssMb = await rss.stop();
  app.assertAlive();
  const { app: result, bare, ratio } = compared;
  const row = {
    scenario: scenario.name,
    engine,
    ...result,
    bare,
    ratioToBare: ratio,
    rssMaxMb: rssMb,
    firstRequestMs: sample.ms,
    responseStatus: sample.status,
    responseBytes: sample.body.length,
    items,
  };
  if (scenario.verify) {
    // Every 2xx of the app: the sample, the warm-up and the measured run.
    const sent = 1 + result.warmupOk2xx + result.ok2xx;
    row.verification = await scenario.verify(sent);
  }
  return row;
}

function failuresOf(row, expect) {
  return [...wrongAnswers('app', row, expect), ...wrongAnswers('bare', row.bare, expect)];
}

/** What in one server's measured result was not the expected answer. */
function wrongAnswers(who, result, expect) {
  const problems = [];
  const wrong = Object.entries(result.statusCodes).filter(([code]) => Number(code) !== expect);
  if (wrong.length > 0) problems.push(`${who} answered ${wrong.map(([c, n]) => `${n}× ${c}`).join(', ')}`);
  if (result.errors > 0 || result.timeouts > 0)
    problems.push(`${who}: ${result.errors} errors, ${result.timeouts} timeouts`);
  return problems;
}

async function runEngine(engine, dir) {
  log(
    `\n[${engine}] seeding ${MAIN_DATASET.benchEntries} entries for bench, ${MAIN_DATASET.otherUsers} other users...`,
  );
  const database = await createDatabase(engine, {
    dir,
    name: 'main',
    serverUrl: process.env.TEST_DATABASE_URL,
  });
  cleanups.push(() => database.drop());
  const seedStarted = performance.now();
  const data = await seedMain(database.db);
  await database.prepareForReads();
  const seedMs = performance.now() - seedStarted;
  log(`[${engine}] seeded in ${Math.round(seedMs)} ms; starting the server...`);
  const pool = scrobbleWebhookPool(database.db, {
    benchUserId: data.bench.id,
    benchPath: data.plexWebhookPath,
    perUrl: SCROBBLES_PER_URL,
  });
  const app = await startApp({
    databaseUrl: database.url,
    logFile: join(dir, `server-${engine}.log`),
    logLevel: settings.logLevel,
    // Extra node options for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  });
  cleanups.push(() => app.stop());
  log(`[${engine}] process start to first 200: ${Math.round(app.startMs)} ms`);
  const rows = [];
  const problems = [];
  let deepPage = null;
  try {
    const scenarios = [...readScenarios(data), ...writeScenarios(data, pool, database.db)];
    const page1 = scenarios.find((s) => s.name === 'history page 1');
    for (const scenario of scenarios.filter((s) => selected(s.name))) {
      const row = await runScenario(app, scenario, engine);
      rows.push(row);
      for (const problem of failuresOf(row, scenario.expect))
        problems.push(`${scenario.name} (${engine}): ${problem}`);
      if (row.verification && !row.verification.ok)
        log(`warning: ${scenario.name} (${engine}): ${row.verification.note}`);
      // Right after both, in the state they were measured in (before the writes).
      if (scenario.name === 'history page 400' && selected(page1.name)) {
        deepPage = await comparePages(app, page1, scenario);
        for (const [name, result] of [
          [page1.name, deepPage.page1],
          [scenario.name, deepPage.page400],
        ]) {
          for (const problem of wrongAnswers('app', result, 200))
            problems.push(`${name} (${engine}, against each other): ${problem}`);
        }
      }
    }
  } finally {
    const peakRssMb = await app.peakRssMb().catch(() => null);
    const exit = await app.stop();
    Object.assign(app, { peakRssMb, exit });
  }
  return {
    engine,
    databaseVersion: await database.serverVersion(),
    seedMs,
    dataset: data.counts,
    startMs: app.startMs,
    peakRssMb: app.peakRssMb,
    rows,
    deepPage,
    problems,
  };
}

/**
 * History page 400 against page 1 on the app itself, in alternating rounds (`comparePaired`): measured
 * each after its own bare server, they are minutes apart, and the machine's drift over minutes moves
 * their ratio by more than the 10 % the target allows.
 */
async function comparePages(app, page1, page400) {
  log(`  ${page400.name} against ${page1.name}: app only, ${settings.rounds} alternating rounds each...`);
  const { first, second, ratio } = await comparePaired(
    { server: app, scenario: page1, counter: { next: 0 } },
    { server: app, scenario: page400, counter: { next: 0 } },
    settings,
  );
  app.assertAlive();
  return { page1: first, page400: second, ratio };
}

/** History page 1 of a user with 1k entries and of one with 100k, on one SQLite database of their own. */
async function runScaling(dir) {
  log('\n[sqlite] scaling: seeding scale1k (1,000 entries) and scale100k (100,000 entries)...');
  const database = await createDatabase('sqlite', { dir, name: 'scale' });
  cleanups.push(() => database.drop());
  const seedStarted = performance.now();
  const { small, large, counts } = await seedScale(database.db);
  const seedMs = performance.now() - seedStarted;
  log(`[sqlite] scaling dataset seeded in ${Math.round(seedMs)} ms`);
  const app = await startApp({
    databaseUrl: database.url,
    logFile: join(dir, 'server-scale.log'),
    logLevel: settings.logLevel,
  });
  cleanups.push(() => app.stop());
  const problems = [];
  let compared;
  try {
    const [small1k, large100k] = [small, large].map((user) => ({
      name: `history page 1, ${user.name}`,
      path: `/api/users/${user.name}/history/movies`,
      headers: { authorization: `Bearer ${user.token}` },
      expect: 200,
    }));
    const samples = [];
    for (const scenario of [small1k, large100k]) {
      const sample = await sendOnce(app.base, scenario, 0);
      if (sample.status !== 200) throw new RunFailure(`${scenario.name}: got ${sample.status}`);
      samples.push(sample);
    }
    log(
      `  ${small1k.name} against ${large100k.name}: app only, ${settings.rounds} alternating rounds each...`,
    );
    const rss = sampleRss(app.pid);
    compared = await comparePaired(
      { server: app, scenario: small1k, counter: { next: 0 } },
      { server: app, scenario: large100k, counter: { next: 0 } },
      settings,
    );
    const rssMaxMb = await rss.stop();
    app.assertAlive();
    for (const [i, [scenario, result]] of [
      [small1k, compared.first],
      [large100k, compared.second],
    ].entries()) {
      Object.assign(result, { rssMaxMb, firstRequestMs: samples[i].ms });
      for (const problem of wrongAnswers('app', result, 200)) problems.push(`${scenario.name}: ${problem}`);
    }
  } finally {
    await app.stop();
  }
  return {
    seedMs,
    dataset: counts,
    startMs: app.startMs,
    scale1k: compared.first,
    scale100k: compared.second,
    ratio: compared.ratio,
    problems,
  };
}

/** Connections the held-connections run keeps busy, and how long. */
const HELD_CONNECTIONS = 2_000;

/**
 * A new connection's GET /healthz while one client tries to keep HELD_CONNECTIONS keep-alive
 * connections busy (from another process: bench/held-load.js, from 127.0.0.1). Every 250 ms a probe
 * opens a connection of its own, from another client address (127.0.0.2), and times the answer from
 * connect to the last byte. A server that stops accepting under such a load (a full listen queue, an
 * event loop turning through thousands of busy connections) shows here as probes of seconds or none.
 */
async function runHeld(dir) {
  const seconds = Math.max(6, settings.seconds);
  log(`\n[sqlite] held connections: ${HELD_CONNECTIONS} busy keep-alive connections for ${seconds} s...`);
  const database = await createDatabase('sqlite', { dir, name: 'held' });
  cleanups.push(() => database.drop());
  const app = await startApp({
    databaseUrl: database.url,
    logFile: join(dir, 'server-held.log'),
    logLevel: settings.logLevel,
  });
  cleanups.push(() => app.stop());
  try {
    const load = spawn(
      process.execPath,
      [join(ROOT, 'bench', 'held-load.js'), `${app.base}/healthz`, String(HELD_CONNECTIONS), String(seconds)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let loadOutput = '';
    load.stdout.on('data', (chunk) => {
      loadOutput += chunk;
    });
    const loadDone = new Promise((resolve) => load.on('exit', resolve));
    // Probes start once the connections are open and busy.
    await sleep(1_500);
    const probes = [];
    const until = performance.now() + (seconds - 2.5) * 1000;
    while (performance.now() < until) {
      probes.push(await probeNewConnection(app.base));
      await sleep(250);
    }
    await loadDone;
    app.assertAlive();
    const loadFigures = JSON.parse(loadOutput.trim().split('\n').pop() ?? '{}');
    const answered = probes.filter((p) => p.status === 200).map((p) => p.ms);
    const sorted = [...answered].sort((a, b) => a - b);
    const result = {
      connections: HELD_CONNECTIONS,
      probes: probes.length,
      failedProbes: probes.length - answered.length,
      probeMs: {
        p50: sorted[Math.floor(sorted.length / 2)] ?? null,
        max: sorted.at(-1) ?? null,
      },
      load: loadFigures,
    };
    log(
      `  ${result.probes} probes: median ${fixed(result.probeMs.p50, 1)} ms, max ${fixed(result.probeMs.max, 1)} ms, ${result.failedProbes} failed; load ${loadFigures.requests} requests, ${loadFigures.errors} errors`,
    );
    return result;
  } finally {
    await app.stop();
  }
}

/** GET /healthz on a connection of its own: the status and the milliseconds from connect to the end. */
function probeNewConnection(base) {
  const started = performance.now();
  return new Promise((resolve) => {
    const options = { agent: false, timeout: 10_000, localAddress: '127.0.0.2' };
    const req = httpRequest(`${base}/healthz`, options, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

// ---- Report ----------------------------------------------------------------------------------

const fixed = (n, digits = 2) => (n === null || n === undefined ? '-' : n.toFixed(digits));

function table(rows) {
  const header = [
    'scenario',
    'engine',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'bare req/s',
    'ratio',
    'CPU µs',
    'bare CPU µs',
    'RSS MB',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.engine,
    String(r.requestsPerSecond),
    String(r.latencyMs.p50),
    String(r.latencyMs.p99),
    r.non2xx + r.errors + r.timeouts === 0 ? '0' : `${r.non2xx + r.errors + r.timeouts} !!`,
    String(r.bare.requestsPerSecond),
    fixed(r.ratioToBare),
    r.cpuUsPerRequest === null ? '-' : r.cpuUsPerRequest.toFixed(1),
    r.bare.cpuUsPerRequest === null ? '-' : r.bare.cpuUsPerRequest.toFixed(1),
    String(Math.round(r.rssMaxMb)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const numeric = (i) => i >= 2;
  const format = (cells) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [
    format(header),
    `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...lines.map(format),
  ].join('\n');
}

function targets(sqlite, scaling, held) {
  const row = (name) => sqlite?.rows.find((r) => r.scenario === name);
  const page1 = row('history page 1');
  const page400 = row('history page 400');
  const htmlPage = row('HTML history page 1');
  const post = row('history POST (1 play)');
  const scrobble = row('Plex scrobble');
  const maxRss = Math.max(
    ...(sqlite?.rows ?? []).map((r) => r.rssMaxMb),
    scaling?.scale1k?.rssMaxMb ?? 0,
    scaling?.scale100k?.rssMaxMb ?? 0,
  );
  const check = (label, value, pass, shown) => ({ target: label, value, pass, shown });
  return [
    page1 &&
      check(
        'history page 1 >= 0.5 x bare',
        page1.ratioToBare,
        page1.ratioToBare >= 0.5,
        `${fixed(page1.ratioToBare)} x bare`,
      ),
    htmlPage &&
      check(
        'HTML history page 1 >= 0.3 x bare',
        htmlPage.ratioToBare,
        htmlPage.ratioToBare >= 0.3,
        `${fixed(htmlPage.ratioToBare)} x bare`,
      ),
    sqlite?.deepPage &&
      check(
        'history page 400 >= 0.9 x page 1',
        sqlite.deepPage.ratio,
        sqlite.deepPage.ratio >= 0.9,
        `${fixed(sqlite.deepPage.ratio)} x page 1`,
      ),
    page1 &&
      check(
        'history page 1 p99 <= 20 ms',
        page1.latencyMs.p99,
        page1.latencyMs.p99 <= 20,
        `${page1.latencyMs.p99} ms`,
      ),
    page400 &&
      check(
        'history page 400 p99 <= 20 ms',
        page400.latencyMs.p99,
        page400.latencyMs.p99 <= 20,
        `${page400.latencyMs.p99} ms`,
      ),
    post &&
      check(
        'one-play POST >= 0.25 x bare',
        post.ratioToBare,
        post.ratioToBare >= 0.25,
        `${fixed(post.ratioToBare)} x bare`,
      ),
    scrobble &&
      check(
        'known-movie scrobble >= 0.25 x bare',
        scrobble.ratioToBare,
        scrobble.ratioToBare >= 0.25,
        `${fixed(scrobble.ratioToBare)} x bare`,
      ),
    scaling &&
      check(
        '100k entries >= 0.9 x 1k entries',
        scaling.ratio,
        scaling.ratio >= 0.9,
        `${fixed(scaling.ratio)} x 1k`,
      ),
    sqlite && check('RSS under load <= 150 MB', maxRss, maxRss <= 150, `${Math.round(maxRss)} MB`),
    held &&
      check(
        `new connection's /healthz < 1 s, ${held.connections} held`,
        held.probeMs.max,
        held.failedProbes === 0 && held.probeMs.max !== null && held.probeMs.max < 1000,
        `max ${fixed(held.probeMs.max, 0)} ms of ${held.probes}${held.failedProbes ? `, ${held.failedProbes} failed` : ''}`,
      ),
    sqlite &&
      check(
        'process start to first 200 <= 1000 ms',
        sqlite.startMs,
        sqlite.startMs <= 1000,
        `${Math.round(sqlite.startMs)} ms`,
      ),
  ].filter(Boolean);
}

function machine() {
  const cpus = os.cpus();
  let commit = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    if (dirty) commit += ' + uncommitted changes in src/';
  } catch {
    // not a git checkout
  }
  const version = (name) => {
    try {
      return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
    node: process.version,
    autocannon: version('autocannon'),
    fastify: version('fastify'),
    betterSqlite3: version('better-sqlite3'),
    commit,
  };
}

async function main() {
  const startedAt = new Date();
  const host = machine();
  const engines = ['sqlite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];
  log(
    `cinelog bench: ${engines.join(' + ')}, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per measurement, server LOG_LEVEL=${settings.logLevel}`,
  );
  log(
    `${host.cpus} × ${host.cpuModel}, node ${host.node}, commit ${host.commit ?? '?'}; server: ${settings.serverCommand}`,
  );
  const dir = mkdtempSync(join(os.tmpdir(), 'cinelog-bench-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));

  const results = {};
  let scaling = null;
  let held = null;
  let failure = null;
  try {
    results.sqlite = await runEngine('sqlite', dir);
    if (selected('scaling')) scaling = await runScaling(dir);
    if (selected('held')) held = await runHeld(dir);
    if (engines.includes('postgres')) results.postgres = await runEngine('postgres', dir);
  } catch (error) {
    failure = error;
  } finally {
    await cleanUp();
  }

  const rows = Object.values(results).flatMap((r) => r.rows);
  const problems = [...Object.values(results).flatMap((r) => r.problems), ...(scaling?.problems ?? [])];
  const checks = targets(results.sqlite, scaling, held);
  const out = process.stdout;
  if (rows.length > 0) {
    out.write(
      `\n${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured, each scenario right after its bare server; server LOG_LEVEL=${settings.logLevel}\n\n`,
    );
    out.write(`${table(rows)}\n\n`);
    for (const r of Object.values(results)) {
      out.write(
        `${r.engine}: process start to first 200 ${Math.round(r.startMs)} ms; peak RSS ${Math.round(r.peakRssMb ?? 0)} MB; seeded in ${Math.round(r.seedMs)} ms (${r.databaseVersion})\n`,
      );
    }
    for (const r of rows.filter((x) => x.scenario.startsWith('statistics')))
      out.write(
        `${r.scenario} (${r.engine}): first answer, computed: ${fixed(r.firstRequestMs, 1)} ms; then from the cache\n`,
      );
    for (const r of rows.filter((x) => x.verification))
      out.write(`${r.scenario} (${r.engine}): ${r.verification.note}\n`);
    for (const r of Object.values(results).filter((x) => x.deepPage)) {
      const { page1, page400, ratio } = r.deepPage;
      out.write(
        `\ndeep page (${r.engine}, alternating rounds on the app): page 1 ${page1.requestsPerSecond} req/s (p99 ${page1.latencyMs.p99} ms), page 400 ${page400.requestsPerSecond} req/s (p99 ${page400.latencyMs.p99} ms): ratio ${fixed(ratio)}\n`,
      );
    }
  }
  if (scaling) {
    out.write(
      `\nscaling (sqlite, history page 1, alternating rounds): 1k entries ${scaling.scale1k.requestsPerSecond} req/s (p99 ${scaling.scale1k.latencyMs.p99} ms), 100k entries ${scaling.scale100k.requestsPerSecond} req/s (p99 ${scaling.scale100k.latencyMs.p99} ms): ratio ${fixed(scaling.ratio)}; seeded in ${Math.round(scaling.seedMs)} ms\n`,
    );
  }
  if (held) {
    out.write(
      `\nheld connections (sqlite): one client trying ${held.connections} busy keep-alive connections (${held.load.requests} requests; ${held.load.errors} connections closed at once past MAX_CONNECTIONS_PER_CLIENT or failed); another client's new connection, /healthz: median ${fixed(held.probeMs.p50, 1)} ms, max ${fixed(held.probeMs.max, 1)} ms over ${held.probes} probes, ${held.failedProbes} failed\n`,
    );
  }
  if (checks.length > 0) {
    out.write(
      `\ntargets (sqlite, ${settings.connections} connections${settings.connections === 32 ? '' : '; they are defined at 32'}):\n`,
    );
    for (const c of checks) out.write(`${c.pass ? 'PASS' : 'FAIL'}  ${c.target.padEnd(40)} ${c.shown}\n`);
  }

  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine: host,
        settings,
        engines: results,
        scaling,
        held,
        targets: checks,
        problems,
        failure: failure ? String(failure.stack ?? failure) : null,
      },
      null,
      2,
    )}\n`,
  );
  log(`\nresults written to ${file}`);

  if (failure) {
    const known = failure instanceof RunFailure || failure instanceof ServerDied;
    log(`bench failed: ${known ? failure.message : (failure.stack ?? failure)}`);
    process.exit(1);
  }
  if (problems.length > 0) {
    log(`bench failed: responses other than the expected ones:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

main().catch(async (error) => {
  log(`bench failed: ${error.stack ?? error}`);
  await cleanUp();
  process.exit(1);
});
