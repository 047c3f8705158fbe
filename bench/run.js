// Load benchmark (issue 5): the built server on a seeded SQLite database (and PostgreSQL when
// TEST_DATABASE_URL is set), each scenario measured with wrk against the app and, in the same run,
// against a bare node:http server answering the same bytes: the machine's limit for that payload.
// The two are measured in alternating rounds (bare, app, bare, app...). Method and figures:
// docs/performance.md. wrk must be installed (Debian, Ubuntu: `apt-get install -y wrk`).
//
//   npm run bench                      build, then the full run (10 s per server and scenario in 3
//                                      rounds each, 32 connections)
//   node bench/run.js --quick          3 s per measurement in 1 round, 1 s warm-up: a smoke run
//   node bench/run.js --rounds 5       5 alternating rounds instead of 3
//   node bench/run.js --seconds 20 --connections 64 --warmup 3 --threads 1   (wrk's threads)
//   node bench/run.js --only post,scrobble     only the scenarios whose name contains one of these
//                                              (`scaling` names the scaling run, `held` the run
//                                              with 2,000 held connections)
//   BENCH_LOG_LEVEL=warn node bench/run.js      the server's LOG_LEVEL (default: info, as in production)
//   BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/run.js --only post
//                                               profile the server (node options added to its command)
//
// Exits 0 whatever the targets say (it is a measurement); non-zero only when it could not measure:
// a server that crashed, a response other than the expected 2xx, a connection error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createDatabase } from './databases.js';
import {
  comparePaired,
  compareWithBare,
  figuresOf,
  firstForeignRequest,
  sendOnce,
  WrkMissing,
  wrkRun,
  wrkVersion,
} from './load.js';
import {
  pageScenarios,
  readScenarios,
  SCROBBLES_PER_URL,
  signInThroughForm,
  writeScenarios,
} from './scenarios.js';
import { MAIN_DATASET, scrobbleWebhookPool, seedMain, seedPages, seedScale } from './seed.js';
import { ROOT, ServerDied, sampleRss, startApp, startBare, startCommandArgs } from './servers.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '1' },
    rounds: { type: 'string' },
    warmup: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'node bench/run.js [--seconds 10] [--connections 32] [--threads 1] [--warmup 2] [--rounds 3] [--quick] [--only post,scrobble,scaling]\n' +
      'TEST_DATABASE_URL=postgres://... also runs on PostgreSQL; BENCH_LOG_LEVEL sets the server LOG_LEVEL.\n' +
      'The load generator is wrk (Debian, Ubuntu: apt-get install -y wrk; BENCH_WRK=/path/to/wrk).\n',
  );
  process.exit(0);
}
const settings = {
  seconds: Number(args.seconds ?? (args.quick ? 3 : 10)),
  warmupSeconds: Number(args.warmup ?? (args.quick ? 1 : 2)),
  connections: Number(args.connections),
  /**
   * wrk's threads. One: on 2 cores the server takes one and wrk the other (with 2, wrk took CPU
   * from the server it measured).
   */
  threads: Number(args.threads),
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
  threads: settings.threads,
  rounds: settings.rounds,
})) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
}

