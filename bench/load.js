// The load generator: autocannon, a warm-up run and then the measured run, with the same settings for
// the app and for the bare server. A scenario gives either one fixed request (reads) or a function
// that makes the k-th request (writes: every request writes something new).
import autocannon from 'autocannon';
import { cpuMicros } from './servers.js';

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

function autocannonRun(base, scenario, settings, seconds, counter) {
  const requests = scenario.request
    ? [{ setupRequest: (request) => Object.assign(request, scenario.request(counter.next++)) }]
    : [{ method: 'GET', path: scenario.path, headers: scenario.headers }];
  return autocannon({
    url: base,
    connections: settings.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests,
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One measured run as figures: requests per second over the run, latencies, statuses. */
function figuresOf(result) {
  return {
    requestsPerSecond: Math.round(result.requests.total / result.duration),
    requestsTotal: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    throughputBytesPerSecond: Math.round(result.throughput.total / result.duration),
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
  };
}

/** Several rounds of one server as one figure: medians, the worst p99 and max, sums of the counts. */
function combined(rounds, warmup) {
  const statusCodes = {};
  for (const round of rounds)
    for (const [code, count] of Object.entries(round.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  const sum = (key) => rounds.reduce((total, round) => total + round[key], 0);
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
    warmupOk2xx: warmup['2xx'],
    non2xx: sum('non2xx') + warmup.non2xx,
    errors: sum('errors') + warmup.errors,
    timeouts: sum('timeouts') + warmup.timeouts,
    statusCodes,
    cpuUsPerRequest: rounds.every((r) => r.cpuUsPerRequest != null)
      ? median(rounds.map((r) => r.cpuUsPerRequest))
      : null,
    rounds,
  };
}

/**
 * One measured round against `server` ({ base, pid }): its figures, and the CPU time the server's
 * process spent per request during it (all its threads), a figure the load generator's and the
 * machine's other noise move much less than requests per second.
 */
async function measuredRound(server, scenario, settings, seconds, counter) {
  const cpuBefore = cpuMicros(server.pid);
  const result = await autocannonRun(server.base, scenario, settings, seconds, counter);
  const cpuAfter = cpuMicros(server.pid);
  const figures = figuresOf(result);
  figures.cpuUsPerRequest =
    cpuBefore === null || cpuAfter === null || result.requests.total === 0
      ? null
      : Math.round(((cpuAfter - cpuBefore) / result.requests.total) * 10) / 10;
  return figures;
}

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
  const none = { '2xx': 0, non2xx: 0, errors: 0, timeouts: 0, requests: { total: 0 }, duration: 1 };
  const warmup = (side) =>
    settings.warmupSeconds > 0
      ? autocannonRun(side.server.base, side.scenario, settings, settings.warmupSeconds, side.counter)
      : none;
  const firstWarmup = await warmup(first);
  await beforeSecond?.(firstWarmup.requests.total / Math.max(firstWarmup.duration, 1e-3));
  const secondWarmup = await warmup(second);
  const firstRounds = [];
  const secondRounds = [];
  for (let round = 0; round < settings.rounds; round++) {
    firstRounds.push(
      await measuredRound(first.server, first.scenario, settings, roundSeconds, first.counter),
    );
    secondRounds.push(
      await measuredRound(second.server, second.scenario, settings, roundSeconds, second.counter),
    );
  }
  return {
    first: combined(firstRounds, firstWarmup),
    second: combined(secondRounds, secondWarmup),
    ratio: median(secondRounds.map((b, i) => b.requestsPerSecond / firstRounds[i].requestsPerSecond)),
  };
}

/** The app against the bare server serving the same bytes (see `comparePaired`): bare first. */
export async function compareWithBare(bare, app, scenario, settings, appCounter, beforeApp) {
  const { first, second, ratio } = await comparePaired(
    { server: bare, scenario, counter: { next: 0 } },
    { server: app, scenario, counter: appCounter },
    settings,
    beforeApp,
  );
  return { app: second, bare: first, ratio };
}
