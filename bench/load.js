// The load generator: wrk (https://github.com/wg/wrk; Debian's package `wrk`), a warm-up run and then
// the measured rounds, with the same settings for the app and for the bare server. A scenario gives
// either one fixed request (reads) or requests that change with each call (writes: every request
// writes something new): a JavaScript `request(k)` for the sample request, and the same request in
// Lua (`vary`) for wrk's `request()` hook, which counts k on.
//
// Why wrk and not autocannon: on 2 cores the load generator and the server share the machine, and
// autocannon (JavaScript, one core) saturated before a fast server did. It served the bare server one
// request every 25 µs while that server spent 17 µs on it, so ratios to bare came out too high and a
// slower app looked as fast (issue 28: the token check lost a quarter of its speed unseen). wrk spends
// a few µs of CPU per request.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTimes, machineUserMicros } from './servers.js';

/** The wrk binary: BENCH_WRK, or `wrk` on the PATH. */
const WRK = process.env.BENCH_WRK || 'wrk';

export const WRK_MISSING =
  'wrk, the load generator of the bench, is not installed.\n' +
  '  Debian, Ubuntu:  apt-get install -y wrk   (as root, or with sudo)\n' +
  '  macOS:           brew install wrk\n' +
  '  elsewhere:       build it from https://github.com/wg/wrk and put it on the PATH, or set BENCH_WRK=/path/to/wrk';

/** wrk's version line; throws with how to install it when it is missing. */
export function wrkVersion() {
  const result = spawnSync(WRK, ['-v'], { encoding: 'utf8' });
  if (result.error) {
    if (result.error.code === 'ENOENT') throw new WrkMissing(WRK_MISSING);
    throw result.error;
  }
  // `wrk -v` prints its version and usage, and exits 1.
  return /^wrk\s+(\S+)/m.exec(`${result.stdout}${result.stderr}`)?.[1] ?? 'unknown';
}

export class WrkMissing extends Error {}

/** The k-th request of a scenario: { method, path, headers, body }. */
function requestOf(scenario, k) {
  return scenario.request
    ? scenario.request(k)
    : { method: 'GET', path: scenario.path, headers: scenario.headers };
}

/** Sends one request with fetch: the status, content-type and body bytes the bare server will mimic. */
export async function sendOnce(base, scenario, k) {
  const { method, path, headers, body } = requestOf(scenario, k);
  const started = performance.now();
  const response = await fetch(base + path, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: bytes,
    /** The first request of a scenario: nothing cached for it yet, one request alone. */
    ms: performance.now() - started,
  };
}

// ---- wrk and its Lua script -------------------------------------------------------------------

/** A JavaScript value as a Lua literal: numbers, strings (any bytes), booleans, arrays, objects. */
export function luaLiteral(value) {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a Lua number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    let out = '"';
    for (const byte of Buffer.from(value, 'utf8')) {
      // Printable ASCII as is, but for the quote and the backslash; every other byte as \ddd.
      out +=
        byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
          ? String.fromCharCode(byte)
          : `\\${String(byte).padStart(3, '0')}`;
    }
    return `${out}"`;
  }
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(',')}}`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, v]) => `[${luaLiteral(key)}]=${luaLiteral(v)}`)
      .join(',')}}`;
  throw new Error(`no Lua literal for ${typeof value}`);
}

/** The part of every script (bench/wrk.lua): statuses counted, requests numbered, figures as JSON. */
const HARNESS = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'wrk.lua'), 'utf8');

/**
 * The script of one wrk run: the scenario's request, then HARNESS. A fixed request is set once in
 * `wrk`; a varying one (`vary`) is `make(k, data)` in Lua, `data` given from JavaScript as a literal.
 */
function wrkScript(scenario) {
  const lines = [];
  if (scenario.vary) {
    const { lua, data } = scenario.vary;
    lines.push(`data = ${luaLiteral(typeof data === 'function' ? data() : (data ?? {}))}`, lua);
  } else {
    lines.push('wrk.method = "GET"');
    for (const [name, value] of Object.entries(scenario.headers ?? {}))
      lines.push(`wrk.headers[${luaLiteral(name)}] = ${luaLiteral(value)}`);
  }
  lines.push(HARNESS);
  return lines.join('\n');
}

let scriptDir = null;
function scriptFile(text) {
  if (scriptDir === null) {
    scriptDir = mkdtempSync(join(os.tmpdir(), 'cinelog-wrk-'));
    process.once('exit', () => rmSync(scriptDir, { recursive: true, force: true }));
  }
  const file = join(scriptDir, `run-${process.hrtime.bigint()}.lua`);
  writeFileSync(file, text);
  return file;
}

/**
 * One wrk run of `seconds` (fractions allowed: wrk takes whole seconds, so it is given more and
 * stopped with SIGINT, after which it reports as at the end of its time). `counter.next`: the k of
 * the next varying request; moved past every request this run made. Resolves to wrk's figures and
 * its own CPU time (µs: `cpuUs` user + system, `userUs`), read just before it is stopped.
 */
