// The load of the held-connections run (bench/run.js, `held`), in a process of its own so that the
// process timing new connections is idle: `node bench/held-load.js <url> <connections> <seconds>`
// keeps that many keep-alive connections busy with GET requests of <url> and prints autocannon's
// figures as JSON on stdout.
import autocannon from 'autocannon';

const [url, connections, seconds] = process.argv.slice(2);
const result = await autocannon({
  url,
  connections: Number(connections),
  pipelining: 1,
  duration: Number(seconds),
  timeout: 30,
});
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p99Ms: result.latency.p99,
  })}\n`,
);
