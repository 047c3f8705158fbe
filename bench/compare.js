// Two builds side by side, in one session: this checkout's dist/ and another checkout's (another
// commit, built in a git worktree), each on a SQLite database seeded by its own bench/seed.js, loaded
// by wrk in alternating rounds (other, this, other, this...), scenario by scenario. Prints each side's
// req/s, p99 and CPU µs per request, and the ratio this / other (the median of the rounds' ratios).
//
//   git worktree add /tmp/cinelog-7248020 7248020 && ln -s "$PWD/node_modules" /tmp/cinelog-7248020/
//   (cd /tmp/cinelog-7248020 && npm run build) && npm run build
//   node bench/compare.js --other /tmp/cinelog-7248020 --only token,post --rounds 6
//   git worktree remove --force /tmp/cinelog-7248020
//
// Options as bench/run.js: --seconds (per side, split into --rounds), --warmup, --connections,
// --threads, --only; --swap runs this build first in each pair; --this <checkout> measures another
// checkout in place of this one. BENCH_SERVER_NODE_ARGS reaches both
// servers (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: one profile per process id).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { comparePaired, sendOnce, wrkVersion } from './load.js';
import { readScenarios, SCROBBLES_PER_URL, writeScenarios } from './scenarios.js';
import { ROOT, startApp } from './servers.js';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    this: { type: 'string' },
    seconds: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '1' },
    only: { type: 'string', default: 'history page 1,token,post' },
    swap: { type: 'boolean', default: false },
  },
});
if (!args.other) {
  process.stderr.write(
    'node bench/compare.js --other <checkout with dist/ built> [--only token,post] [--rounds 6]\n',
  );
  process.exit(2);
}
const settings = {
  seconds: Number(args.seconds),
  warmupSeconds: Number(args.warmup),
  rounds: Number(args.rounds),
  connections: Number(args.connections),
  threads: Number(args.threads),
};
const only = args.only
  .toLowerCase()
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const log = (line) => process.stderr.write(`${line}\n`);
const wrk = wrkVersion();
const dir = mkdtempSync(join(os.tmpdir(), 'cinelog-compare-'));

/** One build: its database seeded by its own bench modules, its server started as `npm start` does. */
async function startBuild(name, root) {
  const { createDatabase } = await import(pathToFileURL(join(root, 'bench', 'databases.js')).href);
  const { seedMain, scrobbleWebhookPool } = await import(pathToFileURL(join(root, 'bench', 'seed.js')).href);
  const database = await createDatabase('sqlite', { dir, name });
  const data = await seedMain(database.db);
  await database.prepareForReads?.();
  const pool = scrobbleWebhookPool(database.db, {
    benchUserId: data.bench.id,
    benchPath: data.plexWebhookPath,
    perUrl: SCROBBLES_PER_URL,
  });
  // Enough webhook URLs for either build at 20,000 reports a second.
  await pool.ensure(
    Math.ceil((20_000 * (settings.seconds + settings.warmupSeconds + 1)) / SCROBBLES_PER_URL),
  );
  const app = await startApp({
    root,
    databaseUrl: database.url,
    logFile: join(dir, `server-${name}.log`),
    logLevel: process.env.BENCH_LOG_LEVEL || 'info',
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  });
  const scenarios = [...readScenarios(data), ...writeScenarios(data, pool, database.db, settings)];
  return { name, root, database, app, scenarios };
}

const fixed = (n, digits = 2) => (n === null || n === undefined ? '-' : n.toFixed(digits));

