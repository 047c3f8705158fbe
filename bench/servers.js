// The two servers a scenario measures: the built app started as `npm start` starts it, and the bare
// node:http server of bare-server.js. Plus the RSS of a process, read from /proc.
import { execFileSync, fork, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The server went away mid-run (a crash, the OOM killer, a signal from outside the bench). */
export class ServerDied extends Error {}

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file, lines = 5) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The arguments of the `node` command of `npm start` (package.json), e.g.
 * `['--v8-pool-size=2', '--max-semi-space-size=4', '--max-old-space-size=512', 'dist/main.js']`: the bench starts the server
 * exactly as production does, V8 options included.
 */
export function startCommandArgs(root = ROOT) {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const node = /(?:^|&&)\s*node\s+([^&]+)$/.exec(scripts.start);
  if (!node) throw new Error(`cannot find the node command in the start script: ${scripts.start}`);
  return node[1].trim().split(/\s+/);
}

/**
 * Starts the server with the `node` command of `npm start` (see `startCommandArgs`), once built, with
 * a clean environment: only the database, address and log level are set, everything else is the default.
 * Its stdout and stderr (pino's JSON lines) go to `logFile`, as they would to a log collector.
 * `nodeArgs`: node options added after those of `npm start` (so they override them), for profiling or
 * trying V8 settings. `startMs`: from spawn to the first 200 of GET /healthz. `root`: the checkout
 * whose build runs (another commit's, for bench/compare.js).
 */
export async function startApp({
  databaseUrl,
  logFile,
  logLevel,
  extraEnv = {},
  nodeArgs = [],
  root = ROOT,
}) {
  const port = await freePort();
  const out = openSync(logFile, 'a');
  const started = performance.now();
  const command = startCommandArgs(root);
  const child = spawn(process.execPath, [...command.slice(0, -1), ...nodeArgs, ...command.slice(-1)], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
      ...extraEnv,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exit = null;
  let stopping = false;
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const base = `http://127.0.0.1:${port}`;
  let startMs = null;
  const deadline = started + 20_000;
  while (performance.now() < deadline) {
    if (exit) break;
    try {
      const response = await fetch(`${base}/healthz`);
      await response.arrayBuffer();
      if (response.status === 200) {
        startMs = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  if (startMs === null) {
    child.kill('SIGKILL');
    throw new Error(
      `the server ${exit ? `exited (${exit.code ?? exit.signal})` : 'did not answer 200 on /healthz within 20 s'}; its log:\n${tail(logFile)}`,
    );
  }
  return {
    base,
    pid: child.pid,
    startMs,
    /** Throws if the server is gone (crash, killed by the OOM killer...). */
    assertAlive() {
      if (exit && !stopping) {
        const how = exit.signal ? `killed by ${exit.signal}` : `exited with status ${exit.code}`;
        throw new ServerDied(`the server ${how} during the run; the end of its log:\n${tail(logFile)}`);
      }
    },
    async peakRssMb() {
      return (await procStatus(child.pid)).hwm;
    },
    /** RSS now, in MB. */
    async rssMb() {
      return (await procStatus(child.pid)).rss;
    },
    async stop() {
      if (exit) return exit;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** A bare server answering `status`, `contentType` and `body` to everything. */
export async function startBare({ status, contentType, body }) {
  const child = fork(join(ROOT, 'bench', 'bare-server.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve(port));
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    child.send({ status, contentType, body: Buffer.from(body).toString('base64') });
  });
  return {
    pid: child.pid,
    base: `http://127.0.0.1:${port}`,
    /** The first requests it answered: { method, path, contentType, body } each. */
    recorded() {
      return new Promise((resolve) => {
        child.once('message', (message) => resolve(message.recorded));
        child.send('recorded');
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** VmRSS (now) and VmHWM (peak so far) of a process, in MB. */
async function procStatus(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
let ticksPerSecond = null;

/**
 * The CPU time a process has used so far, all its threads, user and system, in µs (`/proc/<pid>/stat`).
 * Null where there is no /proc.
 */
export function cpuMicros(pid) {
  const times = cpuTimes(pid);
  return times === null ? null : times.user + times.system;
}

function clockTicks() {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** A process's CPU time so far, all its threads, in µs: { user, system }; null where there is no /proc. */
export function cpuTimes(pid) {
  try {
    // The fields after the command name (which may hold spaces) in parentheses: utime and stime are 14th and 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const scale = 1e6 / clockTicks();
    return { user: Number(fields[11]) * scale, system: Number(fields[12]) * scale };
  } catch {
    return null;
  }
}

/**
 * The user CPU time of the whole machine so far, all processes, in µs (`/proc/stat`: user + nice);
 * null where there is no /proc. User time only: the kernel's own work for loopback traffic (softirq,
 * kworkers) moves with the load being measured, other programs' user time does not.
 */
export function machineUserMicros() {
  try {
    const [user, nice] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 3);
    return ((Number(user) + Number(nice)) * 1e6) / clockTicks();
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until `stop()`, which returns the highest value in MB. */
export function sampleRss(pid, everyMs = 100) {
  let max = 0;
  let pending = Promise.resolve();
  const sample = () => {
    pending = procStatus(pid).then(
      ({ rss }) => {
        max = Math.max(max, rss);
      },
      () => {},
    );
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      sample();
      await pending;
      return max;
    },
  };
}