const log = (line) => process.stderr.write(`${line}\n`);
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
    if (scenario.vary) {
      // wrk's Lua must have made the scenario's requests: those the bare server got first are
      // request(0), request(1)... in the order the connections sent them.
      const foreign = firstForeignRequest(scenario, await bareServer.recorded(), 10_000);
      if (foreign)
        throw new RunFailure(
          `${scenario.name} (${engine}): wrk's Lua sent a request the JavaScript does not make: ${JSON.stringify(foreign).slice(0, 400)}`,
        );
    }
  } finally {
    await bareServer.stop();
  }
  const rssMb = await rss.stop();
  app.assertAlive();
  const { app: result, bare, ratio, repeatedRounds } = compared;
  const row = {
    scenario: scenario.name,
    engine,
    ...result,
    bare,
    ratioToBare: ratio,
    /** Pairs of rounds run again because another program took CPU meanwhile (load.js). */
    repeatedRounds,
    rssMaxMb: rssMb,
    firstRequestMs: sample.ms,
    responseStatus: sample.status,
    responseBytes: sample.body.length,
    items,
  };
  if (scenario.verify) {
    // Every 2xx of the app: the sample, the warm-up, the measured rounds and those run again.
    const sent = 1 + result.warmupOk2xx + result.ok2xx + result.discardedOk2xx;
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
  // At rest: started, migrated, its first answer given, nothing asked for 2 s.
  await sleep(2_000);
  const rssAtRestMb = await app.rssMb();
  log(`[${engine}] RSS at rest: ${Math.round(rssAtRestMb)} MB`);
  const rows = [];
  const problems = [];
  let deepPage = null;
  try {
    const scenarios = [...readScenarios(data), ...writeScenarios(data, pool, database.db, settings)];
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
    rssAtRestMb,
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

/**
 * The web pages on a big library (issue 28): a user with 100,000 plays of 4,000 movies and one with
 * 1,000, both signed in through the login form. Each page of the 100k user against a bare server with
 * its bytes, then the 1k user's same page against the 100k user's, in alternating rounds on the app.
 */
async function runPages(dir) {
  log('\n[sqlite] pages: seeding pages1k (1,000 entries) and pages100k (100,000 entries, 4,000 movies)...');
  const database = await createDatabase('sqlite', { dir, name: 'pages' });
  cleanups.push(() => database.drop());
  const seedStarted = performance.now();
  const { small, large, password, counts } = await seedPages(database.db);
  await database.prepareForReads();
  const seedMs = performance.now() - seedStarted;
  log(`[sqlite] pages dataset seeded in ${Math.round(seedMs)} ms`);
  // A genre and a person the 100k user has movies of, for the grid's filters.
  const genre = await database.db
    .selectFrom('genres')
    .select('tmdb_id')
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const person = await database.db
    .selectFrom('movie_cast')
    .select('person_id')
    .where('cast_order', '=', 0)
    .orderBy('movie_id')
    .executeTakeFirstOrThrow();
  const app = await startApp({
    databaseUrl: database.url,
    logFile: join(dir, 'server-pages.log'),
    logLevel: settings.logLevel,
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  });
  cleanups.push(() => app.stop());
  const filters = { genre: genre.tmdb_id, person: person.person_id };
  const [largePages, smallPages] = await Promise.all(
    [large, small].map(async (user) =>
      pageScenarios(await signInThroughForm(app.base, user.name, password), {
        ...filters,
        listId: user.listId,
      }),
    ),
  );
  const only = settings.only?.includes('pages') ? null : settings.only;
  const wanted = (name) => only === null || only.some((part) => name.toLowerCase().includes(part));
  const rows = [];
  const problems = [];
  try {
    for (const [i, scenario] of largePages.entries()) {
      if (!wanted(scenario.name)) continue;
      const row = await runScenario(app, scenario, 'sqlite');
      for (const problem of failuresOf(row, 200)) problems.push(`${scenario.name} (pages): ${problem}`);
      const smallScenario = smallPages[i];
      const sample = await sendOnce(app.base, smallScenario, 0);
      if (sample.status !== 200) throw new RunFailure(`${scenario.name}, 1k: got ${sample.status}`);
      log(
        `  ${scenario.name}: 1k entries against 100k, app only, ${settings.rounds} alternating rounds each...`,
      );
      const paired = await comparePaired(
        { server: app, scenario: smallScenario, counter: { next: 0 } },
        { server: app, scenario, counter: { next: 0 } },
        settings,
      );
      app.assertAlive();
      for (const problem of [
        ...wrongAnswers('app', paired.first, 200),
        ...wrongAnswers('app', paired.second, 200),
      ])
        problems.push(`${scenario.name} (pages, 1k against 100k): ${problem}`);
      rows.push({
        ...row,
        scale1k: { ...paired.first, firstRequestMs: sample.ms },
        scale100k: paired.second,
        ratio100kTo1k: paired.ratio,
      });
    }
  } finally {
    await app.stop();
  }
  return { seedMs, dataset: counts, startMs: app.startMs, rows, problems };
}

/** Connections the held-connections run keeps busy, and how long. */
const HELD_CONNECTIONS = 2_000;

/**
 * A new connection's GET /healthz while one client tries to keep HELD_CONNECTIONS keep-alive
 * connections busy (wrk, a process of its own, from 127.0.0.1). Every 250 ms a probe
 * opens a connection of its own, from another client address (127.0.0.2), and times the answer from
 * connect to the last byte. A server that stops accepting under such a load (a full listen queue, an
 * event loop turning through thousands of busy connections) shows here as probes of seconds or none.
 */
async function runHeld(dir) {
  const seconds = Math.max(6, settings.seconds);
  log(`\n[sqlite] held connections: ${HELD_CONNECTIONS} busy keep-alive connections for ${seconds} s...`);
  const database = await createDatabase('sqlite', { dir, name: 'held' });
  cleanups.push(() => database.drop());
  // The load of issue 28: one client's connections busy with history pages (of the main dataset).
  const data = await seedMain(database.db);
  await database.prepareForReads();
  const app = await startApp({
    databaseUrl: database.url,
    logFile: join(dir, 'server-held.log'),
    logLevel: settings.logLevel,
    extraEnv: process.env.BENCH_HELD_PER_CLIENT
      ? { MAX_CONNECTIONS_PER_CLIENT: process.env.BENCH_HELD_PER_CLIENT }
      : {},
  });
  cleanups.push(() => app.stop());
  try {
    // wrk, a process of its own: this one stays idle to time the probes.
    const history = {
      path: '/api/users/bench/history/movies',
      headers: { authorization: `Bearer ${data.bench.token}` },
    };
    const loadDone = wrkRun(
      `${app.base}${history.path}`,
      history,
      { connections: HELD_CONNECTIONS, threads: 1, timeoutSeconds: 30 },
      seconds,
    );
    log(`  server at ${app.base}`);
    // Probes start once the connections are open and busy.
    await sleep(1_500);
    const probes = [];
    const until = performance.now() + (seconds - 2.5) * 1000;
    while (performance.now() < until) {
      probes.push(await probeNewConnection(app.base));
      await sleep(250);
    }
    const wrkFigures = figuresOf(await loadDone);
    app.assertAlive();
    const loadFigures = {
      requests: wrkFigures.requestsTotal,
      ok2xx: wrkFigures.ok2xx,
      non2xx: wrkFigures.non2xx,
      errors: wrkFigures.errors,
      timeouts: wrkFigures.timeouts,
      p99Ms: wrkFigures.latencyMs.p99,
    };
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

/** A Markdown table: `header`, then `lines` of cells (strings); columns from `firstNumeric` on align right. */
function markdownTable(header, lines, firstNumeric) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const numeric = (i) => i >= firstNumeric;
  const format = (cells) =>
    `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [
    format(header),
    `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    ...lines.map(format),
  ].join('\n');
}

const wrong = (r) =>
  r.non2xx + r.errors + r.timeouts === 0 ? '0' : `${r.non2xx + r.errors + r.timeouts} !!`;
const cpu = (r) => (r.cpuUsPerRequest === null ? '-' : r.cpuUsPerRequest.toFixed(1));

function table(rows) {
  return markdownTable(
    [
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
    ],
    rows.map((r) => [
      r.scenario,
      r.engine,
      String(r.requestsPerSecond),
      // The median of two rounds is their mean: 5.220000000000001 without rounding.
      fixed(r.latencyMs.p50),
      fixed(r.latencyMs.p99),
      wrong(r),
      String(r.bare.requestsPerSecond),
      fixed(r.ratioToBare),
      cpu(r),
      cpu(r.bare),
      String(Math.round(r.rssMaxMb)),
    ]),
    2,
  );
}

/** The pages run: at 100k entries against the bare server, and 100k against 1k on the app. */
function pagesTable(rows) {
  return markdownTable(
    [
      'page (100k)',
      'req/s',
      'p99 ms',
      'non-2xx',
      'bare req/s',
      'ratio',
      'CPU µs',
      'first ms',
      'KB',
      '1k req/s',
      '100k / 1k',
    ],
    rows.map((r) => [
      r.scenario,
      String(r.requestsPerSecond),
      String(r.latencyMs.p99),
      wrong(r),
      String(r.bare.requestsPerSecond),
      fixed(r.ratioToBare),
      cpu(r),
      fixed(r.firstRequestMs, 1),
      String(Math.round(r.responseBytes / 1024)),
      String(r.scale1k.requestsPerSecond),
      fixed(r.ratio100kTo1k),
    ]),
    1,
  );
}

function targets(sqlite, scaling, held, pages) {
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
    ...(pages?.rows ?? []).map((r) => r.rssMaxMb),
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
    ...(pages?.rows ?? []).flatMap((r) => {
      const least = r.scenario === '/history' ? 0.3 : 0.15;
      return [
        check(
          `${r.scenario} >= ${least} x bare (100k)`,
          r.ratioToBare,
          r.ratioToBare >= least,
          `${fixed(r.ratioToBare)} x bare`,
        ),
        check(
          `${r.scenario} p99 <= 50 ms (100k)`,
          r.latencyMs.p99,
          r.latencyMs.p99 <= 50,
          `${r.latencyMs.p99} ms`,
        ),
        check(
          `${r.scenario} 100k >= 0.8 x 1k`,
          r.ratio100kTo1k,
          r.ratio100kTo1k >= 0.8,
          `${fixed(r.ratio100kTo1k)} x 1k`,
        ),
      ];
    }),
    sqlite?.rows.length > 0 &&
      check('RSS under load <= 150 MB', maxRss, maxRss <= 150, `${Math.round(maxRss)} MB`),
    sqlite &&
      check(
        'RSS at rest <= 100 MB',
        sqlite.rssAtRestMb,
        sqlite.rssAtRestMb <= 100,
        `${Math.round(sqlite.rssAtRestMb)} MB`,
      ),
    held &&
      check(
        `new connection's /healthz < 1 s, ${held.connections} held`,
        held.probeMs.max,
        held.failedProbes === 0 && held.probeMs.max !== null && held.probeMs.max < 1000,
        `max ${fixed(held.probeMs.max, 0)} ms of ${held.probes}${held.failedProbes ? `, ${held.failedProbes} failed` : ''}`,
      ),
    sqlite?.rows.length > 0 &&
      check(
        'process start to first 200 <= 1000 ms',
        sqlite.startMs,
        sqlite.startMs <= 1000,
        `${Math.round(sqlite.startMs)} ms`,
      ),
  ].filter(Boolean);
}

function machine(wrk) {
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
    wrk,
    fastify: version('fastify'),
    betterSqlite3: version('better-sqlite3'),
    commit,
  };
}