/** Servers and databases to stop, also on Ctrl-C. */
const started = [];
async function stopAll() {
  for (const build of started.splice(0)) {
    await build.app.stop().catch(() => {});
    await build.database.drop().catch(() => {});
  }
  rmSync(dir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => stopAll().finally(() => process.exit(130)));

async function main() {
  const other = await startBuild('other', resolve(args.other));
  started.push(other);
  const self = await startBuild('this', resolve(args.this ?? ROOT));
  started.push(self);
  const [first, second] = args.swap ? [self, other] : [other, self];
  log(
    `compare: ${first.name} (${first.root}) then ${second.name} (${second.root}), ${settings.rounds} alternating rounds, ${settings.seconds} s per side, wrk ${wrk}`,
  );
  const rows = [];
  try {
    for (const name of first.scenarios.map((s) => s.name)) {
      // A whole name matches only itself ('history page 1' is not 'HTML history page 1').
      const names = first.scenarios.map((s) => s.name.toLowerCase());
      const wanted = only.some((part) =>
        names.includes(part) ? name.toLowerCase() === part : name.toLowerCase().includes(part),
      );
      if (!wanted) continue;
      const sides = [first, second].map((build) => {
        const scenario = build.scenarios.find((s) => s.name === name);
        return { build, scenario, counter: { next: 0 } };
      });
      const samples = [];
      for (const side of sides)
        samples.push(await sendOnce(side.build.app.base, side.scenario, side.counter.next++));
      const refused = samples.findIndex((sample, i) => sample.status !== sides[i].scenario.expect);
      if (refused !== -1) {
        const { status, body } = samples[refused];
        log(
          `  ${name}: skipped, ${sides[refused].build.name} answered ${status} ${body.toString().slice(0, 200)}`,
        );
        continue;
      }
      log(`  ${name}...`);
      const result = await comparePaired(
        { server: first.app, scenario: sides[0].scenario, counter: sides[0].counter },
        { server: second.app, scenario: sides[1].scenario, counter: sides[1].counter },
        settings,
      );
      const [a, b] = [result.first, result.second];
      const byName = { [first.name]: a, [second.name]: b };
      const ratio = args.swap ? 1 / result.ratio : result.ratio;
      rows.push({
        scenario: name,
        other: byName.other,
        this: byName.this,
        ratioThisToOther: ratio,
        repeatedRounds: result.repeatedRounds,
      });
      for (const [build, figures] of Object.entries(byName)) {
        const wrong = Object.entries(figures.statusCodes).filter(
          ([code]) => Number(code) !== sides[0].scenario.expect,
        );
        if (wrong.length > 0 || figures.errors > 0)
          log(`  !! ${build}: ${JSON.stringify(figures.statusCodes)}, ${figures.errors} errors`);
      }
    }
  } finally {
    await stopAll();
  }
  const out = process.stdout;
  out.write(
    '\n| scenario | other req/s | this req/s | this / other | other CPU µs | this CPU µs | other p99 ms | this p99 ms |\n|---|--:|--:|--:|--:|--:|--:|--:|\n',
  );
  for (const r of rows)
    out.write(
      `| ${r.scenario} | ${r.other.requestsPerSecond} | ${r.this.requestsPerSecond} | ${fixed(r.ratioThisToOther, 3)} | ${fixed(r.other.cpuUsPerRequest, 1)} | ${fixed(r.this.cpuUsPerRequest, 1)} | ${r.other.latencyMs.p99} | ${r.this.latencyMs.p99} |\n`,
    );
  for (const r of rows)
    out.write(
      `${r.scenario}: rounds other ${r.other.rounds.map((x) => x.requestsPerSecond).join(' ')}; this ${r.this.rounds.map((x) => x.requestsPerSecond).join(' ')}; ${r.repeatedRounds} pairs run again (disturbed)\n`,
    );
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(
    ROOT,
    'bench',
    'results',
    `compare-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  writeFileSync(
    file,
    `${JSON.stringify({ other: resolve(args.other), settings, swap: args.swap, loadAverage: os.loadavg(), rows }, null, 2)}\n`,
  );
  log(`results written to ${file}`);
}

main().catch(async (error) => {
  log(`compare failed: ${error.stack ?? error}`);
  await stopAll();
  process.exit(1);
});