export function wrkRun(url, scenario, settings, seconds, counter = { next: 0 }) {
  const threads = Math.min(settings.threads ?? 1, settings.connections);
  const file = scriptFile(wrkScript(scenario));
  const args = [
    '-t',
    String(threads),
    '-c',
    String(settings.connections),
    '-d',
    `${Math.ceil(seconds) + 30}s`,
    '--timeout',
    `${settings.timeoutSeconds ?? 10}s`,
    '-s',
    file,
    url,
    '--',
    String(counter.next),
    String(threads),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let wrkCpu = null;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      wrkCpu = cpuTimes(child.pid);
      child.kill('SIGINT');
    }, seconds * 1000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' ? new WrkMissing(WRK_MISSING) : error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('WRK_RESULT '));
      if (!line) {
        reject(
          new Error(
            `wrk ${code === null ? `killed by ${signal}` : `exited with ${code}`} without figures: ${stderr.trim() || stdout.trim()}`,
          ),
        );
        return;
      }
      const result = JSON.parse(line.slice('WRK_RESULT '.length));
      if (scenario.vary) counter.next += result.made;
      resolve({ ...result, cpuUs: wrkCpu && wrkCpu.user + wrkCpu.system, userUs: wrkCpu?.user ?? null });
    });
  });
}

/** The URL wrk is given: a fixed request's own, or the server's root (`request()` sets each path). */
const urlOf = (base, scenario) => (scenario.vary ? `${base}/` : base + scenario.path);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const ms = (us) => Math.round(us / 10) / 100;
const perRequest = (us, requests) =>
  us === null || us === undefined || requests === 0 ? null : Math.round((us / requests) * 10) / 10;

/** One wrk run as figures: requests per second over the run, latencies (ms), statuses. */
export function figuresOf(result) {
  const seconds = result.durationUs / 1e6;
  let ok2xx = 0;
  for (const [code, count] of Object.entries(result.statusCodes))
    if (Number(code) >= 200 && Number(code) < 300) ok2xx += count;
  const { connect, read, write, timeout } = result.errors;
  return {
    requestsPerSecond: Math.round(result.requests / seconds),
    requestsTotal: result.requests,
    durationSeconds: Math.round(seconds * 1000) / 1000,
    latencyMs: {
      p50: ms(result.latencyUs.p50),
      p90: ms(result.latencyUs.p90),
      p99: ms(result.latencyUs.p99),
      max: ms(result.latencyUs.max),
      mean: ms(result.latencyUs.mean),
    },
    throughputBytesPerSecond: Math.round(result.bytes / seconds),
    ok2xx,
    non2xx: result.requests - ok2xx,
    errors: connect + read + write,
    timeouts: timeout,
    statusCodes: result.statusCodes,
    /** wrk's own CPU time per request: a load generator near its limit shows here. */
    loadCpuUsPerRequest: perRequest(result.cpuUs, result.requests),
  };
}

