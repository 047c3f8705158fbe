// The load generator: autocannon, a warm-up run and then the measured run, with the same settings for
// the app and for the bare server. A scenario gives either one fixed request (reads) or a function
// that makes the k-th request (writes: every request writes something new).
import autocannon from 'autocannon';

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

/**
 * Warm-up, then the measured run. `counter.next` numbers the requests across both (and across the
 * sample request sent before), so generated writes never repeat.
 */
export async function measure(base, scenario, settings, counter = { next: 0 }) {
  const warmup =
    settings.warmupSeconds > 0
      ? await autocannonRun(base, scenario, settings, settings.warmupSeconds, counter)
      : { '2xx': 0 };
  const result = await autocannonRun(base, scenario, settings, settings.seconds, counter);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
  );
  return {
    requestsPerSecond: Math.round(result.requests.average),
    requestsTotal: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    throughputBytesPerSecond: Math.round(result.throughput.average),
    ok2xx: result['2xx'],
    warmupOk2xx: warmup['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
  };
}