async function main() {
  const startedAt = new Date();
  let wrk;
  try {
    wrk = wrkVersion();
  } catch (error) {
    if (!(error instanceof WrkMissing)) throw error;
    log(`cinelog bench: ${error.message}`);
    process.exit(1);
  }
  const host = machine(wrk);
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
  let pages = null;
  let held = null;
  let failure = null;
  try {
    results.sqlite = await runEngine('sqlite', dir);
    if (selected('scaling')) scaling = await runScaling(dir);
    if (settings.only === null || settings.only.some((part) => part === 'pages' || part.startsWith('/')))
      pages = await runPages(dir);
    if (selected('held')) held = await runHeld(dir);
    if (engines.includes('postgres')) results.postgres = await runEngine('postgres', dir);
  } catch (error) {
    failure = error;
  } finally {
    await cleanUp();
  }

  const rows = Object.values(results).flatMap((r) => r.rows);
  const problems = [
    ...Object.values(results).flatMap((r) => r.problems),
    ...(scaling?.problems ?? []),
    ...(pages?.problems ?? []),
  ];
  const checks = targets(results.sqlite, scaling, held, pages);
  const out = process.stdout;
  if (rows.length > 0) {
    out.write(
      `\n${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured, each scenario right after its bare server; server LOG_LEVEL=${settings.logLevel}\n\n`,
    );
    out.write(`${table(rows)}\n\n`);
    for (const r of Object.values(results)) {
      out.write(
        `${r.engine}: process start to first 200 ${Math.round(r.startMs)} ms; RSS at rest ${Math.round(r.rssAtRestMb)} MB; peak RSS ${Math.round(r.peakRssMb ?? 0)} MB; seeded in ${Math.round(r.seedMs)} ms (${r.databaseVersion})\n`,
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
  if (pages && pages.rows.length > 0) {
    out.write(
      `\npages (sqlite, signed in through the login form; 100k: ${pages.dataset.pages100kEntries} entries of ${pages.dataset.movies} movies; 1k: ${pages.dataset.pages1kEntries} entries), each against its bare server, then 1k against 100k on the app:\n\n`,
    );
    out.write(`${pagesTable(pages.rows)}\n`);
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
        pages,
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