/** Several rounds of one server as one figure: medians, the worst p99 and max, sums of the counts. */
function combined(rounds, warmup) {
  const statusCodes = {};
  for (const round of rounds)
    for (const [code, count] of Object.entries(round.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const sum = (key) => rounds.reduce((total, round) => total + round[key], 0);
  const medianOf = (key) => (rounds.every((r) => r[key] != null) ? median(rounds.map((r) => r[key])) : null);
  return {
    requestsPerSecond: Math.round(median(rounds.map((r) => r.requestsPerSecond))),
    requestsTotal: sum('requestsTotal'),
    durationSeconds: sum('durationSeconds'),
    latencyMs: {
      p50: median(rounds.map((r) => r.latencyMs.p50)),
      p90: median(rounds.map((r) => r.latencyMs.p90)),
      p99: Math.max(...rounds.map((r) => r.latencyMs.p99)),
      max: Math.max(...rounds.map((r) => r.latencyMs.max)),
      mean: median(rounds.map((r) => r.latencyMs.mean)),
    },
    throughputBytesPerSecond: Math.round(median(rounds.map((r) => r.throughputBytesPerSecond))),
    ok2xx: sum('ok2xx'),
    warmupOk2xx: warmup.ok2xx,
    non2xx: sum('non2xx') + warmup.non2xx,
    errors: sum('errors') + warmup.errors,
    timeouts: sum('timeouts') + warmup.timeouts,
    statusCodes,
    cpuUsPerRequest: medianOf('cpuUsPerRequest'),
    /** Rounds kept although another program took CPU in each of their attempts. */
    disturbedRounds: rounds.filter((r) => r.disturbed).length,
    loadCpuUsPerRequest: medianOf('loadCpuUsPerRequest'),
    rounds,
  };
}

/**
 * One measured round against `server` ({ base, pid }): its figures, and the CPU time the server's
 * process spent per request during it (all its threads), a figure the load generator's and the
 * machine's other noise move much less than requests per second. `otherCores`: the user CPU time that
 * neither the server nor wrk spent meanwhile, in cores (another program running: a disturbed round).
 */
async function measuredRound(server, scenario, settings, seconds, counter) {
  const machineBefore = machineUserMicros();
  const cpuBefore = cpuTimes(server.pid);
  const result = await wrkRun(urlOf(server.base, scenario), scenario, settings, seconds, counter);
  const cpuAfter = cpuTimes(server.pid);
  const machineAfter = machineUserMicros();
  const figures = figuresOf(result);
  figures.cpuUsPerRequest =
    cpuBefore === null || cpuAfter === null
      ? null
      : perRequest(cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system, result.requests);
  figures.otherCores =
    machineBefore === null || cpuBefore === null || cpuAfter === null || result.userUs === null
      ? null
      : Math.max(
          0,
          Math.round(
            ((machineAfter - machineBefore - (cpuAfter.user - cpuBefore.user) - result.userUs) /
              result.durationUs) *
              100,
          ) / 100,
        );
  return figures;
}

/** A round during which other programs took more than this many cores of user time is run again. */
const DISTURBED_CORES = 0.15;
/** Times a pair of rounds is run at most, the last one kept whatever it shows. */
const ATTEMPTS = 3;

/**
 * Two measurements side by side: a warm-up of each, then `settings.rounds` alternating rounds of
 * `seconds / rounds` each (first, second, first, second...), so that the machine's noise of a few
 * seconds (another process, the CPU's clock) falls on both alike. Each side's figure is the median of
 * its rounds (p99: the worst round); the ratio (second / first) is the median of the ratios of the
 * rounds run side by side. Each round also gives the CPU time per request of its server. `first` and
 * `second`: { server: { base, pid }, scenario, counter }. `beforeSecond(firstWarmupRate)` runs between
 * the two warm-ups.
 */
export async function comparePaired(first, second, settings, beforeSecond) {
  const roundSeconds = settings.seconds / settings.rounds;
  const none = { requestsPerSecond: 0, ok2xx: 0, non2xx: 0, errors: 0, timeouts: 0 };
  const warmup = async (side) =>
    settings.warmupSeconds > 0
      ? figuresOf(
          await wrkRun(
            urlOf(side.server.base, side.scenario),
            side.scenario,
            settings,
            settings.warmupSeconds,
            side.counter,
          ),
        )
      : none;
  const firstWarmup = await warmup(first);
  await beforeSecond?.(firstWarmup.requestsPerSecond);
  const secondWarmup = await warmup(second);
  const firstRounds = [];
  const secondRounds = [];
  let repeated = 0;
  // 2xx answers of rounds run again: not measured, but their writes were made (the write checks).
  const discarded = { first: 0, second: 0 };
  for (let round = 0; round < settings.rounds; round++) {
    // A pair of rounds that another program disturbed (see measuredRound) is run again, both sides.
    for (let attempt = 1; ; attempt++) {
      const a = await measuredRound(first.server, first.scenario, settings, roundSeconds, first.counter);
      const b = await measuredRound(second.server, second.scenario, settings, roundSeconds, second.counter);
      const disturbed = [a, b].some((r) => r.otherCores !== null && r.otherCores > DISTURBED_CORES);
      if (!disturbed || attempt === ATTEMPTS) {
        if (disturbed) a.disturbed = b.disturbed = true;
        firstRounds.push(a);
        secondRounds.push(b);
        break;
      }
      repeated += 1;
      discarded.first += a.ok2xx;
      discarded.second += b.ok2xx;
    }
  }
  return {
    first: { ...combined(firstRounds, firstWarmup), discardedOk2xx: discarded.first },
    second: { ...combined(secondRounds, secondWarmup), discardedOk2xx: discarded.second },
    ratio: median(secondRounds.map((b, i) => b.requestsPerSecond / firstRounds[i].requestsPerSecond)),
    /** Pairs of rounds run again because another program took CPU meanwhile. */
    repeatedRounds: repeated,
  };
}

/** The app against the bare server serving the same bytes (see `comparePaired`): bare first. */
export async function compareWithBare(bare, app, scenario, settings, appCounter, beforeApp) {
  const { first, second, ratio, repeatedRounds } = await comparePaired(
    { server: bare, scenario, counter: { next: 0 } },
    { server: app, scenario, counter: appCounter },
    settings,
    beforeApp,
  );
  return { app: second, bare: first, ratio, repeatedRounds };
}

/**
 * Checks a scenario's Lua requests against its JavaScript ones: each request the bare server
 * recorded (`{ method, path, contentType, body }`) must be `scenario.request(k)` for some k below
 * `upTo`. Returns the first that is not, or null.
 */
export function firstForeignRequest(scenario, recorded, upTo) {
  const known = new Set();
  for (let k = 0; k < upTo; k++) {
    const { method, path, headers, body } = scenario.request(k);
    known.add(JSON.stringify([method, path, headers?.['content-type'] ?? null, body ?? '']));
  }
  return (
    recorded.find((r) => !known.has(JSON.stringify([r.method, r.path, r.contentType ?? null, r.body]))) ??
    null
  );
}
